"""mkdocs hook: one set of Markdown files reads right both on the repository and in the site.

The pages link the way a repository viewer resolves links (`../benchmarks/ACCURACY.md` from
docs/, `docs/locks.md` from README.md). This hook makes the site agree:

* README.md is the site's home page; docs/index.md (the Terraform provider's registry page, whose
  place the registry layout fixes) is served as `terraform-provider.md`.
* Every repository file a page links to outside docs/ is mounted under `repo/` (Markdown as a page,
  anything else copied as is), and the Markdown files mounted that way have their links followed too.
* Every relative link of every page is rewritten to where its target lands in the site.

A relative link whose target does not exist in the repository fails the build, naming the page and
the link: stricter than mkdocs' own check, which cannot see outside docs/.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.repo_links")

ROOT = Path(__file__).resolve().parents[2]
HOME = "README.md"
PROVIDER_PAGE = "docs/index.md"
PROVIDER_URI = "terraform-provider.md"

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"(!?\[[^\]]*\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))|`[^`\n]*`")
"""A link (groups 1-3), or a code span (no group), matched first where it starts first."""
_EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#|/)", re.IGNORECASE)

_site_uri: dict[str, str] = {}
"""repository path -> the site's src_uri of every page and mounted file."""
_repo_path: dict[str, str] = {}
"""the reverse."""


def _outside_fences(markdown: str) -> list[str]:
    return _FENCE.sub("", markdown).splitlines()


def _targets(repo_path: str, markdown: str) -> list[tuple[str, str]]:
    """(link as written, repository path it resolves to) of every relative link outside code fences."""
    out = []
    base = posixpath.dirname(repo_path)
    for line in _outside_fences(markdown):
        for match in _LINK.finditer(line):
            link = match.group(2)
            if link is None or _EXTERNAL.match(link):
                continue
            path = link.split("#", 1)[0]
            if not path:
                continue
            out.append((link, posixpath.normpath(posixpath.join(base, path))))
    return out


def _resolve(target: str) -> str | None:
    """The repository file a link to ``target`` shows: the file, or a directory's README.md."""
    full = ROOT / target
    if full.is_dir():
        readme = full / "README.md"
        return f"{target}/README.md" if readme.is_file() else None
    return target if full.is_file() else None


def _site_uri_of(repo_path: str) -> str:
    if repo_path == HOME:
        return "index.md"
    if repo_path == PROVIDER_PAGE:
        return PROVIDER_URI
    if repo_path.startswith("docs/"):
        return repo_path[len("docs/") :]
    return f"repo/{repo_path}"


def on_files(files: Files, config: Any) -> Files:
    _site_uri.clear()
    _repo_path.clear()
    provider = files.get_file_from_path("index.md")
    if provider is not None:
        files.remove(provider)
    for path in (HOME, PROVIDER_PAGE):
        files.append(File.generated(config, _site_uri_of(path), abs_src_path=str(ROOT / path)))
    for file in files:
        repo = {"index.md": HOME, PROVIDER_URI: PROVIDER_PAGE}.get(file.src_uri, f"docs/{file.src_uri}")
        _site_uri[repo] = file.src_uri
        _repo_path[file.src_uri] = repo
    queue = [repo for uri, repo in _repo_path.items() if uri.endswith(".md")]
    missing: list[str] = []
    while queue:
        page = queue.pop()
        for link, target in _targets(page, (ROOT / page).read_text(encoding="utf-8")):
            resolved = _resolve(target)
            if resolved is None:
                missing.append(f"{page}: {link} ({target} is not in the repository)")
                continue
            if resolved in _site_uri:
                continue
            uri = _site_uri_of(resolved)
            files.append(File.generated(config, uri, abs_src_path=str(ROOT / resolved)))
            _site_uri[resolved] = uri
            _repo_path[uri] = resolved
            if resolved.endswith(".md"):
                queue.append(resolved)
    if missing:
        raise PluginError("links to files that do not exist:\n  " + "\n  ".join(sorted(set(missing))))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    repo = _repo_path.get(page.file.src_uri)
    if repo is None:
        return markdown
    here = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match[str]) -> str:
        link = match.group(2)
        if link is None or _EXTERNAL.match(link):
            return match.group(0)
        path, hash_, fragment = link.partition("#")
        if not path:
            return match.group(0)
        resolved = _resolve(posixpath.normpath(posixpath.join(posixpath.dirname(repo), path)))
        if resolved is None or resolved not in _site_uri:
            raise PluginError(f"{repo}: link {link} has no target in the site")
        new = posixpath.relpath(_site_uri[resolved], here or ".")
        return f"{match.group(1)}{new}{hash_}{fragment}{match.group(3)}"

    parts = []
    last = 0
    for fence in _FENCE.finditer(markdown):
        parts.append(_LINK.sub(rewrite, markdown[last : fence.start()]))
        parts.append(fence.group(0))
        last = fence.end()
    parts.append(_LINK.sub(rewrite, markdown[last:]))
    return "".join(parts)
