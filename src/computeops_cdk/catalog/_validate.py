"""Checks a catalog document: JSON Schema, referential integrity and content digest.

Every failure is a CatalogError whose message starts with the JSON path of the offending value,
e.g. ``$.offers[12].hourly_usd: -3 is less than the minimum of 0``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import CatalogError

__all__ = ["SCHEMA_PATH", "check_integrity", "check_sha256", "validate_document", "validate_schema"]

SCHEMA_PATH = Path(__file__).parent / "data" / "catalog.schema.json"
"""The packaged copy of schemas/catalog.schema.json (a test keeps the two identical)."""

_FIX = "To fix: rebuild it with `computeops catalog build` or restore the file."


def validate_document(doc: Any) -> None:
    """Schema, then integrity, then digest; raises CatalogError on the first problem."""
    validate_schema(doc)
    check_integrity(doc)
    check_sha256(doc)


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # imported lazily: only builds and user-supplied catalogs are schema-checked

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_schema(doc: Any) -> None:
    """Raise CatalogError naming the JSON path of the first schema violation (document order)."""
    errors = sorted(_validator().iter_errors(doc), key=lambda e: _order(e.absolute_path))
    if errors:
        first = errors[0]
        raise CatalogError(f"{first.message}. {_FIX}", path=first.json_path)


def _order(path: Any) -> list[tuple[int, str]]:
    # Sort list indexes numerically and keys alphabetically, so the reported error is stable.
    return [(0, f"{p:012d}") if isinstance(p, int) else (1, str(p)) for p in path]


def check_integrity(doc: dict[str, Any]) -> None:
    """Every reference resolves and every key is unique."""
    providers = {p["id"] for p in doc["providers"]}
    regions = _unique(doc, "regions", lambda r: (r["provider"], r["code"]))
    accelerators = _unique(doc, "accelerators", lambda a: a["id"])
    types = _unique(doc, "instance_types", lambda t: (t["provider"], t["name"]))
    _unique(doc, "offers", lambda o: (o["provider"], o["instance_type"], o["region"], o["pricing"]))
    for i, prov in enumerate(doc["providers"]):
        for j, att in enumerate(prov["attestations"]):
            for code in att["regions"] or ():
                if (prov["id"], code) not in regions:
                    _fail(
                        f"$.providers[{i}].attestations[{j}].regions",
                        f"{code!r} is not a region of {prov['id']}",
                    )
    for i, region in enumerate(doc["regions"]):
        if region["provider"] not in providers:
            _fail(f"$.regions[{i}].provider", f"{region['provider']!r} is not a provider of this catalog")
    for i, itype in enumerate(doc["instance_types"]):
        if itype["accelerator"] not in accelerators:
            _fail(f"$.instance_types[{i}].accelerator", f"{itype['accelerator']!r} is not an accelerator id")
    for i, offer in enumerate(doc["offers"]):
        _check_offer(i, offer, types, regions)


def _check_offer(i: int, offer: dict[str, Any], types: set[Any], regions: set[Any]) -> None:
    provider = offer["provider"]
    if (provider, offer["instance_type"]) not in types:
        _fail(
            f"$.offers[{i}].instance_type",
            f"{offer['instance_type']!r} is not an instance type of {provider}",
        )
    if (provider, offer["region"]) not in regions:
        _fail(f"$.offers[{i}].region", f"{offer['region']!r} is not a region of {provider}")
    if offer["hourly_usd"] == 0:
        _fail(f"$.offers[{i}].hourly_usd", "0 is not a price (an unknown price is null, never zero)")


def _unique(doc: dict[str, Any], section: str, key: Any) -> set[Any]:
    seen: set[Any] = set()
    for i, item in enumerate(doc[section]):
        k = key(item)
        if k in seen:
            _fail(f"$.{section}[{i}]", f"duplicate entry {k!r}")
        seen.add(k)
    return seen


def check_sha256(doc: dict[str, Any]) -> None:
    """The recorded digest matches the content (catches hand edits and truncation)."""
    from ._build import content_sha256

    actual = content_sha256(doc)
    if doc["sha256"] != actual:
        _fail("$.sha256", f"{doc['sha256']!r} does not match the content digest {actual!r}")


def _fail(path: str, message: str) -> None:
    raise CatalogError(f"{message}. {_FIX}", path=path)
