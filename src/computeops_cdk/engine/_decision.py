"""The engine's answer: a chosen placement, ranked alternatives, rejections and the reasons.

Field names mirror the JSON contract of ``computeops decide --format json``; ``to_dict`` is the
one place that makes that document, so every caller reads the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from ..catalog import HOURS_PER_MONTH
from ..errors import IntentError, described

__all__ = [
    "DEFAULT_REJECTIONS",
    "REJECTION_LISTINGS",
    "SCORE_DIMENSIONS",
    "Decision",
    "EstimateSummary",
    "Placement",
    "Reason",
    "Rejection",
    "Rejections",
    "UnitCost",
    "UnitName",
]

UnitName = Literal["usd_per_million_output_tokens", "usd_per_training_step"]
RejectionListing = Literal["all", "summary"]

REJECTION_LISTINGS: tuple[RejectionListing, ...] = ("all", "summary")
DEFAULT_REJECTIONS: RejectionListing = "summary"
"""The rejections a decision document lists by default: ``summary``, the first one (canonical order)
carrying each rule; ``all`` lists every one. The counts always cover all. The CLI and the constructs
share this default, so their documents stay the same bytes."""
SCORE_DIMENSIONS: tuple[str, ...] = (
    "cost",
    "performance",
    "availability",
    "reliability",
    "compliance",
    "residency",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitCost:
    """Cost per unit of useful work."""

    unit: UnitName
    value: float

    def to_dict(self) -> dict[str, Any]:
        """This record as its part of the ``decide --format json`` document."""
        return {"unit": self.unit, "value": self.value}


@dataclass(frozen=True, slots=True, kw_only=True)
class EstimateSummary:
    """What the performance model predicts for a placement (labelled with the model that made it)."""

    tokens_per_s: float
    ttft_ms: float | None
    tpot_ms: float | None
    model: str
    assumptions: tuple[str, ...] = ()
    mfu: float | None = None
    step_time_s: float | None = None
    tensor_parallel: int | None = None
    replicas: int | None = None
    memory_gb_per_accelerator: float | None = None
    concurrency_per_replica: int | None = None
    """Inference: requests in flight per model replica the estimate assumed; None for training."""
    tokens_per_s_p10: float | None = None
    """The conservative end of the estimate's band (the sizing meets the intent at this point)."""
    tokens_per_s_p90: float | None = None
    evidence: str = ""
    """How the band was derived: validated | extrapolated | upper_bound | measured."""
    hours_p10: float | None = None
    """Training: hours at the band's conservative point (start-up included)."""
    central_instances: int | None = None
    """Instances the central estimate alone (no band, no headroom) would need; None if it misses."""
    pipeline_parallel: int | None = None
    micro_batches: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """This record as its part of the ``decide --format json`` document."""
        return {
            "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_p10": self.tokens_per_s_p10,
            "tokens_per_s_p90": self.tokens_per_s_p90,
            "evidence": self.evidence,
            "ttft_ms": self.ttft_ms,
            "tpot_ms": self.tpot_ms,
            "model": self.model,
            "assumptions": list(self.assumptions),
            "mfu": self.mfu,
            "step_time_s": self.step_time_s,
            "tensor_parallel": self.tensor_parallel,
            "replicas": self.replicas,
            "memory_gb_per_accelerator": self.memory_gb_per_accelerator,
            "concurrency_per_replica": self.concurrency_per_replica,
            "hours_p10": self.hours_p10,
            "central_instances": self.central_instances,
            "pipeline_parallel": self.pipeline_parallel,
            "micro_batches": self.micro_batches,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """A feasible, sized and scored candidate: offer x number of instances."""

    provider: str
    instance_type: str
    accelerator: str
    accelerators_per_instance: int
    instances: int
    region: str
    country: str | None
    continent: str
    pricing: str
    hourly_usd: float
    monthly_usd: float
    unit_cost: UnitCost
    total_usd: float | None
    hours: float | None
    estimate: EstimateSummary
    attestations: tuple[str, ...]
    scores: dict[str, float]
    score: float
    price_source: str = ""
    price_as_of: str = ""
    price_age_days: int | None = None
    """Days the price is older than the catalog's as_of (None when a date does not parse)."""
    list_hourly_usd: float | None = None
    """The deployment's hourly list price when the team's accounts changed it (else None)."""
    account_terms: str = ""
    """The account terms applied (negotiated discount, owned instances), in words."""
    term_months: int | None = None
    """Reserved placements: the reservation's term in months (12 or 36); None otherwise."""
    commitment_usd: float | None = None
    """Reserved placements: USD committed (effective hourly x term hours x terms needed)."""
    whole_term_charged: bool = False
    """Reserved training: the job is shorter than its commitment and pays all of it."""

    @property
    def term_hours(self) -> int | None:
        """Hours the reservation commits to per term (term_months x 730); None unless reserved."""
        return None if self.term_months is None else self.term_months * HOURS_PER_MONTH

    def to_dict(self) -> dict[str, Any]:
        """This record as its part of the ``decide --format json`` document (``reservation`` only
        for reserved placements, so documents without one keep their bytes)."""
        doc = self._fields()
        if self.term_months is not None:
            doc["reservation"] = {
                "term_months": self.term_months,
                "term_hours": self.term_hours,
                "upfront": "none",
                "effective_hourly_usd": self.hourly_usd,
                "commitment_usd": self.commitment_usd,
                "whole_term_charged": self.whole_term_charged,
            }
        return doc

    def _fields(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "instance_type": self.instance_type,
            "accelerator": self.accelerator,
            "accelerators_per_instance": self.accelerators_per_instance,
            "instances": self.instances,
            "region": self.region,
            "country": self.country,
            "continent": self.continent,
            "pricing": self.pricing,
            "hourly_usd": self.hourly_usd,
            "monthly_usd": self.monthly_usd,
            "unit_cost": self.unit_cost.to_dict(),
            "total_usd": self.total_usd,
            "hours": self.hours,
            "estimate": self.estimate.to_dict(),
            "attestations": list(self.attestations),
            "scores": {k: self.scores[k] for k in SCORE_DIMENSIONS},
            "score": self.score,
            "price_source": self.price_source,
            "price_as_of": self.price_as_of,
            "price_age_days": self.price_age_days,
            "list_hourly_usd": self.list_hourly_usd,
            "account_terms": self.account_terms,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Reason:
    """Why a candidate was rejected: a stable rule id and a message with the numbers."""

    rule: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        """This record as its part of the ``decide --format json`` document."""
        return {"rule": self.rule, "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejection:
    """A candidate offer that broke at least one hard constraint."""

    provider: str
    instance_type: str
    region: str
    pricing: str
    reasons: tuple[Reason, ...]

    def to_dict(self) -> dict[str, Any]:
        """This record as its part of the ``decide --format json`` document."""
        return {
            "provider": self.provider,
            "instance_type": self.instance_type,
            "region": self.region,
            "pricing": self.pricing,
            "reasons": [r.to_dict() for r in self.reasons],
        }

    @classmethod
    def of(
        cls, provider: str, instance_type: str, region: str, pricing: str, reasons: tuple[Reason, ...]
    ) -> Rejection:
        """Positional constructor for the engine's hot path (a catalog rejects thousands of offers);
        it skips the keyword-argument frozen ``__init__`` and sets the same fields."""
        made = object.__new__(cls)
        set_field = object.__setattr__
        set_field(made, "provider", provider)
        set_field(made, "instance_type", instance_type)
        set_field(made, "region", region)
        set_field(made, "pricing", pricing)
        set_field(made, "reasons", reasons)
        return made


class Rejections(Sequence[Rejection]):
    """``Decision.rejected``: the rejected candidates in canonical order, each a ``Rejection`` record
    made when it is first read (most callers only count them by rule or list one per rule).

    Indexing, iterating, ``len`` and ``==`` (with another ``Rejections`` or a tuple of records)
    behave as the tuple of records it stands for.
    """

    __slots__ = ("_by_rule", "_examples", "_records", "_rows")

    def __init__(
        self,
        rows: Sequence[Any] = (),
        *,
        records: Sequence[Rejection] | None = None,
        by_rule: Mapping[str, int] | None = None,
        examples: Mapping[str, int] | None = None,
    ) -> None:
        """``rows``: the engine's rejected rows ``(row, sizing, hourly, total, reasons)``, or
        ``records``: records already made. ``by_rule`` (reasons per rule, sorted by rule) and
        ``examples`` (rule -> index of its first rejection) when the engine counted them."""
        self._rows = rows
        self._records: list[Rejection | None] = list(records) if records is not None else [None] * len(rows)
        self._by_rule = dict(by_rule) if by_rule is not None else None
        self._examples = dict(examples) if examples is not None else None

    def by_rule(self) -> dict[str, int]:
        """How many reasons each rule gave, sorted by rule id."""
        if self._by_rule is None:
            counts = Counter(reason.rule for reasons in self.reasons() for reason in reasons)
            self._by_rule = dict(sorted(counts.items()))
        return dict(self._by_rule)

    def example_indices(self) -> dict[str, int]:
        """For each rule, sorted by rule id, the index of the first rejection carrying it."""
        if self._examples is None:
            first: dict[str, int] = {}
            for index, reasons in enumerate(self.reasons()):
                for reason in reasons:
                    if reason.rule not in first:
                        first[reason.rule] = index
            self._examples = dict(sorted(first.items()))
        return dict(self._examples)

    def reasons(self) -> Iterator[tuple[Reason, ...]]:
        """Each rejection's reasons, in order, without making the records."""
        if self._rows:
            return (row[4] for row in self._rows)
        return (r.reasons for r in self._records if r is not None)

    def record(self, index: int) -> Rejection:
        """The record at ``index``, made (once) without making the others."""
        made = self._records[index]
        if made is None:
            row = self._rows[index]
            offer = row[0].offer
            made = Rejection.of(offer.provider, offer.instance_type, offer.region, offer.pricing, row[4])
            self._records[index] = made
        return made

    def records(self) -> tuple[Rejection, ...]:
        """Every record (made on the first call, in one pass: an infeasible decision lists all)."""
        records, of = self._records, Rejection.of
        if self._rows:
            for i, row in enumerate(self._rows):
                if records[i] is None:
                    offer = row[0].offer
                    records[i] = of(offer.provider, offer.instance_type, offer.region, offer.pricing, row[4])
        return tuple(records)  # type: ignore[arg-type]  # every one made above

    def __len__(self) -> int:
        return len(self._records)

    if TYPE_CHECKING:  # the overloads mypy reads (typing is not imported at run time)

        @overload
        def __getitem__(self, index: int) -> Rejection: ...

        @overload
        def __getitem__(self, index: slice) -> tuple[Rejection, ...]: ...

    def __getitem__(self, index: int | slice) -> Rejection | tuple[Rejection, ...]:
        if isinstance(index, slice):
            return tuple(self.record(i) for i in range(len(self._records))[index])
        return self.record(range(len(self._records))[index])  # negative indices, IndexError

    def __iter__(self) -> Iterator[Rejection]:
        return iter(self.records())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Rejections):
            return self.records() == other.records()
        if isinstance(other, tuple):
            return self.records() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.records())

    def __repr__(self) -> str:
        return f"Rejections({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as the records they stand for: the rows hold the (unpicklable) evaluation.
        return (_rejections_of, (self.records(), self.by_rule(), self.example_indices()))


def _rejections_of(
    records: tuple[Rejection, ...], by_rule: dict[str, int], examples: dict[str, int]
) -> Rejections:
    """``Rejections`` made again from pickled records (``Rejections.__reduce__``)."""
    return Rejections(records=records, by_rule=by_rule, examples=examples)


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """The engine's answer for one intent over one catalog (``chosen``: None only in an error)."""

    intent_name: str
    intent_sha256: str
    catalog_version: str
    catalog_as_of: str
    catalog_sha256: str
    chosen: Placement | None
    alternatives: tuple[Placement, ...]
    rejected: Sequence[Rejection]
    """Every candidate rejected, in canonical order (a ``Rejections``: records made when read)."""
    explanation: tuple[str, ...]
    trade_off: str = ""
    """The chosen placement against the runner-up, in words and numbers ("" without a choice)."""
    considered: int = 0
    """Candidates checked against the hard constraints (offers inside the pin)."""
    feasible: int = 0
    """Candidates that met every hard constraint (``alternatives`` lists only the best of them)."""
    pinned_out: Mapping[str, int] = field(default_factory=dict)
    """Offers left out by the pin, by rule (``pin.provider``, ``pin.region``); not rejections."""
    nearest_misses: tuple[str, ...] = ()
    """Relaxations that would admit a candidate (only filled when nothing is feasible)."""
    intent_spec: Mapping[str, Any] | None = None
    """The intent as decided (canonical, defaults filled), so a record can be re-evaluated on its own."""
    pin: Mapping[str, Any] = field(default_factory=dict)
    """The pin it was decided inside: ``provider``, ``region`` (None when free) and ``require``."""
    accounts: Mapping[str, Any] | None = None
    """The accounts file decided with (``path``, ``sha256``), None without one."""
    lock: Mapping[str, Any] | None = None
    """Where the placement came from when a lockfile was used (``status`` locked / written /
    relocked, the file, the workload path, ``locked_at``); None for a plain decision."""

    @property
    def ranked(self) -> tuple[Placement, ...]:
        """The chosen placement followed by the alternatives, best first."""
        return ((self.chosen,) if self.chosen else ()) + self.alternatives

    def rejections_by_rule(self) -> dict[str, int]:
        """How many candidates each rule rejected, sorted by rule id."""
        rejected = self.rejected
        if isinstance(rejected, Rejections):
            return rejected.by_rule()
        counts = Counter(reason.rule for r in rejected for reason in r.reasons)
        return dict(sorted(counts.items()))

    def _example_indices(self) -> dict[str, int]:
        """For each rule, sorted by rule id, the index of the first rejection carrying it."""
        rejected = self.rejected
        if isinstance(rejected, Rejections):
            return rejected.example_indices()
        return Rejections(records=rejected).example_indices()

    def rejection_examples(self) -> dict[str, Rejection]:
        """For each rule, sorted by rule id, the first rejection (canonical order) it rejected."""
        return {rule: self.rejected[index] for rule, index in self._example_indices().items()}

    def listed_rejections(self, rejections: RejectionListing = DEFAULT_REJECTIONS) -> tuple[Rejection, ...]:
        """The rejections a document lists: all of them, or the rule examples (canonical order)."""
        if rejections == "all":
            return tuple(self.rejected)
        if rejections != "summary":
            raise IntentError(
                f"must be 'all' or 'summary' (got {described(rejections)}). To fix: "
                "rejections='summary' (one example per rule) or 'all' (every rejection)",
                path="rejections",
            )
        return tuple(self.rejected[i] for i in sorted(set(self._example_indices().values())))

    def to_dict(self, *, rejections: RejectionListing = DEFAULT_REJECTIONS) -> dict[str, Any]:
        """The ``decide --format json`` document; ``rejections`` says which rejections ``rejected``
        lists (default ``summary``: one example per rule; ``all``: every one)."""
        return {
            "intent": {"name": self.intent_name, "sha256": self.intent_sha256, "spec": self.intent_spec},
            "pin": {
                "provider": self.pin.get("provider"),
                "region": self.pin.get("region"),
                "require": list(self.pin.get("require", ())),
            },
            "catalog": {
                "version": self.catalog_version,
                "as_of": self.catalog_as_of,
                "sha256": self.catalog_sha256,
            },
            "decision": self.chosen.to_dict() if self.chosen else None,
            "alternatives": [p.to_dict() for p in self.alternatives],
            "rejected": [r.to_dict() for r in self.listed_rejections(rejections)],
            "rejections_by_rule": self.rejections_by_rule(),
            "summary": {
                "considered": self.considered,
                "feasible": self.feasible,
                "rejected": len(self.rejected),
                "rejections_listed": rejections,
                "pinned_out": dict(sorted(self.pinned_out.items())),
            },
            "trade_off": self.trade_off,
            "nearest_misses": list(self.nearest_misses),
            "explanation": list(self.explanation),
            "lock": dict(self.lock) if self.lock is not None else None,
            "accounts": dict(self.accounts) if self.accounts is not None else None,
        }

    def to_json(self, *, indent: int | None = 2, rejections: RejectionListing = DEFAULT_REJECTIONS) -> str:
        """The decision document as JSON: stable key order, byte-identical for equal inputs."""
        return json.dumps(self.to_dict(rejections=rejections), indent=indent, ensure_ascii=False) + "\n"
