"""The reproducible catalog builder: data/market -> one canonical JSON document.

``build_catalog(src_dir)`` is deterministic: records are sorted, the JSON is canonical (sorted keys,
one record per line, trailing newline) and ``sha256`` is the digest of that text without the
``sha256`` field. The same folder always yields the same bytes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import CatalogError
from ._accelerators import build_accelerators
from ._canonical import canonical_json, canonical_order, content_sha256, ordered_sha256
from ._offers import build_offers
from ._packed import pack_catalog, packed_path
from ._providers import build_providers, build_regions
from ._sources import MarketData
from ._validate import validate_document

__all__ = [
    "DEFAULT_OUTPUT",
    "DEFAULT_SOURCE",
    "build_catalog",
    "canonical_json",
    "canonical_order",
    "check_output_target",
    "content_sha256",
    "ordered_sha256",
    "system_entry_on_the_way",
    "write_catalog",
]

DEFAULT_SOURCE = Path("data/market")
"""Where ``computeops catalog build`` reads by default (relative to the working directory)."""

DEFAULT_OUTPUT = Path(__file__).parent / "data" / "catalog.json"
"""The embedded package data file that ``load_catalog()`` reads."""


def build_catalog(src_dir: str | os.PathLike[str] = DEFAULT_SOURCE) -> dict[str, Any]:
    """Build the catalog document from a market-data folder; raises CatalogError on bad data."""
    data = MarketData(Path(src_dir))
    regions = build_regions(data)
    instance_types, offers = build_offers(data)
    doc: dict[str, Any] = {
        "version": data.meta("version"),
        "as_of": data.meta("as_of"),
        "providers": build_providers(data, regions),
        "regions": regions,
        "accelerators": build_accelerators(data),
        "instance_types": instance_types,
        "offers": offers,
    }
    doc["sha256"] = content_sha256(doc)
    validate_document(doc)
    return doc


def write_catalog(doc: dict[str, Any], path: str | os.PathLike[str] = DEFAULT_OUTPUT) -> Path:
    """Write ``doc`` canonically and atomically (temp file + rename), with the embedded catalog's
    packed form (``catalog_files``); returns the path."""
    target = Path(path)
    write_texts_atomic(catalog_files(target, canonical_json(doc)))
    return target


def catalog_files(target: Path, text: str, embedded: Path = DEFAULT_OUTPUT) -> dict[Path, str]:
    """The files that writing catalog ``text`` to ``target`` replaces: the catalog, and when
    ``target`` is the ``embedded`` catalog, its packed form too (``_packed``)."""
    files = {target: text}
    if _same_file(target, embedded):
        packed = pack_catalog(text)
        if packed is not None:  # else the old packed file no longer matches and is ignored
            # Beside the embedded catalog, where the loader reads it, even when ``target`` is a link
            # to it (``--output link.json``): not beside the link.
            files[packed_path(embedded)] = packed
    return files


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a loop of links: not the package's own file
        return False


def write_text_atomic(target: Path, text: str) -> None:
    """Replace ``target`` with ``text`` so readers see either the old or the new file, never half."""
    write_texts_atomic({target: text})


def write_texts_atomic(files: Mapping[Path, str]) -> None:
    """Replace several files, all or none as far as the file system allows: every file is first
    written to a temporary sibling, and only when all of them are staged are they renamed into place.

    Raises:
        CatalogError: a target is a directory or cannot be written (``/proc/x``); none was changed.
    """
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in files.items():
            real = check_output_target(target)
            staged.append((_stage(real, text), real))
        for tmp, target in staged:
            os.replace(tmp, target)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def check_output_target(target: Path) -> Path:
    """The file that writing ``target`` replaces: ``target``, or the file it links to (the link is
    kept: a link in a repository to the catalog it tracks writes that catalog).

    Refused: a directory, anything but a regular file, and a path that is or resolves through an
    entry of /proc or /dev (but /dev/shm, a folder of ordinary files): the rename into place
    replaced a FIFO, a device or a link to one with the catalog (``--output /dev/stdout`` run as
    root, as in a CI container, replaced the /dev entry itself), and a /proc/self/fd link resolves
    to whatever file the descriptor has open (stdout redirected to a file: that file).
    """
    entry = system_entry_on_the_way(target)
    if entry is not None:
        raise CatalogError(
            f"cannot write {str(target)!r}: it is or links to {str(entry)!r}, a process or device "
            "entry (writing the catalog would replace it, or the file a descriptor has open). Nothing "
            "was changed. To fix: give a file path, e.g. catalog.json, and redirect from there."
        )
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if target.is_dir():
        raise CatalogError(
            f"cannot write {str(target)!r}: it is a directory. Nothing was changed. To fix: give a file "
            f"path, e.g. {str(target / 'catalog.json')!r}."
        )
    if target.exists() and not target.is_file():
        raise CatalogError(
            f"cannot write {str(target)!r}: it is not a regular file (a FIFO, device or socket, which "
            "writing the catalog would replace). Nothing was changed. To fix: give a file path, e.g. "
            "catalog.json, and redirect from there."
        )
    return target


_SYSTEM = (Path("/proc"), Path("/dev"))
_ORDINARY = Path("/dev/shm")


def system_entry_on_the_way(path: Path) -> Path | None:
    """The first entry under /proc or /dev (not /dev/shm) that resolving ``path`` passes through (a
    link on the way, or where it ends), with the rest of the path; None when there is none.
    ``realpath`` cannot tell: it resolves /proc/self/fd/1 to the file the descriptor has open."""
    pending = list(reversed(Path(os.getcwd(), path).parts[1:]))
    current, hops = Path("/"), 0
    while pending:
        name = pending.pop()
        current = current.parent if name == ".." else current / name
        try:
            link = Path(os.readlink(current)) if hops < 40 else None
        except OSError:  # not a link, or not there (yet): nothing further to resolve
            link = None
        if (link is not None or not pending) and _is_system(current):
            return current.joinpath(*reversed(pending))
        if link is not None:
            hops += 1
            current = Path("/") if link.is_absolute() else current.parent
            pending.extend(reversed(link.parts[1:] if link.is_absolute() else link.parts))
    return None


def _is_system(path: Path) -> bool:
    def under(root: Path) -> bool:
        return path == root or root in path.parents

    return any(under(root) for root in _SYSTEM) and not under(_ORDINARY)


def _stage(target: Path, text: str) -> str:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise CatalogError(
            f"cannot write {str(target)!r} ({err.strerror or err}). Nothing was changed. "
            "To fix: choose a writable location (--output FILE)."
        ) from err
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; the catalog is ordinary package data
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp
