"""The registry docs (``docs/``, HashiCorp's layout) document every attribute the provider serves."""

from __future__ import annotations

from pathlib import Path

from tf_testdata import ROOT

from computeops_cdk.terraform._provider import provider_spec

DOCS = ROOT / "docs"


def _pages() -> list[tuple[Path, list[str]]]:
    spec = provider_spec()
    pages = [(DOCS / "index.md", [a.name for a in spec.attributes])]
    pages += [
        (DOCS / "data-sources" / f"{d.name}.md", [a.name for a in d.attributes]) for d in spec.data_sources
    ]
    pages += [(DOCS / "resources" / f"{r.name}.md", [a.name for a in r.attributes]) for r in spec.resources]
    pages += [(DOCS / "functions" / f"{f.name}.md", []) for f in spec.functions]
    return pages


def test_every_provider_data_source_resource_and_function_attribute_is_documented() -> None:
    missing = {
        str(page.relative_to(ROOT)): [n for n in names if f"`{n}`" not in page.read_text(encoding="utf-8")]
        for page, names in _pages()
        if page.exists()
    }
    assert all(page.exists() for page, _ in _pages()), [str(p) for p, _ in _pages() if not p.exists()]
    assert not any(missing.values()), missing
