"""The catalog's offers as bit columns: for each value a rule reads, the set of offers having it.

Bit ``i`` of every mask is ``CatalogIndex.rows[i]`` (how ``_groups`` uses them: its docstring).
Kept with the catalog (``offer_columns``); each column is built when a rule first reads it.
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..catalog import Catalog, Provider
from ._decision import Reason
from ._index import CatalogIndex, Row
from ._retired import RETIRED
from ._rules import attestation_applies
from ._sizing import Sizer, Sizing
from ._suspect import price_label

if TYPE_CHECKING:
    from ..catalog._types import PriceModel


K = TypeVar("K")

__all__ = ["Columns", "Ladder", "Sized", "Span", "assemble", "offer_columns", "set_bits"]

_CACHE_KEY = "engine.columns"


@dataclass(frozen=True, slots=True)
class Sized:
    """What one sizer (one workload) makes of a catalog's runs (kept: ``Columns.sized``)."""

    rejected: tuple[tuple[tuple[str, ...], int], ...]
    """(the names of a sizing's rules, the offers of every run sized with them)."""
    fabric: int
    """The offers of the runs sized across several instances (a multi-node fabric)."""
    fitting: tuple[tuple[tuple[Span, ...], Sizing], ...]
    """The groups of runs whose sizing is meaningful (the price caps apply), with it."""


@dataclass(frozen=True, slots=True)
class Ladder:
    """The priced offers of one run and reservation term, by ascending price."""

    term_hours: int | None
    prices: tuple[float, ...]
    above: tuple[int, ...]
    """``above[k]``: the offers priced ``prices[k]`` or more, as bits of the run (``Span.rows``)."""

    def over(self, instances: int, hours: float, cap: float) -> int:
        """The offers (bits of the run) whose ``price x instances x hours > cap``, multiplied in the
        per-offer check's order: a bisection finds about the first such price, the exact comparison
        settles it, so rounding cannot differ from offer by offer."""
        prices = self.prices
        factor = instances * hours
        k = bisect.bisect_left(prices, cap / factor) if factor > 0 else 0
        while k > 0 and prices[k - 1] * instances * hours > cap:
            k -= 1
        while k < len(prices) and not prices[k] * instances * hours > cap:
            k += 1
        return self.above[k]


class Span:
    """One run of ``CatalogIndex.by_itype`` (offers sharing provider and instance type)."""

    __slots__ = (
        "_ladders",
        "by_pricing",
        "machine",
        "retired",
        "rows",
        "sizing_id",
        "sizing_key",
        "start",
        "width",
    )

    def __init__(self, start: int, rows: tuple[Row, ...]) -> None:
        self.start = start
        """Bit of the run's first offer; the run's own masks (``by_pricing``, ladders) count from it."""
        self.rows = rows
        self.width = len(rows)
        at: dict[PriceModel, list[int]] = {}
        for i, row in enumerate(rows):
            at.setdefault(row.offer.pricing, []).append(i)
        self.by_pricing: tuple[tuple[PriceModel, int, int], ...] = tuple(
            (model, sum(1 << i for i in bits), bits[0]) for model, bits in at.items()
        )
        """(price model, its offers as bits of the run, the position in ``rows`` of the first)."""
        self._ladders: tuple[Ladder, ...] | None = None
        chip = rows[0].accelerator
        self.machine = (rows[0].offer.provider, chip is not None and chip.is_tpu)
        """(provider, a TPU or not): with price model and fabric, what a target rule reads."""
        first, itype = rows[0].offer, rows[0].itype
        self.sizing_key: tuple[str, int, bool] | None = None
        if itype is not None and chip is not None:
            self.sizing_key = (chip.id, itype.accelerator_count, itype.multi_node)
        """What the run's sizing depends on (the Sizer's own key); None when a record is missing."""
        self.retired = (first.provider, first.instance_type) in RETIRED
        """Whether the instance type has a retirement notice (``_retired.RETIRED``)."""
        self.sizing_id = -1
        """The sizing key as a small number (``Columns`` numbers them), for a list slot."""

    @property
    def mask(self) -> int:
        """The run's offers as bits of the catalog (made when asked: kept, memory is quadratic)."""
        return ((1 << self.width) - 1) << self.start

    @property
    def ladders(self) -> tuple[Ladder, ...]:
        """The run's priced offers by ascending price, one ladder per term (made when read)."""
        if self._ladders is None:
            self._ladders = _ladders(self.rows)
        return self._ladders


def assemble(size: int, pieces: Mapping[int, int]) -> int:
    """The mask of ``pieces`` (a run's start -> bits of that run) over ``size`` offers: a few are
    shifted into place, many written into one digit string parsed once (linear in the runs)."""
    if len(pieces) <= _FEW_PIECES:
        found = 0
        for start, bits in pieces.items():
            found |= bits << start
        return found
    digits = bytearray(b"0") * size
    for start, bits in pieces.items():
        if bits:
            own = format(bits, "b").encode()[::-1]
            digits[start : start + len(own)] = own
    return int(digits[::-1], 2)


_FEW_PIECES = 64
"""Up to this many, shifting costs less than the digit string and stays linear."""


def set_bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first, in one pass over its digits (taking the lowest bit off
    a catalog-wide int again and again costs the int's size each time)."""
    digits = format(mask, "b")[::-1]
    at = digits.find("1")
    while at >= 0:
        yield at
        at = digits.find("1", at + 1)


def _by_sizing(spans: list[Span]) -> tuple[tuple[Span, ...], ...]:
    """Number the runs' sizing keys (``Span.sizing_id``, in order of first appearance; a run
    without a key has its own) and group the runs by them, each group in canonical order (no
    catalog-wide mask per group: memory would grow with the square of the runs)."""
    numbers: dict[object, int] = {}
    groups: list[list[Span]] = []
    for span in spans:
        key = span.sizing_key if span.sizing_key is not None else ("own", span.start)
        span.sizing_id = numbers.setdefault(key, len(numbers))
        if span.sizing_id == len(groups):
            groups.append([])
        groups[span.sizing_id].append(span)
    return tuple(tuple(group) for group in groups)


def _ladders(run: tuple[Row, ...]) -> tuple[Ladder, ...]:
    terms: dict[int | None, list[tuple[float, int]]] = {}
    for i, row in enumerate(run):
        price = row.offer.hourly_usd
        if price is not None:
            terms.setdefault(row.offer.term_hours, []).append((price, i))
    ladders = []
    for term, offers in sorted(terms.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        offers.sort()
        above = [0] * (len(offers) + 1)
        for k in range(len(offers) - 1, -1, -1):
            above[k] = above[k + 1] | 1 << offers[k][1]
        ladders.append(Ladder(term, tuple(p for p, _ in offers), tuple(above)))
    return tuple(ladders)


class Column(Generic[K]):
    """One value per offer (its country, its price model, ...), coded as byte planes (plane ``j``
    holds byte ``j`` of every offer's value number) so that a mask of the offers holding any of a
    set of values is made by C loops: each plane translated to '0'/'1' digits, parsed as an int."""

    __slots__ = ("_code", "_planes", "values")

    def __init__(self, keys: list[K]) -> None:
        self.values: tuple[K, ...] = tuple(dict.fromkeys(keys))
        """The distinct values, in the offers' order."""
        self._code = {value: n for n, value in enumerate(self.values)}
        codes = list(map(self._code.__getitem__, keys))[::-1]  # the lowest bit is the last digit
        # up to 256 values every number is its own low byte: bytes() reads the list in C
        planes = [bytes(codes) if len(self.values) <= 256 else bytes(n & 255 for n in codes)]
        while 256 ** len(planes) < len(self.values):
            shift = 8 * len(planes)
            planes.append(bytes(n >> shift & 255 for n in codes))
        self._planes = tuple(planes)

    def mask(self, wanted: Iterable[K]) -> int:
        """The offers whose value is one of ``wanted`` (values no offer has are ignored)."""
        low, *high = self._planes
        by_high: dict[int, bytearray] = {}
        for value in wanted:
            n = self._code.get(value)
            if n is not None:
                by_high.setdefault(n >> 8, bytearray(_ZEROS))[n & 255] = _ONE
        if not high:
            return int(low.translate(by_high[0]), 2) if by_high else 0
        found = 0
        for h, table in by_high.items():
            match = int(low.translate(table), 2)
            for j, plane in enumerate(high):  # the value's byte j + 1 must match too
                only = bytearray(_ZEROS)
                only[h >> 8 * j & 255] = _ONE
                match &= int(plane.translate(only), 2)
            found |= match
        return found

    def masks(self) -> dict[K, int]:
        """Value -> the offers holding it (for columns of a few values)."""
        return {value: self.mask((value,)) for value in self.values}


_ZEROS = b"0" * 256
_ONE = ord("1")


class Columns:
    """The runs and the columns of one catalog index (each column made when a rule first reads it)."""

    def __init__(self, index: CatalogIndex) -> None:
        self.rows = index.rows
        self.size = len(index.rows)
        self.everything = (1 << self.size) - 1
        spans, span_of, start = [], [], 0
        for n, run in enumerate(index.by_itype):
            spans.append(Span(start, run))
            span_of += [n] * len(run)
            start += len(run)
        self.spans: tuple[Span, ...] = tuple(spans)
        self.span_of: tuple[int, ...] = tuple(span_of)
        """Bit -> the index of its span."""
        self.sizing_groups = _by_sizing(spans)
        """The runs by sizing key (``Span.sizing_id``): a sizing is asked once for all of them."""
        self.retired = tuple(span for span in spans if span.retired)
        """The runs of instance types with a retirement notice."""
        self._sized: weakref.WeakKeyDictionary[Sizer, Sized] = weakref.WeakKeyDictionary()
        self.providers: dict[str, Provider] = {
            run[0].offer.provider: run[0].provider for run in index.by_itype
        }
        self._columns: dict[str, Column[Any]] = {}
        self.kept: dict[object, object] = {}
        """What the scoring keeps with the catalog (``_rank``: the offers' score classes)."""
        self._masks: dict[object, int] = {}
        self._suspects: tuple[object, dict[str, int]] | None = None
        self._machines: dict[tuple[str, bool, PriceModel], tuple[int, Row]] | None = None

    def sized(self, sizer: Sizer, make: Callable[[], Sized]) -> Sized:
        """``make()``'s result for ``sizer``, made on first use: a sizer is kept for its workload
        (``_sizing.sizer_for``) and never changes its sizings, so the next decision reuses it."""
        found = self._sized.get(sizer)
        if found is None:
            found = self._sized[sizer] = make()
        return found

    def spans_mask(self, spans: Iterable[Span]) -> int:
        """The offers of ``spans``, as one mask."""
        return assemble(self.size, {span.start: (1 << span.width) - 1 for span in spans})

    def _column(self, name: str, key: Callable[[Row], K]) -> Column[K]:
        found = self._columns.get(name)
        if found is None:
            found = self._columns[name] = Column(list(map(key, self.rows)))
        return found

    @property
    def region_code(self) -> Column[str]:
        """Region code (any provider): what a region pin selects."""
        return self._column("region_code", attrgetter("offer.region"))

    @property
    def accelerator(self) -> Column[str]:
        """The instance type's accelerator name ('' for an undescribed instance type)."""
        return self._column("accelerator", lambda row: row.itype.accelerator if row.itype is not None else "")

    @property
    def pricing(self) -> Column[PriceModel]:
        return self._column("pricing", attrgetter("offer.pricing"))

    @property
    def country(self) -> Column[str | None]:
        """The offer's region's country (None: unknown region or country)."""
        return self._column("country", lambda row: row.region.country if row.region is not None else None)

    @property
    def continent(self) -> Column[str | None]:
        return self._column("continent", lambda row: row.region.continent if row.region is not None else None)

    @property
    def region(self) -> Column[tuple[str, str]]:
        """(provider, region code)."""
        return self._column("region", attrgetter("offer.provider", "offer.region"))

    @property
    def as_of(self) -> Column[str]:
        """The date the offer's price was read."""
        return self._column("as_of", attrgetter("offer.as_of"))

    @property
    def unpriced(self) -> int:
        found = self._masks.get("unpriced")
        if found is None:
            column = self._column("unpriced", lambda row: row.offer.hourly_usd is None)
            found = self._masks["unpriced"] = column.mask((True,))
        return found

    def provider(self, provider: str) -> int:
        """The offers of ``provider`` (one provider per run)."""
        key = ("provider", provider)
        found = self._masks.get(key)
        if found is None:
            found = self._masks[key] = self.spans_mask(
                s for s in self.spans if s.rows[0].offer.provider == provider
            )
        return found

    @property
    def tpu(self) -> int:
        """The offers of a TPU (one accelerator per run)."""
        found = self._masks.get("tpu")
        if found is None:
            chips = [(span, span.rows[0].accelerator) for span in self.spans]
            found = self._masks["tpu"] = self.spans_mask(
                s for s, chip in chips if chip is not None and chip.is_tpu
            )
        return found

    def lacking(self, scope: str, machine: tuple[str, ...], tpu: tuple[str, ...]) -> int:
        """Offers where no provider_claimed attestation of ``scope`` applies (rules.compliance_rules),
        for a placement on the services ``machine`` (GPU offers) or ``tpu`` (TPU offers)."""
        key = ("lacking", scope, machine, tpu)
        found = self._masks.get(key)
        if found is None:
            column, on_tpu = self.region, self.tpu
            gaps = []
            for services in (machine, tpu):
                where = []
                for provider, code in column.values:
                    held = self.providers[provider].attestations
                    claimed = [a for a in held if a.scope == scope and a.evidence == "provider_claimed"]
                    if not any(attestation_applies(a, code, services) for a in claimed):
                        where.append((provider, code))
                gaps.append(column.mask(where))
            found = self._masks[key] = (gaps[0] & ~on_tpu) | (gaps[1] & on_tpu)
        return found

    @property
    def standard_terms(self) -> bool:
        """Whether every reservation term is the schema's (labels then sort canonically)."""
        return set(self._column("term", lambda row: row.offer.term_months).values) <= {None, 12, 36}

    @property
    def machines(self) -> dict[tuple[str, bool, PriceModel], tuple[int, Row]]:
        """(provider, a TPU or not, price model) -> its offers and one of them (target rules)."""
        found = self._machines
        if found is None:
            pieces: dict[tuple[str, bool, PriceModel], tuple[dict[int, int], Row]] = {}
            for span in self.spans:
                for pricing, mask, at in span.by_pricing:
                    pieces.setdefault((*span.machine, pricing), ({}, span.rows[at]))[0][span.start] = mask
            found = self._machines = {
                key: (assemble(self.size, bits), row) for key, (bits, row) in pieces.items()
            }
        return found

    def suspect(self, suspects: Mapping[tuple[str, str, str, str], Reason]) -> dict[str, int]:
        """Rule -> the offers ``suspects`` (``_suspect.suspect_prices``) names (kept for that mapping)."""
        if self._suspects is not None and self._suspects[0] is suspects:
            return self._suspects[1]
        runs = {(s.rows[0].offer.provider, s.rows[0].offer.instance_type): s for s in self.spans}
        found: dict[str, int] = {}
        for (provider, itype, region, label), reason in suspects.items():
            span = runs.get((provider, itype))
            if span is None:
                continue
            for i, row in enumerate(span.rows):
                if row.offer.region == region and price_label(row.offer) == label:
                    found[reason.rule] = found.get(reason.rule, 0) | 1 << (span.start + i)
        self._suspects = (suspects, found)
        return found


def offer_columns(catalog: Catalog, index: CatalogIndex) -> Columns:
    """The bit columns of ``index`` (``catalog``'s), built on first use and kept with the catalog."""
    cached = catalog._index.get(_CACHE_KEY)
    if isinstance(cached, tuple) and cached[0] is index:
        return cached[1]  # type: ignore[no-any-return]
    built = Columns(index)
    catalog._index[_CACHE_KEY] = (index, built)
    return built
