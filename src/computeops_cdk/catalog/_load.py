"""Loading a catalog file into the frozen records of ``_types``.

A user-supplied catalog is always checked (JSON Schema, referential integrity, sha256). The embedded
package file is validated when it is built and by the test suite, not at load time (the CLI's cold
start budget); it is read from its packed form (``_packed``) when that is provably this file's own.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from .._files import MIB, UnreadableFile, read_regular_file, shown_path
from ..errors import CatalogError
from ._packed import file_sha256, unpack_catalog
from ._types import Accelerator, Attestation, Catalog, InstanceType, Offer, Provider, Region, ServiceScope

if TYPE_CHECKING:
    from pathlib import Path

    _Record = TypeVar("_Record")

__all__ = [
    "CATALOG_ENV",
    "EMBEDDED_CATALOG",
    "MAX_CATALOG_BYTES",
    "catalog_from_document",
    "load_catalog",
    "read_document",
]

CATALOG_ENV = "COMPUTEOPS_CATALOG"
"""An explicit pointer to a catalog file (e.g. a refreshed one) used wherever none is passed."""

_EMBEDDED_FILE = os.path.join(os.path.dirname(__file__), "data", "catalog.json")
_PACKED_FILE = os.path.join(os.path.dirname(__file__), "data", "catalog.packed.json")
"""The two files as plain paths (a cold start does not import ``pathlib``); ``EMBEDDED_CATALOG`` and
``PACKED_CATALOG`` are their ``Path`` objects, made on first use (``__getattr__``)."""

if TYPE_CHECKING:
    EMBEDDED_CATALOG: Path
    """The catalog shipped with the package (built from data/market by `computeops catalog build`)."""
    PACKED_CATALOG: Path
    """The embedded catalog's offers packed by column (``_packed``)."""


def __getattr__(name: str) -> Path:
    """``EMBEDDED_CATALOG`` and ``PACKED_CATALOG``, made when first read, then kept (one object)."""
    if name not in ("EMBEDDED_CATALOG", "PACKED_CATALOG"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made: Path | None = globals().get(name)
    if made is None:
        from pathlib import Path

        made = globals()[name] = Path(_EMBEDDED_FILE if name == "EMBEDDED_CATALOG" else _PACKED_FILE)
    return made


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
    from pathlib import Path  # a file passed: the embedded catalog's load never needs it

    doc = read_document(Path(path))
    if validate is None or validate:
        from ._validate import validate_document  # on use: the embedded catalog's load never needs it

        # Same records in another order are the same catalog: same digest, same answers.
        doc = validate_document(doc)  # the records in canonical order
    return catalog_from_document(doc)


@lru_cache(maxsize=2)
def _embedded(validate: bool) -> Catalog:
    if not validate:
        found = _from_packed()
        if found is not None:
            return found
    doc = read_document(__getattr__("EMBEDDED_CATALOG"), strict=bool(validate))
    if validate:
        from ._validate import validate_document

        validate_document(doc)
    return _catalog(doc, _records_unchecked)


def _from_packed(
    catalog: str | Path = _EMBEDDED_FILE, packed_file: str | Path = _PACKED_FILE
) -> Catalog | None:
    """The embedded catalog from ``PACKED_CATALOG`` when that is the packed form of the exact bytes
    of ``catalog.json``; None otherwise (the caller parses ``catalog.json``). The records are made as
    ``_records_unchecked`` makes them, so only when it would set the offers' slots itself."""
    if _slot_plan(Offer) is None:
        return None
    try:
        packed = read_regular_file(packed_file, limit=MAX_CATALOG_BYTES)
        digest, size = file_sha256(catalog, limit=MAX_CATALOG_BYTES)  # too big: read_document says so
    except (UnreadableFile, OSError):
        return None
    found = unpack_catalog(
        digest, packed, lambda doc, offers: _catalog(doc, _records_unchecked, offers), catalog_bytes=size
    )
    return found if isinstance(found, Catalog) else None


MAX_CATALOG_BYTES = 64 * MIB
"""Largest catalog file read (the embedded one is about 1.2 MB): a bigger one is refused unread."""


def read_document(path: Path, *, strict: bool = True) -> dict[str, Any]:
    """The JSON document in ``path``; CatalogError when missing, unreadable or not a JSON object.

    ``strict`` (every file but the embedded one) also refuses what ``json`` would accept silently:
    NaN/Infinity and numbers that overflow a float, integers of more than 18 digits, and duplicate
    keys (the last would win), each with its JSON path. The embedded file is built canonically and
    checked by the tests, so it takes the fast path.
    """
    try:
        raw = read_regular_file(path, limit=MAX_CATALOG_BYTES)
        text = raw.decode("utf-8")
    except UnreadableFile as err:
        raise CatalogError(
            f"catalog file {shown_path(path)} cannot be read: {err.reason}. To fix: pass a catalog JSON "
            f"file of at most {MAX_CATALOG_BYTES // MIB} MiB (`computeops catalog build --output FILE` "
            "writes one), or omit it to use the embedded catalog."
        ) from None
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
    doc = _parse(text, path) if strict else json.loads(text)
    if not isinstance(doc, dict):
        raise CatalogError(f"{type(doc).__name__} is not a catalog object. To fix: rebuild it.", path="$")
    return doc


def _parse(text: str, path: Path) -> Any:
    """``json.loads`` that marks what JSON parsers disagree on, then reports the first mark's path."""
    marks: list[_Refused] = []

    def refuse(reason: str) -> _Refused:
        mark = _Refused(reason)
        marks.append(mark)
        return mark

    def number(literal: str) -> Any:
        value = float(literal)
        return value if math.isfinite(value) else refuse(f"{literal[:20]} is not a finite number")

    def integer(literal: str) -> Any:
        digits = len(literal.lstrip("-"))
        return int(literal) if digits <= 18 else refuse(f"an integer of {digits:,} digits is out of range")

    def pairs(items: list[tuple[str, Any]]) -> Any:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        seen: set[str] = set()
        duplicate = next(k for k, _ in items if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        return refuse(f"duplicate key {duplicate[:40]!r} (JSON parsers disagree on which value wins)")

    try:
        doc = json.loads(
            text,
            parse_float=number,
            parse_int=integer,
            parse_constant=lambda name: refuse(f"{name} is not a finite number"),
            object_pairs_hook=pairs,
        )
    except json.JSONDecodeError as err:
        raise CatalogError(
            f"catalog file {str(path)!r} is not valid JSON "
            f"({err.msg} at line {err.lineno}, column {err.colno}). "
            "To fix: rebuild it with `computeops catalog build`.",
            path="$",
        ) from err
    except RecursionError:
        raise CatalogError(
            "the document is nested too deeply to be a catalog (a catalog is 6 levels deep). "
            "To fix: rebuild it with `computeops catalog build`.",
            path="$",
        ) from None
    if marks:
        where, mark = _first_mark(doc)
        raise CatalogError(
            f"{mark.reason}: a catalog holds finite numbers and unique keys only. "
            "To fix: rebuild it with `computeops catalog build`.",
            path=where,
        )
    return doc


class _Refused:
    """Stands in the parsed tree where a value was refused, so its JSON path can be reported."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _first_mark(doc: Any) -> tuple[str, _Refused]:
    """(JSON path, mark) of the first refused value in document order (iterative: no recursion)."""
    stack: list[tuple[str, Any]] = [("$", doc)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Refused):
            return where, value
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    raise AssertionError("a refused value was marked but not found")  # pragma: no cover


def _records_called(cls: type[_Record], items: list[dict[str, Any]]) -> tuple[_Record, ...]:
    return tuple([cls(**item) for item in items])


def catalog_from_document(doc: dict[str, Any]) -> Catalog:
    """Turn a (valid) catalog document into records."""
    return _catalog(doc, _records_called)


def _catalog(
    doc: dict[str, Any],
    _records: Callable[[type[Any], list[dict[str, Any]]], tuple[Any, ...]],
    offers: tuple[Offer, ...] | None = None,
) -> Catalog:
    """The catalog of ``doc``, its records made by ``_records`` (``offers``: already made)."""
    return Catalog(
        version=doc["version"],
        as_of=doc["as_of"],
        sha256=doc["sha256"],
        providers=tuple(_provider(p) for p in doc["providers"]),
        regions=_records(Region, doc["regions"]),
        accelerators=tuple(Accelerator(**{**a, "aliases": tuple(a["aliases"])}) for a in doc["accelerators"]),
        instance_types=_records(InstanceType, doc["instance_types"]),
        offers=_records(Offer, doc["offers"]) if offers is None else offers,
    )


def _records_unchecked(cls: type[_Record], items: list[dict[str, Any]]) -> tuple[_Record, ...]:
    """``cls(**item)`` for each item of a document known to be valid (the embedded catalog: built
    canonically, validated at build and by the tests), made without the dataclass's keyword call:
    each field's slot is set directly from the item (its default where the item leaves it out).

    Only for what that does exactly (``_slot_plan``): a slotted class whose fields all take their
    value from ``__init__`` with no ``__post_init__`` and no default factory; any other is called."""
    plan = _slot_plan(cls)
    if plan is None:
        return _records_called(cls, items)
    required, optional = plan
    known = frozenset([name for name, _ in required] + [name for name, _, _ in optional])
    if not all(map(known.issuperset, items)):  # one pass in C: what __init__ would refuse
        _refuse(cls, items, known, {name for name, _ in required})
    new = object.__new__
    made = []
    try:
        for item in items:
            record = new(cls)
            for name, put in required:
                put(record, item[name])
            for name, put, default in optional:
                put(record, item.get(name, default))
            made.append(record)
    except KeyError:
        _refuse(cls, items, known, {name for name, _ in required})
    return tuple(made)


_LISTS = {Region: "regions", InstanceType: "instance_types", Offer: "offers"}


def _refuse(cls: type[Any], items: list[dict[str, Any]], known: frozenset[str], required: set[str]) -> None:
    """Raise the CatalogError naming the first record of ``items`` with a field ``cls`` does not have
    or without one it requires (what ``cls(**item)`` refuses with a TypeError)."""
    for at, item in enumerate(items):
        unknown = sorted(set(item) - known)
        missing = sorted(required - set(item))
        if unknown or missing:
            what = f"an unknown field {unknown[0]!r}" if unknown else f"no {missing[0]!r} (a required field)"
            raise CatalogError(
                f"this {cls.__name__} record has {what}. To fix: rebuild the catalog with "
                "`computeops catalog build` (a record's fields are listed in schemas/catalog.schema.json).",
                path=f"$.{_LISTS.get(cls, cls.__name__)}[{at}]",
            )
    raise AssertionError("a record was refused but none is wrong")  # pragma: no cover


_Setter = Callable[[object, object], None]


def _slot_plan(
    cls: type[Any],
) -> tuple[list[tuple[str, _Setter]], list[tuple[str, _Setter, object]]] | None:
    """(required fields, optional fields with their defaults) as slot setters, or None when
    ``cls(**item)`` does more than set them (see ``_records_unchecked``)."""
    if (
        not is_dataclass(cls)
        or not cls.__dict__["__dataclass_params__"].init
        or hasattr(cls, "__post_init__")
        or "__slots__" not in cls.__dict__
    ):
        return None
    required: list[tuple[str, _Setter]] = []
    optional: list[tuple[str, _Setter, object]] = []
    for f in fields(cls):
        slot: Any = cls.__dict__.get(f.name)
        if not f.init or f.default_factory is not MISSING or type(slot).__name__ != "member_descriptor":
            return None
        if f.default is MISSING:
            required.append((f.name, slot.__set__))
        else:
            optional.append((f.name, slot.__set__, f.default))
    return required, optional


def _provider(p: dict[str, Any]) -> Provider:
    attestations = tuple(_attestation(a) for a in p["attestations"])
    return Provider(**{**p, "attestations": attestations})


def _attestation(a: dict[str, Any]) -> Attestation:
    services = a.get("services")
    return Attestation(
        **{
            **a,
            "regions": None if a["regions"] is None else tuple(a["regions"]),
            "services": None if services is None else tuple(ServiceScope(**s) for s in services),
        }
    )
