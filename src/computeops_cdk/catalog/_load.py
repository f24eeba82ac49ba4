"""Loading a catalog file into the frozen records of ``_types``.

Validation policy (measured, see data/market/README-catalog.md): a user-supplied catalog is always
checked (JSON Schema, referential integrity, sha256). The embedded package file is not re-validated at
load time: it is validated when it is built and by the test suite, and skipping jsonschema keeps the
CLI cold start inside its 0.5 s budget. Pass ``validate=True`` to check it anyway.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import CatalogError
from ._types import Accelerator, Attestation, Catalog, InstanceType, Offer, Provider, Region
from ._validate import validate_document

__all__ = ["CATALOG_ENV", "EMBEDDED_CATALOG", "catalog_from_document", "load_catalog", "read_document"]

CATALOG_ENV = "COMPUTEOPS_CATALOG"
"""An explicit pointer to a catalog file (e.g. a refreshed one) used wherever none is passed."""

EMBEDDED_CATALOG = Path(__file__).parent / "data" / "catalog.json"
"""The catalog shipped with the package (built from data/market by `computeops catalog build`)."""


def load_catalog(path: str | os.PathLike[str] | None = None, *, validate: bool | None = None) -> Catalog:
    """Load a catalog.

    Args:
        path: a catalog JSON file. Default: None, the file named by ``$COMPUTEOPS_CATALOG`` when set
            (validated), else the embedded catalog (loaded once per process). A refreshed catalog is
            used only when pointed at this way, so a synth never changes because a laptop refreshed.
        validate: check schema, references and sha256. Default: None, meaning True for a file you
            pass and False for the embedded catalog (validated at build and in tests).

    Raises:
        CatalogError: the file is missing, not JSON, or fails validation; the message starts with the
            JSON path of the offending value.
    """
    if path is None:
        path = os.environ.get(CATALOG_ENV) or None
        if path is None:
            return _embedded(bool(validate))
    if not isinstance(path, str | os.PathLike):
        raise CatalogError(
            f"catalog path must be a str or os.PathLike (got {type(path).__name__}). "
            "To fix: pass the catalog JSON file's path, or omit it to use the embedded catalog."
        )
    doc = read_document(Path(path))
    if validate is None or validate:
        validate_document(doc)
    return catalog_from_document(doc)


@lru_cache(maxsize=2)
def _embedded(validate: bool) -> Catalog:
    doc = read_document(EMBEDDED_CATALOG)
    if validate:
        validate_document(doc)
    return catalog_from_document(doc)


def read_document(path: Path) -> dict[str, Any]:
    """The JSON document in ``path``; CatalogError when missing or not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise CatalogError(
            f"catalog file {str(path)!r} does not exist. To fix: pass an existing file, or omit it to "
            "use the embedded catalog."
        ) from err
    except IsADirectoryError as err:
        raise CatalogError(
            f"catalog file {str(path)!r} is a directory. To fix: pass the catalog JSON file itself."
        ) from err
    except (OSError, UnicodeDecodeError) as err:
        # Permission denied, a binary file, ...: the user passed the wrong file, not a bug of ours.
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise CatalogError(
            f"catalog file {str(path)!r} cannot be read ({reason}). To fix: pass a catalog JSON file "
            "(`computeops catalog build --output FILE` writes one), or omit it to use the embedded catalog."
        ) from err
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise CatalogError(
            f"catalog file {str(path)!r} is not valid JSON "
            f"({err.msg} at line {err.lineno}, column {err.colno}). "
            "To fix: rebuild it with `computeops catalog build`.",
            path="$",
        ) from err
    if not isinstance(doc, dict):
        raise CatalogError(f"{type(doc).__name__} is not a catalog object. To fix: rebuild it.", path="$")
    return doc


def catalog_from_document(doc: dict[str, Any]) -> Catalog:
    """Turn a (valid) catalog document into records."""
    return Catalog(
        version=doc["version"],
        as_of=doc["as_of"],
        sha256=doc["sha256"],
        providers=tuple(_provider(p) for p in doc["providers"]),
        regions=tuple(Region(**r) for r in doc["regions"]),
        accelerators=tuple(Accelerator(**{**a, "aliases": tuple(a["aliases"])}) for a in doc["accelerators"]),
        instance_types=tuple(InstanceType(**t) for t in doc["instance_types"]),
        offers=tuple(Offer(**o) for o in doc["offers"]),
    )


def _provider(p: dict[str, Any]) -> Provider:
    attestations = tuple(
        Attestation(**{**a, "regions": None if a["regions"] is None else tuple(a["regions"])})
        for a in p["attestations"]
    )
    return Provider(**{**p, "attestations": attestations})
