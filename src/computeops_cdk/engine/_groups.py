"""Evaluate a decision by group of offers: each rule once per value it reads, over bit columns.

Every rule of ``_evaluate`` reads something a group of offers shares: a run's sizing and provider,
a price model, a region's country or attestations, a price date, a suspect price, and the price
itself (a run's offers sorted by price, so a cap is one bisection). Asking each rule once per value
and OR-ing the masks (``_columns``) of the values it rejects finds the feasible offers, the count of
every rule and the first rejection carrying it, without visiting the offers one by one in
Python. A rejection's reasons and messages are made by ``Evaluator.offer`` when its record is read.
Tested equal, offer by offer, to ``evaluate_each``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar, overload

from ..catalog import HOURS_PER_MONTH
from ._columns import Column, Columns, Sized, Span, assemble, set_bits
from ._decision import Reason
from ._evaluate import Candidate, Evaluation, Evaluator, Masked, Rejected, RunContext, billed_p10, priced
from ._price_age import stale_rule
from ._reserved import committed
from ._retired import retired_rule
from ._rules import placement_services
from ._sizing import Sizing

if TYPE_CHECKING:
    K = TypeVar("K")

__all__ = ["evaluate_grouped"]


class _Rules:
    """Rule -> the offers it rejects, and how many reasons it gives inside the pin."""

    def __init__(self, inside: int) -> None:
        self.inside = inside
        self.masks: dict[str, int] = {}
        self.counts: dict[str, int] = {}

    def add(self, rule: str, mask: int) -> None:
        if mask:
            self.masks[rule] = self.masks.get(rule, 0) | mask
            n = (mask & self.inside).bit_count()
            if n:  # an offer can carry a rule twice (two unsupported features): counted twice
                self.counts[rule] = self.counts.get(rule, 0) + n

    def add_all(self, names: tuple[str, ...], mask: int) -> None:
        for name in names:
            self.add(name, mask)


class _Grouped:
    def __init__(self, ev: Evaluator, columns: Columns) -> None:
        self.ev, self.columns = ev, columns
        resolved = ev.resolved
        inside = columns.everything
        self.pinned_out: dict[str, int] = {}
        if resolved.pin_provider is not None:
            inside &= columns.provider(resolved.pin_provider)
            self._pinned("pin.provider", columns.everything & ~inside)
        if resolved.pin_region is not None:
            outside = inside & ~columns.region_code.mask((resolved.pin_region,))
            inside &= ~outside
            self._pinned("pin.region", outside)
        self.inside = inside
        self.rules = _Rules(inside)
        self.contexts: list[RunContext | None] = [None] * len(columns.spans)
        self.over: list[dict[int, int]] = [{}, {}, {}]
        """The offers over each price cap (_CAP_RULES), run by run: a run's start -> bits of the run."""
        hourly, monthly, total = ev.caps
        self.fixed_caps = tuple(
            (rule, cap, hours)
            for rule, (cap, hours) in enumerate(((hourly, 1), (monthly, HOURS_PER_MONTH)))
            if math.isfinite(cap)
        )
        """(index in _CAP_RULES, cap, hours) of the caps whose hours are the same for every run."""
        self.total_cap = total if math.isfinite(total) else None

    def _pinned(self, rule: str, mask: int) -> None:
        if mask:
            self.pinned_out[rule] = mask.bit_count()

    def runs(self) -> None:
        """Each run's sizing, provider, accelerator, retirement and target rules, and its caps."""
        ev, rules, columns = self.ev, self.rules, self.columns
        sized = columns.sized(ev.sizer, self._sizings)
        for names, mask in sized.rejected:
            rules.add_all(names, mask)
        self._shared()
        if any(math.isfinite(cap) for cap in ev.caps):
            for spans, sizing in sized.fitting:
                for span in spans:
                    self._caps(span, sizing)
            for rule, pieces in zip(_CAP_RULES, self.over, strict=True):
                rules.add(rule, assemble(columns.size, pieces))
        if ev.targets_given:
            fabric = sized.fabric
            for mask, row in columns.machines.values():  # once per (provider, TPU or not, price model)
                rules.add_all(_names(ev.target(row, needs_fabric=False)), mask & ~fabric)
                rules.add_all(_names(ev.target(row, needs_fabric=True)), mask & fabric)

    def _sizings(self) -> Sized:
        """Each sizing group's sizing, asked once; runs rejected by the same rules: one mask."""
        ev, columns = self.ev, self.columns
        rejected: dict[tuple[str, ...], list[Span]] = {}
        fabric_runs: list[Span] = []
        fitting: list[tuple[tuple[Span, ...], Sizing]] = []
        for spans in columns.sizing_groups:
            sizing = ev.sizing(spans[0].rows[0])
            names = _names(sizing.reasons)
            if names:
                rejected.setdefault(names, []).extend(spans)
            if sizing.needs_fabric:  # sized across several instances: multi_node
                fabric_runs.extend(spans)
            if priced(sizing):
                fitting.append((spans, sizing))
        masks = tuple((names, columns.spans_mask(runs)) for names, runs in rejected.items())
        return Sized(masks, columns.spans_mask(fabric_runs), tuple(fitting))

    def _shared(self) -> None:
        """``Evaluator.shared``'s rules, each part asked once per provider, accelerator name and
        retired instance type: a rule given by two parts counts twice, as offer by offer."""
        ev, columns, rules = self.ev, self.columns, self.rules
        by_provider: dict[tuple[str, ...], int] = {}
        for provider in columns.providers:
            names = _names(ev.provider_reasons(provider))
            if names:
                by_provider[names] = by_provider.get(names, 0) | columns.provider(provider)
        for names, mask in by_provider.items():
            rules.add_all(names, mask)
        by_chip: dict[tuple[str, ...], list[str]] = {}
        for accelerator in columns.accelerator.values:
            names = _names(ev.accelerator_reasons(accelerator))
            if names:
                by_chip.setdefault(names, []).append(accelerator)
        for names, chips in by_chip.items():
            rules.add_all(names, columns.accelerator.mask(chips))
        for span in columns.retired:
            first = span.rows[0].offer
            retired = retired_rule(first.provider, first.instance_type, ev.as_of)
            rules.add_all(_names(retired), span.mask)

    def context(self, n: int) -> RunContext:
        """The context of span ``n``, made when first needed."""
        found = self.contexts[n]
        if found is None:
            found = self.contexts[n] = self.ev.context(self.columns.spans[n].rows)
        return found

    def _caps(self, span: Span, sizing: Sizing) -> None:
        # The same comparisons as Evaluator.offer: price x instances x hours > cap, for the hourly
        # (x 1 changes no float), monthly and total caps; collected per rule and counted once.
        n, start, over, total = sizing.instances, span.start, self.over, self.total_cap
        billed = billed_p10(span.machine[0], sizing) if total is not None else None
        for ladder in span.ladders:
            for rule, cap, hours in self.fixed_caps:
                over[rule][start] = over[rule].get(start, 0) | ladder.over(n, hours, cap)
            if total is not None:
                paid = billed
                if ladder.term_hours is not None:  # a reservation pays whole terms, whatever its price
                    paid = committed(0.0, ladder.term_hours, billed)[2]
                if paid is not None:
                    over[2][start] = over[2].get(start, 0) | ladder.over(n, paid, total)

    def offers(self) -> None:
        """The rules read per offer: price model, region, price date, suspect, missing price."""
        ev, columns, rules = self.ev, self.columns, self.rules
        self._by_value(columns.pricing, lambda model: ev.pricing[model])
        self._residency()
        kubernetes = "kubernetes_node_pool" in ev.pin.require
        machine = placement_services(tpu=False, kubernetes=kubernetes)
        tpu = placement_services(tpu=True, kubernetes=kubernetes)
        for scope in ev.constraints.compliance:
            rules.add(f"compliance.{scope}", columns.lacking(scope, machine, tpu))
        if ev.max_age is not None:
            limit = ev.max_age
            self._by_value(columns.as_of, lambda as_of: stale_rule(as_of, ev.as_of, limit))
        if ev.suspects:
            for rule, mask in columns.suspect(ev.suspects).items():
                rules.add(rule, mask)
        rules.add("price.unknown", columns.unpriced)

    def _by_value(self, column: Column[K], rule: Callable[[K], tuple[Reason, ...]]) -> None:
        """``rule`` once per value of ``column``; the values giving the same rules, one mask."""
        groups: dict[tuple[str, ...], list[K]] = {}
        for value in column.values:
            rules = tuple(r.rule for r in rule(value))
            if rules:
                groups.setdefault(rules, []).append(value)
        for rules, values in groups.items():
            self.rules.add_all(rules, column.mask(values))

    def _residency(self) -> None:
        # rules.residency_rule, value by value (its messages name the region; the counts do not).
        residency, columns = self.ev.constraints.residency, self.columns
        if residency is None:
            return
        if residency.countries is not None:
            countries = residency.countries
            self.rules.add(
                "residency.country",
                columns.country.mask(c for c in columns.country.values if c not in countries),
            )
        elif residency.continents is not None:
            continents = residency.continents
            self.rules.add(
                "residency.continent",
                columns.continent.mask(c for c in columns.continent.values if c not in continents),
            )
        else:
            allowed = self.ev.resolved.residency_regions or frozenset()
            self.rules.add(
                "residency.region", columns.region.mask(k for k in columns.region.values if k not in allowed)
            )

    def evaluation(self) -> Evaluation:
        self.runs()
        self.offers()
        rules, inside = self.rules, self.inside
        rejected = _union(rules.masks.values())
        feasible, outside = self._candidates(self.columns.everything & ~rejected)
        rejected &= inside
        examples = {}
        for rule in sorted(rules.counts):
            mask = rules.masks[rule] & inside
            first = (mask & -mask).bit_length() - 1
            examples[rule] = (rejected & ((1 << first) - 1)).bit_count()
        return Evaluation(
            feasible=feasible,
            rejected=_RejectedRows(self, rejected, examples),
            pinned_out=self.pinned_out,
            pinned_out_feasible=outside,
            by_rule=dict(sorted(rules.counts.items())),
            examples=examples,
            by_position=self.columns.standard_terms,
        )

    def _candidates(self, feasible: int) -> tuple[list[Candidate], list[Candidate]]:
        """The feasible candidates inside the pin and outside it, each list in canonical order."""
        return self._made(feasible & self.inside), self._made(feasible & ~self.inside)

    def _made(self, mask: int) -> list[Candidate]:
        out: list[Candidate] = []
        if not mask:  # (an empty catalog has no run)
            return out
        make, spans, span_of = self.ev.candidate, self.columns.spans, self.columns.span_of
        last, span, ctx = -1, self.columns.spans[0], None
        for bit in set_bits(mask):  # canonical order: runs are contiguous, in order
            n = span_of[bit]
            if n != last:
                last, span, ctx = n, spans[n], self.context(n)
            assert ctx is not None
            out.append(make(span.rows[bit - span.start], ctx, bit))
        return out

    def rejected_all(self, mask: int, made: dict[int, Rejected]) -> list[Rejected]:
        """The rejections of the offers in ``mask``, in order (``made``: made ones, by index)."""
        out: list[Rejected] = []
        offer, spans, span_of = self.ev.offer, self.columns.spans, self.columns.span_of
        for bit in set_bits(mask):
            found = made.get(len(out))
            if found is None:
                n = span_of[bit]
                one = offer(spans[n].rows[bit - spans[n].start], self.context(n))
                assert not isinstance(one, Candidate), "the grouped evaluation rejected a feasible offer"
                found = one
            out.append(found)
        return out

    def rejected_at(self, bit: int) -> Rejected:
        """The rejection of the offer at ``bit``, with all its reasons (``Evaluator.offer``)."""
        n = self.columns.span_of[bit]
        span: Span = self.columns.spans[n]
        found = self.ev.offer(span.rows[bit - span.start], self.context(n))
        assert not isinstance(found, Candidate), "the grouped evaluation rejected a feasible offer"
        return found


_CAP_RULES = ("price.max_hourly", "price.max_monthly", "price.max_total")


def _names(reasons: tuple[Reason, ...]) -> tuple[str, ...]:
    return tuple(r.rule for r in reasons)


def _union(masks: Iterable[int]) -> int:
    found = 0
    for mask in masks:
        found |= mask
    return found


class _RejectedRows(Masked):
    """``Evaluation.rejected`` of a grouped evaluation: the rejected offers inside the pin in canonical
    order. Each rule's first one (the summary's) is made alone; reading any other makes all."""

    def __init__(self, grouped: _Grouped, mask: int, examples: dict[str, int]) -> None:
        self._grouped, self._mask = grouped, mask
        self._count = mask.bit_count()
        self._made: dict[int, Rejected] = {}
        self._all: list[Rejected] | None = None
        self._known = {index: self._bit_of_example(rule) for rule, index in examples.items()}
        """The examples' index -> bit (known from the rule masks without listing the others)."""

    def _bit_of_example(self, rule: str) -> int:
        mask = self._grouped.rules.masks[rule] & self._mask
        return (mask & -mask).bit_length() - 1

    def without(self, rules: frozenset[str]) -> list[Rejected]:
        """The rejections carrying none of ``rules``, in canonical order, only theirs made."""
        masks, mask = self._grouped.rules.masks, self._mask
        for rule in rules:
            mask &= ~masks.get(rule, 0)
        if mask == self._mask:
            return list(self)
        return self._grouped.rejected_all(mask, {})

    def carrying(self, rule: str) -> int:
        return (self._grouped.rules.masks.get(rule, 0) & self._mask).bit_count()

    def made(self) -> int:
        """How many of the rows have been made so far."""
        return self._count if self._all is not None else len(self._made)

    def _every(self) -> list[Rejected]:
        if self._all is None:
            self._all = self._grouped.rejected_all(self._mask, self._made)
        return self._all

    def __len__(self) -> int:
        return self._count

    if TYPE_CHECKING:  # the overloads mypy reads (typing is not imported at run time)

        @overload
        def __getitem__(self, index: int) -> Rejected: ...

        @overload
        def __getitem__(self, index: slice) -> Sequence[Rejected]: ...

    def __getitem__(self, index: int | slice) -> Rejected | Sequence[Rejected]:
        if self._all is not None:  # a list indexes (and refuses) as the sequence does
            return self._all[index]
        if isinstance(index, slice):
            return self._every()[index]
        index = range(self._count)[index]  # negative indices, IndexError
        made = self._made.get(index)
        if made is None:
            bit = self._known.get(index)
            if bit is None:
                return self._every()[index]
            made = self._made[index] = self._grouped.rejected_at(bit)
        return made

    def __iter__(self) -> Iterator[Rejected]:
        return iter(self._every())


def evaluate_grouped(ev: Evaluator, columns: Columns) -> Evaluation:
    """``evaluate_each``'s result, found by group; the rejections' reasons are made when read.
    Not for accounts (their quotas and prices are per offer: ``evaluate_each``)."""
    assert ev.accounts is None
    return _Grouped(ev, columns).evaluation()
