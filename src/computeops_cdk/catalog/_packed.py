"""The embedded catalog's offers packed by column, so that a cold start does not parse 1.1 MB of JSON.

``catalog.packed.json``, written beside ``catalog.json`` by ``computeops catalog build`` whenever
the embedded catalog is written (``make catalog``), holds the same document with the offers as
columns: a run of equal values (the offers are sorted) as the value and its length, a string of a
run as its index in one table of strings; a column without runs (region, price model, price) as its
distinct values and one character per offer coding its value's place among them.

It is used only when it is provably the catalog's own: it names the sha256 of the exact bytes of
``catalog.json`` it was packed from and the sha256 of its own payload, both checked at every load;
then its layout is checked before anything is expanded (``_checked``), so a payload whose digest was
recomputed cannot take unbounded memory or give records ``catalog.json`` could not hold. A stale,
foreign or unreadable packed file is ignored and ``catalog.json`` is parsed (never an error). The
records are the ones ``catalog.json`` gives (a test compares them). JSON only (no pickle, no code).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ._types import CAPACITY_LEVELS, PRICE_MODELS, PROVIDER_IDS, RESERVED_TERMS_MONTHS, Offer

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["PACKED_FORMAT", "file_sha256", "pack_catalog", "packed_path", "unpack_catalog"]

PACKED_FORMAT = "computeops-packed-catalog/2"
"""Changes whenever the packed layout does (a packed file of another format is ignored)."""

_SEPARATOR = b"\n"
"""The header (the format and the two digests, one JSON line) ends at the first newline."""


def packed_path(catalog_path: Path) -> Path:
    """Where the packed form of ``catalog_path`` lives: ``catalog.json`` -> ``catalog.packed.json``."""
    return catalog_path.with_name(f"{catalog_path.stem}.packed.json")


def pack_catalog(text: str) -> str | None:
    """The packed form of the catalog JSON ``text`` (the exact text written to ``catalog.json``), or
    None when its offers cannot be packed (a required field missing, or a field holding both strings
    and other values)."""
    doc = json.loads(text)
    offers = doc.pop("offers")
    strings: dict[str, int] = {}
    columns: list[list[Any]] = []
    kinds: list[str] = []
    for name, default in _offer_fields():
        values = [offer.get(name, default) for offer in offers]
        given = [v for v in values if v is not None]
        if any(v is MISSING for v in given):
            return None
        strings_only = all(isinstance(v, str) for v in given)
        if not strings_only and any(isinstance(v, str) for v in given):
            return None
        runs = _runs(values)
        column: list[Any]
        if len(runs) < len(values):  # the offers are sorted, so most fields come in long runs
            kind, column = "vr", runs  # the JSON values themselves
            if strings_only:  # a string's index into the strings, or null
                kind, runs[0::2] = (
                    "sr",
                    [None if v is None else strings.setdefault(v, len(strings)) for v in runs[0::2]],
                )
        else:  # its distinct values and a character per offer coding its value's place among them
            table = list({_typed(v): v for v in values}.values())
            place = {_typed(v): n for n, v in enumerate(table)}
            coded = _coded([place[_typed(v)] for v in values])
            if coded is None:
                return None
            kind, column = "t", [table, coded]
        kinds.append(kind)
        columns.append(column)
    payload = json.dumps(
        {
            "document": doc,
            "offers": {
                "count": len(offers),
                "fields": [name for name, _ in _offer_fields()],
                "kinds": kinds,
                "strings": list(strings),
                "columns": columns,
            },
        },
        ensure_ascii=False,
        separators=(",", ":"),
        allow_nan=False,
    )
    header = {
        "format": PACKED_FORMAT,
        "catalog_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "payload_sha256": hashlib.sha256(payload.encode("utf-8")).hexdigest(),
    }
    return json.dumps(header, sort_keys=True) + "\n" + payload + "\n"


_CODE_BASE = 0x100
"""A coded column's character for place ``n`` in its table is ``chr(_CODE_BASE + n)``: past the
characters JSON escapes and the one-byte ones, below the surrogates (which JSON cannot hold alone)."""
_CODES = 0xD800 - _CODE_BASE
"""The most distinct values a coded column may have."""


def _typed(value: object) -> tuple[type, str]:
    """A value's entry in a column's table: 1 and 1.0, -0.0 and 0.0 are equal in Python but not in
    JSON (nor in a record's repr), so they keep entries of their own."""
    return type(value), repr(value)


def _coded(places: list[int]) -> str | None:
    """``places`` as one string, a character each; None when one is too large to code."""
    if places and max(places) >= _CODES:
        return None
    return "".join([chr(_CODE_BASE + n) for n in places])


def _code_points(coded: str) -> memoryview:
    """The code points of ``coded``'s characters, read in C: its UTF-16 in this machine's byte order,
    one unit per character below the surrogates (more for one above them, none of which is a code;
    a lone surrogate is a ValueError)."""
    import sys  # imported at start: a lookup

    return memoryview(coded.encode("utf-16-le" if sys.byteorder == "little" else "utf-16-be")).cast("H")


def _runs(values: list[Any]) -> list[Any]:
    """``values`` as [value, times, value, times, ...], each run of equal values once (equal and of
    the same type: 1 and 1.0 are two runs)."""
    runs: list[Any] = []
    for value in values:
        if runs and runs[-2] == value and type(runs[-2]) is type(value):
            runs[-1] += 1
        else:
            runs += [value, 1]
    return runs


def _offer_fields() -> list[tuple[str, Any]]:
    """(name, default) of each field of ``Offer``, in order (``dataclasses.MISSING`` for required ones)."""
    return [(f.name, f.default) for f in fields(Offer)]


def file_sha256(path: str | Path, *, limit: int) -> tuple[str, int]:
    """(sha256, size in bytes) of the regular file ``path`` of at most ``limit`` bytes, read in
    blocks (no copy of the whole file is made).

    Raises:
        OSError: it cannot be opened or read, it is not a regular file (opened without blocking, so a
            FIFO in its place cannot hang the start), or it is larger than ``limit`` (told by its size
            before a byte is read: a 2 GiB file is refused at once, not hashed for seconds first).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path} is {info.st_size:,} bytes, over the {limit:,} limit")
        return hashlib.file_digest(handle, "sha256").hexdigest(), info.st_size


def unpack_catalog(
    catalog_sha256: str,
    packed: bytes,
    build: Callable[[dict[str, Any], tuple[Offer, ...]], Any],
    *,
    catalog_bytes: int,
) -> Any | None:
    """``build(document without offers, offers)`` from ``packed`` when it is the packed form of the
    catalog file whose sha256 is ``catalog_sha256`` and size ``catalog_bytes`` (``file_sha256`` of
    the embedded ``catalog.json``); None when it is not, or cannot be read. Both digests are checked,
    then the layout (``_offers``): the payload's digest is the only check that sees a damaged digit
    in a price (any number is a number)."""
    try:
        head, _, payload = packed.partition(_SEPARATOR)
        header = json.loads(head)
        if (
            not isinstance(header, dict)
            or header.get("format") != PACKED_FORMAT
            or header.get("payload_sha256") != hashlib.sha256(payload.rstrip(_SEPARATOR)).hexdigest()
            or header.get("catalog_sha256") != catalog_sha256
        ):
            return None
        body = json.loads(payload)
        if (
            not isinstance(body, dict)
            or body.keys() != {"document", "offers"}
            or not _document_ok(body["document"])
        ):
            return None
        offers = _offers(body["offers"], catalog_bytes // _MIN_OFFER_BYTES)
        if offers is None:
            return None
        return build(body["document"], offers)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, OverflowError):
        return None  # not a packed catalog we can read: catalog.json is parsed instead
    except MemoryError:  # a layout asking for more than this machine has: the same
        return None


_MIN_OFFER_BYTES = 64
"""Fewer bytes than any offer takes in ``catalog.json`` (its seven required keys alone take 79):
``catalog.json``'s size over this bounds the offers its packed form may claim."""

_DOCUMENT_TEXT = ("version", "as_of", "sha256")
_DOCUMENT_RECORDS = ("providers", "regions", "accelerators", "instance_types")


def _document_ok(doc: object) -> bool:
    """Whether ``doc`` has a catalog's keys but the offers, its three strings and four lists of
    objects (their records are made as from ``catalog.json``: an unknown or missing field is an
    error there, and so this packed file is ignored)."""
    return (
        isinstance(doc, dict)
        and doc.keys() == {*_DOCUMENT_TEXT, *_DOCUMENT_RECORDS}
        and all(type(doc[key]) is str for key in _DOCUMENT_TEXT)
        and all(type(doc[key]) is list and set(map(type, doc[key])) <= {dict} for key in _DOCUMENT_RECORDS)
    )


_NONE = type(None)
_TEXT = frozenset({str})
_NUMBER = frozenset({float, int})

_OFFER_VALUES: dict[str, tuple[frozenset[type], frozenset[object] | None]] = {
    "provider": (_TEXT, frozenset(PROVIDER_IDS)),
    "instance_type": (_TEXT, None),
    "region": (_TEXT, None),
    "pricing": (_TEXT, frozenset(PRICE_MODELS)),
    "hourly_usd": (_NUMBER | {_NONE}, None),
    "source": (_TEXT, None),
    "as_of": (_TEXT, None),
    "capacity": (_TEXT | {_NONE}, frozenset({*CAPACITY_LEVELS, None})),
    "term_months": (frozenset({int, _NONE}), frozenset({*RESERVED_TERMS_MONTHS, None})),
    "upfront": (_TEXT | {_NONE}, None),
}
"""Each offer field's value types (exact: ``True`` is not an int) and, where the catalog's schema
lists them, its values; a number is also finite and not negative (a price, a term)."""


def _offers(packed: object, max_count: int) -> tuple[Offer, ...] | None:
    """The offers, each made by setting its slots (as ``_load._records_unchecked`` does); None when
    the packed fields are not ``Offer``'s or a column is not what ``pack_catalog`` writes (checked
    before any is expanded)."""
    names = [name for name, _ in _offer_fields()]
    if not isinstance(packed, dict) or packed.get("fields") != names or names != list(_OFFER_VALUES):
        return None
    strings, count, kinds = packed["strings"], packed["count"], packed["kinds"]
    columns = packed["columns"]
    if (
        type(count) is not int
        or not 0 <= count <= max_count
        or type(strings) is not list
        or not set(map(type, strings)) <= _TEXT
        or type(kinds) is not list
        or type(columns) is not list
        or len(kinds) != len(names)
        or len(columns) != len(names)
    ):
        return None
    if not all(map(partial(_checked, strings=strings, count=count), names, kinds, columns)):
        return None
    whole = [_expanded(kind, column, strings) for kind, column in zip(kinds, columns, strict=True)]
    # Field by field, each slot's setter mapped over the records: the loops run in C.
    made = list(map(object.__new__, repeat(Offer, count)))
    for name, column in zip(names, whole, strict=True):
        deque(map(getattr(Offer, name).__set__, made, column), maxlen=0)
    return tuple(made)


def _checked(name: str, kind: object, column: object, *, strings: list[str], count: int) -> bool:
    """True when ``column`` is a column ``pack_catalog`` could write for field ``name`` of ``count``
    offers: runs of non-negative int lengths (no bool) adding up to ``count``, string indexes ints in
    ``strings``; or a table and ``count`` characters coding places in it (each looked up in the
    table when expanded: a character outside it is a KeyError there); the values (decoded) of the
    field's types and values, the numbers finite and not negative."""
    if type(column) is not list:
        return False
    if kind == "t":
        table, coded = column if len(column) == 2 else (None, None)
        return (
            type(table) is list
            and type(coded) is str
            and len(coded) == count
            and len(table) <= _CODES
            and _values_ok(name, table)
        )
    if kind not in ("vr", "sr"):
        return False
    values, lengths = column[0::2], column[1::2]
    if len(values) != len(lengths) or not set(map(type, lengths)) <= {int}:
        return False
    if (lengths and min(lengths) < 0) or sum(lengths) != count:
        return False
    allowed, choices = _OFFER_VALUES[name]
    if kind == "sr":
        indexes = set(values)
        # Exact types: True is a bool, not the int 1. A bool equals and hashes as 0 or 1, so the set
        # hides one only when 0 or 1 is in it; then (only) every value's type is looked at.
        types = set(map(type, values if {0, 1} & indexes else indexes))
        if not types <= {int, _NONE}:
            return False
        present = [n for n in indexes if n is not None]
        if present and (min(present) < 0 or max(present) >= len(strings)):
            return False
        decoded = {None if n is None else strings[n] for n in indexes}
        return set(map(type, decoded)) <= allowed and (choices is None or decoded <= choices)
    return _values_ok(name, values)


def _values_ok(name: str, values: list[Any]) -> bool:
    """Whether ``values`` are of field ``name``'s exact types and values, numbers finite and not
    negative."""
    allowed, choices = _OFFER_VALUES[name]
    types = set(map(type, values))  # exact types: True is a bool, not the int 1
    if not types <= allowed or (choices is not None and not set(values) <= choices):
        return False
    if types & _NUMBER:  # neither None nor 0 (finite, not negative) left: one pass each in C
        numbers = list(filter(None, values))
        return not numbers or (math.isfinite(sum(numbers)) and min(numbers) > 0)
    return True


def _expanded(kind: object, column: list[Any], strings: list[str]) -> list[Any]:
    """The ``count`` values of a column ``_checked`` accepted (KeyError: a coded character outside
    its table, ValueError: a lone surrogate)."""
    if kind == "t":  # each character's code point looked up among the table's (in C)
        table, coded = column
        values = dict(zip(range(_CODE_BASE, _CODE_BASE + len(table)), table, strict=True))
        return list(map(values.__getitem__, _code_points(coded)))
    whole: list[Any] = []  # runs: [value, times, ...]
    for at in range(0, len(column), 2):
        value = column[at]
        if kind == "sr" and value is not None:
            value = strings[value]
        whole += [value] * column[at + 1]
    return whole
