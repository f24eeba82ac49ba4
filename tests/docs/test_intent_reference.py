"""docs/intent-reference.md is what its generator makes of schemas/intent.schema.json today."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

from _blocks import ROOT


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("intent_reference", ROOT / "docs/hooks/intent_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_equals_a_fresh_generation() -> None:
    schema = json.loads((ROOT / "schemas/intent.schema.json").read_text(encoding="utf-8"))
    fresh = _generator().render(schema)
    committed = (ROOT / "docs/intent-reference.md").read_text(encoding="utf-8")
    assert committed == fresh, "docs/intent-reference.md is stale. To fix: make docs"


def test_every_schema_field_has_a_row_under_its_path() -> None:
    schema = json.loads((ROOT / "schemas/intent.schema.json").read_text(encoding="utf-8"))
    text = _generator().render(schema)
    sections = {"intent": schema, **{name: node for name, node in schema["$defs"].items()}}
    for node in sections.values():
        for field in node.get("properties", {}):
            assert f"| `{field}` |" in text, field
    # One section per object, named by the path an IntentError gives.
    for path in ("workload.serving", "workload.training", "constraints.residency", "preferences.weights"):
        assert f"## `{path}`" in text
    assert "| `output_tokens_per_s` | number | required |" in text
