"""The compiled schema check against the reference (``jsonschema`` over the whole document).

The catalog schema is checked by a compiled validator first and by the reference only for what it
refuses (catalog/_schema_check.py). These tests hold the two together: every document the reference
refuses is refused, and the error reported (path, message) is the one the reference reports over the
whole document, as ``validate_schema`` did before. Mutations are drawn from the schema itself
(bounds, enums, patterns), so a schema change is tested as it is made.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._build import content_sha256
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.catalog._schema_check import (
    _compiled,
    _gate_accepts,
    _record_lists,
    catalog_schema,
    compiled_accepts,
    first_schema_error,
    json_order,
)
from computeops_cdk.catalog._validate import validate_document
from computeops_cdk.errors import CatalogError

SCHEMA = catalog_schema()
REFERENCE = jsonschema.Draft202012Validator(SCHEMA)


def _small_catalog() -> dict[str, Any]:
    """A few records of each kind from the embedded catalog, with every optional field present."""
    doc: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    provider = next(p for p in doc["providers"] if any("services" in a for a in p["attestations"]))
    attestations = provider["attestations"]
    provider["attestations"] = [
        next(a for a in attestations if "services" in a),
        next(a for a in attestations if a["regions"]),
    ]
    doc["providers"] = [provider]
    for section in ("regions", "accelerators", "instance_types", "offers"):
        doc[section] = doc[section][:3]
    doc["offers"][1] = {**doc["offers"][1], "pricing": "reserved", "term_months": 12, "upfront": "none"}
    doc["offers"][2] = {**doc["offers"][2], "capacity": "high"}
    return doc


SMALL = _small_catalog()


def reference_first(doc: Any) -> tuple[str, str] | None:
    """What validate_schema reported before: the reference's errors sorted by path, the first."""
    errors = sorted(REFERENCE.iter_errors(doc), key=lambda e: json_order(e.absolute_path))
    return (errors[0].json_path, errors[0].message) if errors else None


def checked_first(doc: Any) -> tuple[str, str] | None:
    error = first_schema_error(doc)
    return None if error is None else (error.json_path, error.message)


def assert_agrees(doc: Any) -> None:
    expected = reference_first(doc)
    assert checked_first(doc) == expected
    if expected is not None:
        assert not compiled_accepts(doc), (
            f"the compiled validator accepts what the reference refuses: {expected}"
        )


def test_the_small_catalog_and_the_embedded_one_are_valid() -> None:
    assert reference_first(SMALL) is None and checked_first(SMALL) is None
    embedded = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    assert checked_first(embedded) is None


def test_every_record_list_of_the_schema_is_checked_record_by_record() -> None:
    assert _record_lists() == ("providers", "regions", "accelerators", "instance_types", "offers")


# -- values drawn from the schema ------------------------------------------------------------------


def _bounds(sub: dict[str, Any]) -> Iterator[Any]:
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in sub:
            bound = sub[key]
            yield from (bound, math.nextafter(bound, -math.inf), math.nextafter(bound, math.inf))
            yield from (bound - 1, bound + 1)
            if isinstance(bound, int):
                yield float(bound)


def _tricky_strings(sub: dict[str, Any]) -> Iterator[Any]:
    yield from ("", "a", "a-", "-a", "A.b_c-d", "a b", "x" * 64, "x" * 65, "x" * 80, "x" * 81)
    yield from ("ok\n", "ok\x00", "o\tk", "é", "١٢", "2026-11-29", "2026-11-29\n", "２026-11-29")
    yield from ("x" * 4000, "x" * 4001, "\U0001f600" * 4000, "\U0001f600" * 4001, "a\ud800b")
    yield from ("US", "us", "U", "USA", "0" * 64, "g" * 64, "2026.11.29", "2026.11.29.1")
    for value in sub.get("enum", ()):
        yield value
        if isinstance(value, str):
            yield from (value.upper(), value + " ", value[:-1])
        elif isinstance(value, int):
            yield from (float(value), value + 1, True)


def _values_for(sub: dict[str, Any]) -> Iterator[Any]:
    """Values around every bound, enum and pattern of a property's schema, and of the wrong types."""
    for ref in (sub.get("$ref"), *(s.get("$ref") for s in sub.get("anyOf", ()))):
        if ref:
            yield from _values_for(SCHEMA["$defs"][ref.rsplit("/", 1)[1]])
    yield from _bounds(sub)
    yield from _tricky_strings(sub)
    if "items" in sub:
        yield from ([value] for value in _values_for(sub["items"]) if not isinstance(value, list | dict))
    yield from (None, True, False, 0, 1, -1, 1.5, 10**17, [], {}, ["x"], ["x", "x"], {"a": 1})


def _record_fields() -> Iterator[tuple[str, str, Any]]:
    """(record kind, field, value) for every field of every record schema of the catalog."""
    for kind in (
        "provider",
        "attestation",
        "service_scope",
        "region",
        "accelerator",
        "instance_type",
        "offer",
    ):
        for field, sub in SCHEMA["$defs"][kind]["properties"].items():
            seen: set[str] = set()
            for value in _values_for(sub):
                shown = f"{type(value).__name__}:{value!r}"  # keeps 1, 1.0 and True apart
                if shown not in seen:
                    seen.add(shown)
                    yield kind, field, value


def _records_of(doc: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    if kind == "attestation":
        return [a for p in doc["providers"] for a in p["attestations"]]
    if kind == "service_scope":
        return [s for p in doc["providers"] for a in p["attestations"] for s in a.get("services", ())]
    records: list[dict[str, Any]] = doc[
        {"provider": "providers", "accelerator": "accelerators"}.get(kind, kind + "s")
    ]
    return records


FIELD_CASES = list(_record_fields())


def test_the_field_cases_cover_every_record_kind() -> None:
    assert len(FIELD_CASES) > 1500
    for kind in {kind for kind, _, _ in FIELD_CASES}:
        assert _records_of(SMALL, kind), kind


@pytest.mark.parametrize("chunk", range(4))
def test_every_field_at_its_bounds_enums_and_patterns_is_judged_as_the_reference_judges(chunk: int) -> None:
    for kind, field, value in FIELD_CASES[chunk::4]:
        doc = copy.deepcopy(SMALL)
        _records_of(doc, kind)[-1][field] = copy.deepcopy(value)
        assert_agrees(doc)


def test_every_field_left_out_is_judged_as_the_reference_judges() -> None:
    for kind, field in dict.fromkeys((kind, field) for kind, field, _ in FIELD_CASES):
        doc = copy.deepcopy(SMALL)
        del next(r for r in reversed(_records_of(doc, kind)) if field in r)[field]
        assert_agrees(doc)


NOT_TEXT = ["ok\x00", "ok\n", "\nok", "o\tk", "ok\x1f", "ok\x7f", "ok\ud800", "\udfffok", "o\r\nk"]


def test_what_the_compiled_validator_accepts_holds_no_control_character_or_lone_surrogate() -> None:
    # validate_document skips check_strings for a document the compiled validator accepts: every
    # string the schema admits is an enum value or matches an anchored pattern without control
    # characters ($ is the end of the text in the schema's regex dialect, ECMA-262, unlike Python's
    # re), and a lone surrogate cannot be read at all. A string field without either fails here.
    top = [("catalog", field) for field, sub in SCHEMA["properties"].items() if "items" not in sub]
    fields = list(dict.fromkeys((kind, field) for kind, field, _ in FIELD_CASES)) + top
    for kind, field in fields:
        for bad in NOT_TEXT:
            for value in (bad, [bad]):
                doc = copy.deepcopy(SMALL)
                (doc if kind == "catalog" else _records_of(doc, kind)[-1])[field] = value
                assert not compiled_accepts(doc), (kind, field, value)


# -- random mutations, several at once -------------------------------------------------------------


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


PATHS = list(_paths(SMALL))[1:]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**18), 10**18)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=()), max_size=70)  # control characters, surrogates too
    | st.sampled_from([v for v in _tricky_strings({}) if isinstance(v, str)]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
MUTATION = st.tuples(
    st.sampled_from(["set", "delete", "add_key", "duplicate", "empty"]), st.sampled_from(PATHS), JSON_VALUES
)


def _mutate(doc: Any, how: str, path: tuple[Any, ...], value: Any) -> None:
    """Apply one mutation at ``path``, or none when an earlier mutation changed what is there."""
    parent = doc
    for step in path:
        holder = parent
        in_dict = isinstance(parent, dict) and step in parent
        if not in_dict and not (isinstance(parent, list) and isinstance(step, int) and step < len(parent)):
            return
        parent = parent[step]
    target, last = parent, path[-1]
    if how == "set":
        holder[last] = value
    elif how == "delete":
        del holder[last]
    elif how == "add_key" and isinstance(target, dict):
        target["unknown_field"] = value
    elif how == "duplicate" and isinstance(target, list) and target:
        target.append(copy.deepcopy(target[0]))
    elif how == "empty" and isinstance(target, list | dict):
        target.clear()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=4))
def test_mutated_catalogs_are_refused_as_the_reference_refuses_them(mutations: list[Any]) -> None:
    doc = copy.deepcopy(SMALL)
    for how, path, value in mutations:
        _mutate(doc, how, path, value)
    assert_agrees(doc)


def test_the_first_error_is_found_across_sections_and_records() -> None:
    doc = copy.deepcopy(SMALL)
    doc["offers"][2]["hourly_usd"] = -1
    doc["offers"][1]["region"] = "x\n"  # refused by the compiled validator only ($ before a final newline)
    doc["instance_types"][2]["vcpus"] = 0
    doc["regions"][1]["continent"] = "XX"
    doc["unknown"] = 1
    assert_agrees(doc)
    del doc["unknown"]
    assert (
        checked_first(doc)
        == reference_first(doc)
        == (
            "$.instance_types[2].vcpus",
            "0 is less than or equal to the minimum of 0",
        )
    )


# -- bounded work ----------------------------------------------------------------------------------


def test_a_valid_catalog_is_not_walked_by_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: jsonschema walked every record (about 30 s for 100k instance types and 100k offers).
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the reference validator ran on a valid catalog")

    monkeypatch.setattr(jsonschema.Draft202012Validator, "iter_errors", refuse)
    assert first_schema_error(json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))) is None


def _reference_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the instances the reference validator is asked about, from now on."""
    seen: list[int] = []
    original = jsonschema.Draft202012Validator.iter_errors

    def record(self: Any, instance: Any) -> Any:
        seen.append(id(instance))
        return original(self, instance)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "iter_errors", record)
    return seen


def test_a_refused_catalog_shows_the_reference_one_record(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["offers"][-2]["pricing"] = "savings_plan"
    doc["offers"][-1]["pricing"] = "savings_plan"
    seen = _reference_reads(monkeypatch)
    error = first_schema_error(doc)
    assert error is not None and error.json_path == f"$.offers[{len(doc['offers']) - 2}].pricing"
    offers = {id(o) for o in doc["offers"]}
    assert {i for i in seen if i in offers} == {id(doc["offers"][-2])}
    assert not {
        id(r) for s in ("providers", "regions", "accelerators", "instance_types") for r in doc[s]
    } & set(seen)


# -- strings the compiled validator cannot read ----------------------------------------------------


def test_a_lone_surrogate_is_a_catalog_error_with_its_path(tmp_path: Path) -> None:
    # Before: UnicodeEncodeError traceback from the digest ('surrogates not allowed').
    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["offers"][3]["source"] = "skypilot\ud800"
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # ensure_ascii: written as the \\ud800 escape
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert caught.value.path == "$.offers[3].source"
    assert "lone surrogate" in str(caught.value) and "To fix" in str(caught.value)


def test_a_surrogate_pair_is_text(tmp_path: Path) -> None:
    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["offers"][3]["source"] += " \U0001f600"
    doc["sha256"] = content_sha256(doc)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # written as \\ud83d\\ude00
    assert load_catalog(path).sha256 == doc["sha256"]


# -- the schema step before the strings walk, as before the compiled validator ---------------------


def old_order_first(doc: Any) -> str:
    """The path validate_document reported before the compiled validator (3da1b75): the reference's
    first error over the whole document, else the first string holding a control character."""
    first = reference_first(doc)
    if first is not None:
        return first[0]
    stack: list[tuple[str, Any]] = [("$", doc)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str) and any(c < " " or c == "\x7f" for c in value):
            return where
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    raise AssertionError("no error in the document")


def reported(doc: Any) -> CatalogError:
    with pytest.raises(CatalogError) as caught:
        validate_document(doc)
    return caught.value


@pytest.mark.parametrize(
    ("mutate", "path", "message"),
    [
        (
            lambda d: (d["offers"][0].update(hourly_usd=-1), d["offers"][2].update(source="x\x00")),
            "$.offers[0].hourly_usd",
            "-1 is less than the minimum of 0",
        ),
        (
            lambda d: d["offers"][1].update(notes="\x07"),
            "$.offers[1]",
            "Additional properties are not allowed ('notes' was unexpected)",
        ),
        (
            lambda d: d["regions"][0].update(code="us\x00east"),
            "$.regions[0].code",
            "'us\\x00east' is not a valid region code (letters, digits and '-', at most 64 characters)",
        ),
        (  # a final newline passes the reference's pattern: the strings walk reports it, after
            lambda d: (d["offers"][0].update(source="x\n"), d["offers"][2].update(region="us\n")),
            "$.offers[0].source",
            "'x\\n' holds a control character (NUL, newline, ...)",
        ),
    ],
)
def test_a_schema_error_is_reported_before_a_control_character(mutate: Any, path: str, message: str) -> None:
    # Today's review: the strings walk had moved before the schema step, so a control character
    # anywhere was reported instead of the schema error before it (a NUL in offers[2].source beat
    # offers[0].hourly_usd = -1), in a field that must not exist, or in a region code.
    doc = copy.deepcopy(SMALL)
    mutate(doc)
    error = reported(doc)
    assert (error.path, str(error).split(". To fix")[0]) == (path, f"{path}: {message}")
    assert error.path == old_order_first(doc)


SCHEMA_FAULTS = [
    ("hourly_usd", -1),
    ("pricing", "savings_plan"),
    ("region", "us east"),
    ("notes", "fine"),
    ("source", "x\x00"),
]
TEXT_FAULTS = [("source", "x\n"), ("source", "\x07"), ("region", "us\n"), ("unknown", "\x00")]


@pytest.mark.parametrize("schema_at", [0, 2])
@pytest.mark.parametrize("text_at", [0, 1, 2])
def test_several_errors_are_reported_in_the_old_order(schema_at: int, text_at: int) -> None:
    for (field, bad), (text_field, text) in zip(SCHEMA_FAULTS * 4, TEXT_FAULTS * 5, strict=False):
        doc = copy.deepcopy(SMALL)
        doc["offers"][text_at][text_field] = text
        doc["offers"][schema_at][field] = bad
        assert reported(doc).path == old_order_first(doc), (schema_at, field, text_at, text_field)


def test_the_record_gate_judges_a_record_as_the_reference() -> None:
    # It gates the reference's record search: a record it accepts is not asked about. Python's $
    # (a final newline) and lone surrogates (read as U+FFFD) included.
    gate = _compiled(python_dollar=True)
    for kind, field, value in FIELD_CASES:
        if kind not in {"region", "accelerator", "instance_type", "offer", "provider"}:
            continue
        section = {"provider": "providers", "accelerator": "accelerators"}.get(kind, kind + "s")
        record = copy.deepcopy(SMALL[section][-1])
        record[field] = copy.deepcopy(value)
        expected = REFERENCE.evolve(schema=SCHEMA["properties"][section]["items"]).is_valid(record)
        assert _gate_accepts(gate[f"#/properties/{section}/items"], record) == expected, (kind, field, value)


@pytest.mark.parametrize("fault", ["\n", "\ud800"])
def test_a_fault_in_every_offer_does_not_walk_the_reference(
    monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    # A final newline passes the reference's patterns, a lone surrogate cannot be read by the compiled
    # validator: neither may make the reference read every record (100k offers: 24 s, 79x json.loads).
    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    for offer in doc["offers"]:
        offer["source"] += fault
    doc["offers"][-1]["pricing"] = "savings_plan"
    seen = _reference_reads(monkeypatch)
    error = first_schema_error(doc)
    assert error is not None and error.json_path == f"$.offers[{len(doc['offers']) - 1}].pricing"
    assert {i for i in seen if i in {id(o) for o in doc["offers"]}} == {id(doc["offers"][-1])}
    doc["offers"][-1]["pricing"] = "on_demand"  # only the faults left: the strings walk's
    seen.clear()
    assert first_schema_error(doc) is None and not {id(o) for o in doc["offers"]} & set(seen)


def _json_types(value: Any) -> bool:
    if isinstance(value, dict):
        return type(value) is dict and all(type(k) is str and _json_types(v) for k, v in value.items())
    if isinstance(value, list):
        return type(value) is list and all(_json_types(item) for item in value)
    return type(value) in {str, int, float, bool, type(None)}


def test_the_build_validates_a_document_of_json_types_only() -> None:
    # The compiled validator's acceptance equals the reference's for JSON types only: a tuple passes
    # as an array there and not in the reference (today's review: the module said "a document").
    # The one document built in Python that is validated is build_catalog's.
    from computeops_cdk.catalog._build import build_catalog

    doc = build_catalog(Path(__file__).resolve().parents[2] / "data" / "market")
    assert _json_types(doc)
    with_tuple = copy.deepcopy(SMALL)
    with_tuple["offers"] = tuple(with_tuple["offers"])
    assert compiled_accepts(with_tuple) and reference_first(with_tuple) is not None
