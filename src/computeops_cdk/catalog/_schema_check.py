"""The JSON Schema step of catalog validation: a compiled validator decides, the reference explains.

schemas/catalog.schema.json (packaged as catalog/data/catalog.schema.json) is the one statement of the
rules. ``jsonschema`` in pure Python (the reference: its messages are the ones users and tests read)
is far too slow for a large catalog (benchmarks/CATALOG.md), so a document is first checked by
``jsonschema_rs``, the same schema compiled in Rust. A JSON-parsed document it accepts is one the
reference accepts (tested over mutated catalogs); one built in Python need not be (a tuple passes
as an array here), so only documents of JSON types are checked so. One it refuses, or cannot read,
is handed to the reference unit by unit (the document without its record lists, then the records a
second compiled map refuses, in order: ``_first_refused_record``), so the first error is the
reference's, with its JSON path, in the time of a few records.
"""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CatalogError

if TYPE_CHECKING:
    import jsonschema
    import jsonschema.protocols
    import jsonschema_rs

__all__ = ["SCHEMA_PATH", "catalog_schema", "compiled_accepts", "first_schema_error", "json_order"]

SCHEMA_PATH = Path(__file__).parent / "data" / "catalog.schema.json"
"""The packaged copy of schemas/catalog.schema.json (a test keeps the two identical)."""


@lru_cache(maxsize=1)
def catalog_schema() -> dict[str, Any]:
    """The catalog schema, read once (callers must not change it)."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def compiled_accepts(doc: Any) -> bool:
    """Whether the compiled validator accepts ``doc``, made of JSON types (dict, list, str, int,
    float, bool, None, as ``json.loads`` makes them). Then the reference accepts it too, and no string
    in it holds a control character or a lone surrogate: every string the schema admits is an enum
    value or matches an anchored pattern without them (``$`` ends the text in the schema's regex
    dialect, ECMA-262), and a lone surrogate cannot be read. Both are tested over every field."""
    return _accepts(_compiled()["#"], doc)


def first_schema_error(doc: Any) -> jsonschema.ValidationError | None:
    """The reference's first schema violation of ``doc`` in document order, or None when valid.

    "First" is the order of ``json_order`` over the error's absolute path, ties in the reference's
    own order: the error that ``sorted(iter_errors(doc))[0]`` over the whole document reports.
    """
    if compiled_accepts(doc) or _accepts(_compiled(python_dollar=True)["#"], doc):
        return None
    errors = list(_reference(None).iter_errors(doc))
    if isinstance(doc, dict):
        for section in _record_lists():
            records = doc.get(section)
            if isinstance(records, list):
                errors += _first_refused_record(section, records)
    return min(errors, key=lambda e: json_order(e.absolute_path), default=None)


def json_order(path: Any) -> list[tuple[int, str]]:
    """Sort key of a JSON path: list indexes numerically, keys alphabetically (stable reports)."""
    return [(0, f"{p:012d}") if isinstance(p, int) else (1, str(p)) for p in path]


def _first_refused_record(section: str, records: list[Any]) -> list[jsonschema.ValidationError]:
    """The reference's errors of the first record the reference refuses, paths made absolute.

    Only records the compiled validator refuses with Python's ``$`` are asked (it refuses all the
    reference refuses, and not a record whose only fault is a final newline); an error in a later
    record sorts after every error of an earlier one, so one record is enough."""
    compiled = _compiled(python_dollar=True)[f"#/properties/{section}/items"]
    reference = _reference(section)
    for i, record in enumerate(records):
        if _gate_accepts(compiled, record):
            continue
        found = list(reference.iter_errors(record))
        if found:
            for error in found:
                error.relative_path.extendleft((i, section))  # -> [section, i, ...]
            return found
    return []


def _accepts(validator: jsonschema_rs.Validator, instance: Any) -> bool:
    try:
        return validator.is_valid(instance)
    except Exception:  # what it cannot read (a lone surrogate, a key not a string) the reference judges
        return False


def _gate_accepts(validator: jsonschema_rs.Validator, record: Any) -> bool:
    """``_accepts``, and a record it cannot read (a lone surrogate) judged with U+FFFD in place of
    each lone surrogate, which every rule of the schema judges alike: one character, outside every
    pattern's ASCII classes and inside the text pattern's, in no enum, in no property name (every
    object is closed). So a catalog with a surrogate in every record does not ask the reference
    about each."""
    try:
        return validator.is_valid(record)
    except Exception:
        try:
            return validator.is_valid(_without_surrogates(record))
        except Exception:
            return False


def _without_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


@lru_cache(maxsize=1)
def _record_lists() -> tuple[str, ...]:
    """The top-level properties that are lists of records (providers, regions, ..., offers)."""
    return tuple(name for name, prop in catalog_schema()["properties"].items() if "items" in prop)


@cache
def _compiled(*, python_dollar: bool = False) -> jsonschema_rs.ValidatorMap:
    """The schema compiled; with ``python_dollar``, each pattern's final ``$`` reads as ``\\n?$``,
    as Python's ``re`` (the reference's dialect) reads ``$``: that map judges a string as the
    reference does, so it finds the records the reference refuses among those the schema's own
    dialect refuses."""
    try:  # imported on use: only builds and user catalogs are schema-checked
        import jsonschema_rs
    except ImportError as err:
        raise _not_installed("jsonschema_rs", err) from None

    schema = catalog_schema()
    if python_dollar:
        schema = _with_python_dollar(schema)
    # offline: no $ref may reach the network or the file system (the schema has none to fetch).
    return jsonschema_rs.validator_map_for(schema, offline=True)


def _with_python_dollar(schema: Any) -> Any:
    """``schema`` with every ``pattern`` ending in an unescaped ``$`` ending in ``\\n?$`` instead."""
    if isinstance(schema, list):
        return [_with_python_dollar(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    copied = {key: _with_python_dollar(value) for key, value in schema.items()}
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and pattern.endswith("$") and not pattern.endswith("\\$"):
        copied["pattern"] = pattern[:-1] + "\\n?$"
    return copied


@cache
def _reference(section: str | None) -> jsonschema.protocols.Validator:
    """The reference for one record of ``section``, or (None) for the document without its records.

    Both resolve ``$ref`` against the whole schema (``evolve`` keeps the root's resolver).
    """
    try:  # imported on use, as above
        import jsonschema
    except ImportError as err:
        raise _not_installed("jsonschema", err) from None

    schema = catalog_schema()
    root = jsonschema.Draft202012Validator(schema)
    if section is not None:
        return root.evolve(schema=schema["properties"][section]["items"])
    lists = set(_record_lists())
    properties = {
        name: {k: v for k, v in prop.items() if k != "items"} if name in lists else prop
        for name, prop in schema["properties"].items()
    }
    return root.evolve(schema={**schema, "properties": properties})


def _not_installed(name: str, err: ImportError) -> CatalogError:
    """A dependency the schema check needs is missing: the installation, not the catalog, is at fault."""
    return CatalogError(
        f"the catalog cannot be checked against its schema: the package {name!r} is not installed "
        f"({err}), so this installation of computeops-cdk is incomplete. To fix: reinstall "
        "computeops-cdk with its dependencies (`pip install --force-reinstall computeops-cdk`, "
        "or `make demo` in a checkout)"
    )
