"""The embedded catalog's offers packed by column, so that a cold start does not parse 1.1 MB of JSON.

``catalog.json`` holds ~4,200 offers as JSON objects, each repeating its field names, its provider,
instance type, region, source and date: ``json.loads`` makes ~70,000 objects of it (9 ms of a cold
``computeops decide``, as much as the whole of Python starting). ``catalog.packed.json``, written
beside it by ``computeops catalog build`` whenever the embedded catalog is written (``make
catalog``), holds the same document with the offers as columns: each distinct string once, every
offer's fields as numbers into that table, a run of equal values (the offers are sorted) as the value
and its length (293 KB, about 3.5 ms to parse; the records then take about 3 ms, against 9 ms of
``json.loads`` and 5 ms of records from ``catalog.json``).

It is used only when it is provably the catalog's own: it names the sha256 of the exact bytes of
``catalog.json`` it was packed from and the sha256 of its own payload, and both are checked at every
load (about 1.3 ms); a stale, foreign, truncated or otherwise unreadable packed file is ignored and
``catalog.json`` is parsed as before (never an error: the packed file only saves time). The records
are the ones ``catalog.json`` gives (a test compares them, and that the shipped file is current).
JSON only (no pickle, no code).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import MISSING, fields
from itertools import repeat
from pathlib import Path
from typing import Any

from ._types import Offer

__all__ = ["PACKED_FORMAT", "file_sha256", "pack_catalog", "packed_path", "unpack_catalog"]

PACKED_FORMAT = "computeops-packed-catalog/1"
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
        if all(isinstance(v, str) for v in given):
            kind = "s"  # an index into the strings, or null
            values = [None if v is None else strings.setdefault(v, len(strings)) for v in values]
        elif any(isinstance(v, str) for v in given):
            return None
        else:
            kind = "v"  # the JSON value itself
        runs = _runs(values)
        if len(runs) < len(values):  # the offers are sorted, so most fields come in long runs
            kind, values = kind + "r", runs
        kinds.append(kind)
        columns.append(values)
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


def file_sha256(path: Path) -> str:
    """The sha256 of the regular file ``path``, read in blocks (no copy of the whole file is made).

    Raises:
        OSError: it cannot be opened or read, or it is not a regular file (opened without blocking,
            so a FIFO in its place cannot hang the start).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return hashlib.file_digest(handle, "sha256").hexdigest()


def unpack_catalog(
    catalog_sha256: str, packed: bytes, build: Callable[[dict[str, Any], tuple[Offer, ...]], Any]
) -> Any | None:
    """``build(document without offers, offers)`` from ``packed`` when it is the packed form of the
    catalog file whose sha256 is ``catalog_sha256`` (``file_sha256`` of the embedded ``catalog.json``);
    None when it is not, or cannot be read."""
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
        offers = _offers(body["offers"])
        if offers is None:
            return None
        return build(body["document"], offers)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError):
        return None  # not a packed catalog we can read: catalog.json is parsed instead


def _offers(packed: dict[str, Any]) -> tuple[Offer, ...] | None:
    """The offers, each made by setting its slots (as ``_load._records_unchecked`` does); None when
    the packed fields are not ``Offer``'s."""
    names = [name for name, _ in _offer_fields()]
    if packed["fields"] != names:
        return None
    strings: list[str] = packed["strings"]
    count: int = packed["count"]
    columns = []
    for kind, column in zip(packed["kinds"], packed["columns"], strict=True):
        if kind in ("vr", "sr"):  # runs: [value, times, ...]
            whole: list[Any] = []
            for at in range(0, len(column), 2):
                value = column[at]
                if kind == "sr" and value is not None:
                    value = strings[value]
                whole += [value] * column[at + 1]
            column = whole
        elif kind == "s":
            unset = column.count(None)  # None stands for itself
            if not unset:
                column = list(map(strings.__getitem__, column))
            elif unset < len(column):
                column = [None if n is None else strings[n] for n in column]
        elif kind != "v":
            return None
        if len(column) != count:
            return None
        columns.append(column)
    # Field by field, each slot's setter mapped over the records: the loops run in C (4,200 offers
    # in about 1.5 ms; one Python statement per field and offer took twice that).
    made = list(map(object.__new__, repeat(Offer, count)))
    for name, column in zip(names, columns, strict=True):
        deque(map(getattr(Offer, name).__set__, made, column), maxlen=0)
    return tuple(made)
