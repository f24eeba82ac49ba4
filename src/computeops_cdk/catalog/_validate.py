"""Checks a catalog document: strings, JSON Schema, referential integrity and content digest.

Every failure is a CatalogError whose message starts with the JSON path of the offending value,
e.g. ``$.offers[12].hourly_usd: -3 is less than the minimum of 0``.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from ..errors import CatalogError
from ._canonical import canonical_order, ordered_sha256
from ._schema_check import SCHEMA_PATH, catalog_schema, compiled_accepts, first_schema_error
from ._types import accelerator_key

__all__ = [
    "IDENTIFIERS",
    "SCHEMA_PATH",
    "check_integrity",
    "check_sha256",
    "check_strings",
    "identifier_problem",
    "validate_document",
    "validate_schema",
]

_FIX = "To fix: rebuild it with `computeops catalog build` or restore the file."

IDENTIFIERS: dict[str, tuple[str, str]] = {
    # schema $defs name -> (what it is, its rule in words); the patterns themselves are in the schema.
    "region_code": ("region code", "letters, digits and '-', at most 64 characters"),
    "instance_type_name": ("instance type name", "letters, digits, '.', '_' and '-', at most 80 characters"),
    "accelerator_id": ("accelerator id", "letters, digits and '-', at most 64 characters"),
    "accelerator_alias": (
        "accelerator alias",
        "letters, digits, ' ', '.', '_' and '-', at most 64 characters",
    ),
    "text": ("text", "one line without control characters, at most 4000 characters"),
}
"""Every identifier a catalog carries is checked against a strict pattern before anything reads it:
these strings reach Terraform (region codes, instance types), so ``${``, quotes and control characters
never get through. Sources, notes and names are bounded one-line text."""


def identifier_problem(kind: str, value: str) -> str | None:
    """Why ``value`` is not a catalog identifier of ``kind`` (a key of ``IDENTIFIERS``), or None.

    The catalog schema's own pattern decides (one rule for a catalog and for what other documents,
    a lockfile, say names from it): ``"is not a region code (letters, digits and '-', ...)"``.
    """
    what, rule = IDENTIFIERS[kind]
    pattern = catalog_schema()["$defs"][kind]["pattern"]
    if re.fullmatch(pattern, value):  # fullmatch: the schema's final $ ends the text (ECMA-262)
        return None
    return f"is not {'an' if what[0] in 'aeiou' else 'a'} {what} ({rule})"


_MAX_SHOWN = 80
_NOT_TEXT = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def validate_document(doc: Any) -> dict[str, Any]:
    """Schema, then strings, then integrity, then digest; raises CatalogError on the first problem.

    Returns ``doc`` with its records in canonical order (the order its digest is computed in).
    A document the compiled schema validator accepts holds valid strings (``compiled_accepts``);
    else the schema's first error is reported before any string's (a control character must not
    hide an error earlier in the document, nor be reported in a field the schema refuses outright).
    """
    if not compiled_accepts(doc):
        validate_schema(doc)
        check_strings(doc)
    check_integrity(doc)
    return check_sha256(doc)


def validate_schema(doc: Any) -> None:
    """Raise CatalogError naming the JSON path of the first schema violation (document order)."""
    first = first_schema_error(doc)
    if first is not None:
        raise CatalogError(f"{_schema_message(first)}. {_FIX}", path=first.json_path)


def _schema_message(error: Any) -> str:
    """The schema error in words, the offending value cut (a pasted blob must not flood the terminal)."""
    if error.validator == "pattern":
        kind = next(
            (
                name
                for name, d in catalog_schema()["$defs"].items()
                if d.get("pattern") == error.validator_value
            ),
            None,
        )
        if kind in IDENTIFIERS:
            what, rule = IDENTIFIERS[kind]
            return f"{_shown(error.instance)} is not a valid {what} ({rule})"
    message = str(error.message)
    return message if len(message) <= 240 else message[:237] + "..."


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def check_strings(doc: Any) -> None:
    """No string anywhere holds a control character (the schema's patterns let a final newline
    through in Python's regex dialect; this closes that gap for every field) or a lone surrogate
    (a ``\\ud800`` escape without its pair: not text, and no UTF-8 can carry it)."""
    if not _any_string_matches(doc, _NOT_TEXT):
        return
    stack: list[tuple[str, Any]] = [("$", doc)]  # the first offender's path, in document order
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                _fail(
                    where,
                    f"{_shown(value)} holds a lone surrogate (a \\ud800-\\udfff escape without its pair)",
                )
            if _NOT_TEXT.search(value):
                _fail(where, f"{_shown(value)} holds a control character (NUL, newline, ...)")
        elif isinstance(value, dict):
            stack.extend((f"{where}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))


def _any_string_matches(doc: Any, pattern: re.Pattern[str]) -> bool:
    """Whether any string value in ``doc`` matches, without making a path per value (the slow part).
    Anything but plain JSON types (a subclass, from a caller) counts as a match: the exact walk decides."""
    if type(doc) is not dict and type(doc) is not list:
        return True
    search, stack = pattern.search, [doc]
    while stack:
        container = stack.pop()
        for value in container.values() if type(container) is dict else container:
            kind = type(value)
            if kind is str:
                if search(value):
                    return True
            elif kind is dict or kind is list:
                stack.append(value)
            elif isinstance(value, str | dict | list):
                return True
    return False


def check_integrity(doc: dict[str, Any]) -> None:
    """Every reference resolves, every key is unique, dates exist and prices are physical."""
    _check_dates(doc)
    _unique(doc, "providers", lambda p: p["id"])
    providers = {p["id"] for p in doc["providers"]}
    regions = _unique(doc, "regions", lambda r: (r["provider"], r["code"]))
    accelerators = _unique(doc, "accelerators", lambda a: a["id"])
    _check_aliases(doc)
    types = _unique(doc, "instance_types", lambda t: (t["provider"], t["name"]))
    counts = {(t["provider"], t["name"]): t["accelerator_count"] for t in doc["instance_types"]}
    _unique(
        doc,
        "offers",
        lambda o: (o["provider"], o["instance_type"], o["region"], o["pricing"], o.get("term_months")),
    )
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
        _check_price(i, offer, counts[(offer["provider"], offer["instance_type"])])


PRICE_PER_ACCELERATOR_HOUR = (0.001, 1000.0)
"""The physical range of a price in USD per accelerator-hour (the market spans about 0.02 to 10):
outside it a price is a unit or parsing error (a price of 1e-9 would win every decision)."""


def _check_price(i: int, offer: dict[str, Any], count: int) -> None:
    price = offer["hourly_usd"]
    if price is None or price == 0:
        return
    low, high = PRICE_PER_ACCELERATOR_HOUR
    if not low <= price / count <= high:
        _fail(
            f"$.offers[{i}].hourly_usd",
            f"{price:g} USD/h for {count} accelerator(s) is {price / count:g} USD per accelerator-hour, "
            f"outside the physical range {low:g}..{high:g} (a unit or parsing error?)",
        )


def _check_dates(doc: dict[str, Any]) -> None:
    version = doc["version"]
    _real_date("$.version", version[:10].replace(".", "-"), version)
    _real_date("$.as_of", doc["as_of"])
    checked: set[str] = set()
    for i, offer in enumerate(doc["offers"]):
        if offer["as_of"] not in checked:
            _real_date(f"$.offers[{i}].as_of", offer["as_of"])
            checked.add(offer["as_of"])


def _real_date(where: str, text: str, shown: str | None = None) -> None:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        _fail(where, f"{shown or text!r} is not a real calendar date")


def _check_aliases(doc: dict[str, Any]) -> None:
    """No name (id or alias, compared as ``find_accelerator`` compares) names two accelerators."""
    owner: dict[str, str] = {}
    for i, acc in enumerate(doc["accelerators"]):
        names = [("id", acc["id"])] + [(f"aliases[{j}]", a) for j, a in enumerate(acc["aliases"])]
        for where, name in names:
            key = accelerator_key(name)
            other = owner.setdefault(key, acc["id"])
            if other != acc["id"]:
                _fail(
                    f"$.accelerators[{i}].{where}",
                    f"{name!r} also names accelerator {other!r} (a name must find one accelerator; "
                    "today the answer would depend on record order)",
                )


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


def check_sha256(doc: dict[str, Any]) -> dict[str, Any]:
    """The recorded digest matches the content (catches hand edits and truncation); returns ``doc``
    with its records in canonical order, as the digest reads them."""
    ordered = canonical_order(doc)
    actual = ordered_sha256(ordered)
    if doc["sha256"] != actual:
        _fail("$.sha256", f"{doc['sha256']!r} does not match the content digest {actual!r}")
    return ordered


def _fail(path: str, message: str) -> None:
    raise CatalogError(f"{message}. {_FIX}", path=path)
