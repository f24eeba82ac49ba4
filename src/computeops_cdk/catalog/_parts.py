"""A provider's prices assembled from several feeds, one feed per price model.

feeds.csv's ``feed`` cell may split a provider's price models between sources
(``on_demand+reserved:aws-bulk;spot:gpuhunt``, ``_sources.parse_feed_spec``): AWS's bulk offer files
have on-demand and reserved prices but no spot (spot needs signed EC2 calls), gpuhunt's catalog has
spot. Each part is fetched and sanity-checked on its own, against the same part of the last good
rows (``project``), so a part refused keeps its last good prices while the others still update.

``merge`` then joins the parts row by row: every price column comes from the part that owns its
price model and nothing else (gpuhunt's own on-demand price never fills an on-demand gap), the specs
from the first part that has the row. A row one part prices and another does not keeps the prices
it has (spot but no on-demand: a spot offer only); a last good row no part prices is dropped and
reported. The n-th listing of a key in one part joins the n-th in the others (a raw file without
zones lists a key once per zone); a key the parts list unequally often is collapsed to one row per
part, each price column at its lowest listed price, and the report says so (``uneven_note``).

The rules that compare two price models of one offer (spot or a reservation above on-demand) are
checked again on the merged rows where the two prices come from different parts
(``cross_problems``). Such a conflict is the newer data's fault, so ``resolve`` refuses the part that
does not own on-demand first (it keeps its last good prices) and checks again; only if its last good
prices still conflict with the new on-demand prices is the on-demand part refused too. ``--accept``
overrides, as for every check.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ._sanity import ROUNDING, Refusal, row_key
from ._sources import PRICE_MODELS, Row
from ._types import RESERVED_COLUMNS

__all__ = [
    "PRICE_COLUMNS",
    "Piece",
    "cross_problems",
    "merge",
    "price_columns",
    "project",
    "resolve",
    "uneven_note",
]

PRICE_COLUMNS: dict[str, tuple[str, ...]] = {
    "on_demand": ("Price",),
    "spot": ("SpotPrice",),
    "reserved": tuple(RESERVED_COLUMNS.values()),
}
"""The raw-file columns that hold each price model's prices."""
_ALL = tuple(c for model in PRICE_MODELS for c in PRICE_COLUMNS[model])


def price_columns(models: Iterable[str]) -> tuple[str, ...]:
    """The raw-file price columns of ``models``."""
    return tuple(c for model in models for c in PRICE_COLUMNS[model])


def project(rows: Sequence[Row], models: Iterable[str]) -> list[Row]:
    """The rows that carry a price of ``models``, with every other price column blank."""
    keep = set(price_columns(models))
    blank = [c for c in _ALL if c not in keep]
    out = []
    for row in rows:
        if any(row.get(c) for c in keep):
            out.append({k: ("" if k in blank else v) for k, v in row.items()})
    return out


_Listings = dict[tuple[str, ...], Row]


def _uneven(parts: Sequence[Sequence[Row]]) -> dict[tuple[str, ...], list[int]]:
    """Keys the parts that list them list unequally often, with each part's count (0: not listed)."""
    counts = [Counter(map(row_key, rows)) for rows in parts]
    keys = set().union(*counts)
    listed = {k: [c[k] for c in counts] for k in keys}
    return {k: n for k, n in listed.items() if len({x for x in n if x}) > 1}


def _listings(rows: Sequence[Row], owned: Sequence[str], uneven: Iterable[tuple[str, ...]]) -> _Listings:
    """A part's rows by (key, listing number); a key in ``uneven`` is one listing, each ``owned``
    price column at the lowest price its listings give."""
    collapse = set(uneven)
    out: _Listings = {}
    seen: Counter[tuple[str, ...]] = Counter()
    for row in rows:
        key = row_key(row)
        if key in collapse:
            kept = out.get((*key, "1"))
            out[(*key, "1")] = row if kept is None else {**kept, **{c: _lower(kept, row, c) for c in owned}}
            continue
        seen[key] += 1
        out[(*key, str(seen[key]))] = row
    return out


def _lower(kept: Row, again: Row, column: str) -> str:
    """The lower price of ``column`` in two listings of one key (a blank or unreadable one loses)."""
    first, second = _number(kept.get(column, "")), _number(again.get(column, ""))
    if second is not None and (first is None or second < first):
        return again.get(column, "")
    return kept.get(column, "")


def uneven_note(pieces: Sequence[Piece]) -> str:
    """The report line for the keys ``merge`` collapsed (the parts list them unequally often), or ""."""
    uneven = _uneven([p.rows for p in pieces])
    if not uneven:
        return ""
    examples = []
    for key in sorted(uneven)[:3]:
        listed = ", ".join(
            f"{n} by {'+'.join(p.models)} ({p.label})" for p, n in zip(pieces, uneven[key], strict=True) if n
        )
        examples.append(f"{' '.join(key[1:2] + key[4:6]).strip()}: {listed}")
    many = len(uneven) > 1
    return (
        f"{len(uneven)} {'keys' if many else 'key'} the feeds list unequally often collapsed into one "
        f"row{' each' if many else ''}, the lowest price kept (e.g. {'; '.join(examples)})"
    )


def merge(parts: Sequence[tuple[tuple[str, ...], Sequence[Row]]], columns: Sequence[str]) -> list[Row]:
    """One row per key and listing from ``(models, rows)`` parts: each price column from the part
    owning its model, the other columns from the first part that has the row; rows in part order (a
    key the parts list unequally often collapsed first, one row)."""
    uneven = _uneven([rows for _, rows in parts])
    merged: dict[tuple[str, ...], Row] = {}
    for models, rows in parts:
        owned = price_columns(models)
        for key, row in _listings(rows, owned, uneven).items():
            base = merged.get(key)
            if base is None:
                base = merged[key] = {c: ("" if c in _ALL else row.get(c, "")) for c in columns}
            for column in owned:
                if column in base:
                    base[column] = row.get(column, "")
    return list(merged.values())


@dataclass(frozen=True, slots=True, kw_only=True)
class Piece:
    """One part of a provider's refresh.

    Attributes:
        models: the price models the part owns.
        label: how the report names it (``on_demand+reserved from aws-bulk``).
        new: the part's fresh rows (projected onto its models), or None when it was refused, failed
            or skipped (then ``old`` is used).
        old: the last good rows of its models (projected).
        refusals: why it was refused, or what was accepted.
        status: "updated", "accepted", "refused" or "skipped".
    """

    models: tuple[str, ...]
    label: str
    new: list[Row] | None
    old: list[Row]
    refusals: tuple[Refusal, ...] = ()
    status: str = "updated"

    @property
    def rows(self) -> list[Row]:
        return self.old if self.new is None else self.new


def _number(text: str) -> float | None:
    try:
        value = float(text) if text.strip() else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) and value > 0 else None


def cross_problems(pieces: Sequence[Piece], merged: Sequence[Row]) -> dict[int, list[str]]:
    """Piece index -> offers whose spot or reserved price (from that piece) is above the on-demand
    price another piece gave (each with the numbers)."""
    owner = {c: i for i, p in enumerate(pieces) for c in price_columns(p.models)}
    base = owner.get("Price")
    found: dict[int, list[str]] = {}
    if base is None:
        return found
    for n, row in enumerate(merged, 1):
        on_demand = _number(row.get("Price", ""))
        if on_demand is None:
            continue
        for column in ("SpotPrice", *RESERVED_COLUMNS.values()):
            other = owner.get(column)
            price = _number(row.get(column, ""))
            if other is None or other == base or price is None or not on_demand * ROUNDING < price:
                continue
            what = "spot" if column == "SpotPrice" else f"reserved ({column})"
            found.setdefault(other, []).append(
                f"row {n} ({row.get('InstanceType', '')[:40]!r} {row.get('Region', '')[:30]}): on-demand "
                f"{on_demand:g} ({pieces[base].label}) < {what} {price:g} ({pieces[other].label})"
            )
    return found


def _refusal(provider: str, column_problems: list[str]) -> Refusal:
    check = (
        "price.spot_above_on_demand"
        if any(" < spot " in p for p in column_problems)
        else "price.reserved_above_on_demand"
    )
    first = column_problems[0]
    more = f" (and {len(column_problems) - 1} more rows)" if len(column_problems) > 1 else ""
    return Refusal(provider=provider, check=check, detail=f"across sources: {first}{more}")


def resolve(
    provider: str, pieces: Sequence[Piece], columns: Sequence[str], *, accepted: bool
) -> tuple[list[Piece], list[Row]]:
    """The pieces after the cross-source checks (a conflicting part refused, keeping its last good
    rows; on-demand's part last) and the merged rows they give."""
    current = list(pieces)
    base = next((i for i, p in enumerate(current) if "on_demand" in p.models), None)
    while True:
        merged = merge([(p.models, p.rows) for p in current], columns)
        problems = cross_problems(current, merged)
        if not problems:
            return current, merged
        blamed = [i for i in sorted(problems) if current[i].new is not None]
        if not blamed and base is not None and current[base].new is not None:
            # the conflict is with last good prices: the new on-demand prices are refused too
            blamed, problems = [base], {base: [p for rows in problems.values() for p in rows]}
        if not blamed:
            return current, merged
        for i in blamed:
            refusal = _refusal(provider, problems[i])
            if accepted:
                current[i] = replace(current[i], refusals=(*current[i].refusals, refusal), status="accepted")
            else:
                current[i] = replace(
                    current[i], new=None, refusals=(*current[i].refusals, refusal), status="refused"
                )
        if accepted:
            return current, merge([(p.models, p.rows) for p in current], columns)
