"""``decide``: resolve names, evaluate every offer, score and rank the feasible ones, explain.

Pure and deterministic (no clock, no network, no printing; the catalog's record order does not
matter, see ``_index``); floats in the output are rounded to fixed decimals.
"""

from __future__ import annotations

import gc
import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from ..catalog import HOURS_PER_MONTH, Catalog, load_catalog
from ..errors import CatalogError, IntentError, NoFeasiblePlacementError, described, shown
from ..intent import WorkloadIntent
from ._accounts import accounts_line, team_accounts, unlisted_names
from ._columns import offer_columns
from ._decision import SCORE_DIMENSIONS, Decision, EstimateSummary, Placement, UnitCost
from ._evaluate import Candidate, Evaluation, evaluate_each, evaluator
from ._explain import explanation, trade_off
from ._groups import evaluate_grouped
from ._index import catalog_index
from ._margin import billing_line, margin_lines
from ._misses import UNRELAXABLE, nearest_misses, unsupported_fix
from ._pin import Pin
from ._price_age import age_days
from ._rank import distinct, rank, score_all
from ._resolve import Resolved, resolve
from ._rules import compliance_rules
from ._scores import compliance_credit
from ._sizing import Calibration, sizer_for
from ._suspect import suspect_prices

if TYPE_CHECKING:
    from ..accounts import Accounts

__all__ = ["DEFAULT_ALTERNATIVES", "Ranked", "as_catalog", "as_intent", "decide", "ranked"]

DEFAULT_ALTERNATIVES = 10
"""Ranked alternatives a Decision lists after the chosen placement."""


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


UNIT_COST_DIGITS = 4
"""A unit cost keeps 4 decimals and at least 4 significant digits (0.002475 stays 0.002475)."""


def _significant(value: float) -> float:
    if value <= 0 or not math.isfinite(value):
        return round(value, UNIT_COST_DIGITS)
    leading = math.floor(math.log10(value))
    return round(value, max(UNIT_COST_DIGITS, UNIT_COST_DIGITS - 1 - leading))


def _placement(
    c: Candidate, intent: WorkloadIntent, catalog_as_of: str = "", memo: _Memo | None = None
) -> Placement:
    """The Decision's record of a scored candidate (``memo``: the decision's attested scopes)."""
    row, s = c.row, c.sizing
    assert row.itype is not None and c.hourly is not None
    unit = "usd_per_million_output_tokens" if intent.workload.type == "inference" else "usd_per_training_step"
    return Placement(
        provider=row.offer.provider,
        instance_type=row.offer.instance_type,
        accelerator=row.itype.accelerator,
        accelerators_per_instance=row.itype.accelerator_count,
        instances=s.instances,
        region=row.offer.region,
        country=row.region.country if row.region else None,
        continent=row.region.continent if row.region else "",
        pricing=row.offer.pricing,
        hourly_usd=round(c.hourly, 4),
        monthly_usd=round(c.hourly * HOURS_PER_MONTH, 2),
        unit_cost=UnitCost(unit=unit, value=_significant(c.unit_cost)),  # type: ignore[arg-type]
        total_usd=_r(c.total, 2),
        hours=_r(s.hours, 2),
        estimate=EstimateSummary(
            tokens_per_s=round(s.tokens_per_s, 1),
            ttft_ms=_r(s.ttft_ms, 2),
            tpot_ms=_r(s.tpot_ms, 2),
            model=s.model_version,
            assumptions=s.assumptions,
            mfu=_r(s.mfu, 4),
            step_time_s=_r(s.step_time_s, 4),
            tensor_parallel=s.tensor_parallel,
            replicas=s.replicas,
            memory_gb_per_accelerator=_r(s.memory_gb_per_accelerator, 2),
            concurrency_per_replica=s.concurrency_per_replica,
            tokens_per_s_p10=round(s.tokens_per_s_p10, 1),
            tokens_per_s_p90=round(s.tokens_per_s_p90, 1),
            evidence=s.evidence,
            hours_p10=_r(s.hours_p10, 2),
            central_instances=s.central_instances,
            pipeline_parallel=s.pipeline_parallel,
            micro_batches=s.micro_batches,
        ),
        attestations=_attested(c, {} if memo is None else memo),
        scores=dict(zip(SCORE_DIMENSIONS, c.parts, strict=True)),
        score=c.score,
        price_source=row.offer.source,
        price_as_of=row.offer.as_of,
        price_age_days=age_days(row.offer.as_of, catalog_as_of) if catalog_as_of else None,
        list_hourly_usd=_r(c.list_hourly, 4),
        account_terms=c.terms,
        term_months=row.offer.term_months,
        commitment_usd=_r(c.commitment, 2),
        whole_term_charged=c.whole_term,
    )


_Memo = dict[tuple[str, str, tuple[str, ...]], tuple[str, ...]]


def _attested(c: Candidate, memo: _Memo) -> tuple[str, ...]:
    """Scopes the provider itself attests (provider_claimed) in the candidate's region on every
    service the placement runs on; ``memo`` keeps them by (provider, region, services)."""
    provider, code = c.row.provider, c.row.offer.region
    key = (provider.id, code, c.services)
    found = memo.get(key)
    if found is None:
        scopes = {a.scope for a in provider.attestations if a.evidence == "provider_claimed"}
        attested = (s for s in scopes if not compliance_rules(provider, code, (s,), c.services))
        found = memo[key] = tuple(sorted(attested))
    return found


def _caps(intent: WorkloadIntent) -> dict[str, float | None]:
    k, s, t = intent.constraints, intent.workload.serving, intent.workload.training
    return {
        "max_hourly_usd": k.max_hourly_usd,
        "max_monthly_usd": k.max_monthly_usd,
        "max_total_usd": k.max_total_usd,
        "deadline_hours": t.deadline_hours if t else None,
        "ttft_ms": s.ttft_ms if s else None,
        "tpot_ms": s.tpot_ms if s else None,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class _Header:
    """What every Decision of one run shares, chosen or not."""

    intent: WorkloadIntent
    catalog: Catalog
    result: Evaluation
    pin: Pin
    accounts: Accounts | None = None
    unlisted: tuple[str, ...] = ()
    """Warnings about names the catalog does not list (``unlisted_names``): explanation lines."""

    def decision(
        self,
        *,
        chosen: Placement | None = None,
        alternatives: tuple[Placement, ...] = (),
        explanation: tuple[str, ...] = (),
        trade_off: str = "",
        nearest_misses: tuple[str, ...] = (),
    ) -> Decision:
        return Decision(
            intent_name=self.intent.name,
            intent_sha256=self.intent.sha256,
            catalog_version=self.catalog.version,
            catalog_as_of=self.catalog.as_of,
            catalog_sha256=self.catalog.sha256,
            chosen=chosen,
            alternatives=alternatives,
            rejected=self.result.rejections(),
            explanation=explanation,
            trade_off=trade_off,
            considered=len(self.result.feasible) + len(self.result.rejected),
            feasible=len(self.result.feasible),
            pinned_out=dict(sorted(self.result.pinned_out.items())),
            nearest_misses=nearest_misses,
            intent_spec=json.loads(self.intent.canonical_json()),
            pin={
                "provider": self.pin.provider,
                "region": self.pin.region,
                "require": tuple(self.pin.require),
            },
            accounts=(
                None
                if self.accounts is None
                else {"path": self.accounts.path or None, "sha256": self.accounts.sha256}
            ),
        )


def _infeasible(header: _Header) -> NoFeasiblePlacementError:
    result = header.result
    # only the offers whose every rule can be relaxed are read (the rest are never a miss)
    misses = nearest_misses(result.without(UNRELAXABLE), _caps(header.intent))
    admissible = [c for c in result.pinned_out_feasible if _choosable_unpinned(c, header.pin)]
    if admissible:
        best = min(admissible, key=lambda c: (c.unit_cost, c.hourly or 0.0))
        o = best.row.offer
        misses.append(
            f"removing the pin would admit {o.provider} {o.instance_type} in {o.region} ({o.pricing})"
        )
    draft = header.decision()
    by_rule = draft.rejections_by_rule()
    if draft.rejected:
        lines = [
            f"no feasible placement for intent {header.intent.name!r}: all {len(draft.rejected):,} "
            "candidates were rejected",
            "rejections by rule: " + ", ".join(f"{r} {n:,}" for r, n in by_rule.items()),
        ]
    else:
        where = "inside the pin" if draft.pinned_out else "in the catalog"
        lines = [f"no feasible placement for intent {header.intent.name!r}: there is no offer {where}"]
    if misses:
        lines.append("nearest misses:\n" + "\n".join(f"  - {m}" for m in misses))
    lines += header.unlisted  # a misspelt quota region may be why nothing is feasible
    lines.append(_fix(draft, header.pin, result.all_carry("target.unsupported")))
    # replace(), not a second header.decision(): the rejections are the same thousands of records.
    final = replace(draft, explanation=tuple(lines), nearest_misses=tuple(misses))
    document = final.to_dict  # built when someone reads err.document (the CLI's --format json)
    return NoFeasiblePlacementError(
        "\n".join(lines), rejections=draft.rejected, nearest_misses=misses, document=document, decision=final
    )


def _choosable_unpinned(candidate: Candidate, pin: Pin) -> bool:
    """Whether dropping the pin could really choose ``candidate``: only a provider whose target has a
    repeatable plan (Vast.ai's listings do not) is chosen, else ``target.unsupported`` rejects it."""
    if pin.targets is None:
        return "repeatable_plan" not in pin.unsupported
    features = pin.targets.get(candidate.row.offer.provider)
    return features is not None and "repeatable_plan" not in features


def _fix(draft: Decision, pin: Pin, unsupported: bool) -> str:
    """``unsupported``: every rejection carries ``target.unsupported`` (only then read)."""
    if draft.rejected:
        # When no target can express any candidate, relaxing the intent's constraints cannot help.
        return (unsupported and unsupported_fix(draft.rejected, pin)) or (
            "To fix: relax one of the constraints above, or widen providers, regions or accelerators."
        )
    if draft.pinned_out:  # offers exist, none where the pin points
        return "To fix: pin a provider/region that has offers (`computeops catalog list`), or drop the pin."
    return "To fix: decide over a catalog with offers (`computeops catalog list --catalog FILE` shows them)."


def decide(
    intent: WorkloadIntent | Mapping[str, Any] | str | os.PathLike[str],
    *,
    catalog: Catalog | str | os.PathLike[str] | None = None,
    pin: Pin | None = None,
    alternatives: int = DEFAULT_ALTERNATIVES,
    calibrations: Sequence[Calibration] = (),
    accounts: Accounts | str | os.PathLike[str] | None = None,
    locked: bool = False,
) -> Decision:
    """Choose where ``intent`` runs: the best feasible placement, ranked alternatives and rejections.

    Args:
        intent: a WorkloadIntent, a mapping as parsed from YAML/JSON, or the path of an intent file.
        catalog: the market catalog, or the path of a catalog JSON file (validated). Default: the
            embedded catalog (``load_catalog()``).
        pin: restrict the provider and/or region. Default: no pin.
        alternatives: how many ranked alternatives to list after the chosen one. Default: 10.
        calibrations: serving efficiencies measured in production (``computeops observe``); those
            of the intent's model and precision replace the datasheet extrapolation on their
            accelerator, labelled so in the estimate's assumptions. Default: none.
        accounts: the team's accounts (``computeops.accounts.yaml``: enabled providers, quotas,
            negotiated discounts, owned capacity), or its path. Default: the file named by
            ``$COMPUTEOPS_ACCOUNTS``, else none (every provider at list price).
        locked: the decision is for a locked workload (its synth, ``lock update``): a well-formed
            region or accelerator the catalog does not list is a ``Warning: intent`` line of the
            explanation, not an IntentError. Default: False.

    Raises:
        IntentError: the intent is invalid or not an intent at all, or it (or the pin) names an
            accelerator, region or provider the catalog lacks (a region or accelerator: unless
            ``locked``), or ``alternatives`` is not a whole number >= 0.
        CatalogError: ``catalog`` is neither a Catalog nor a readable, valid catalog file.
        NoFeasiblePlacementError: every candidate breaks a hard constraint; carries the rejections, the
            nearest misses and the JSON document with ``decision: null``.
    """
    # A float limit never equals the count (2.5 listed every distinct candidate); a string was a TypeError.
    if isinstance(alternatives, bool) or not isinstance(alternatives, int) or alternatives < 0:
        raise IntentError(
            f"must be a whole number >= 0 (got {alternatives!r}). To fix: e.g. alternatives=3, "
            "or 0 for the chosen placement only",
            path="alternatives",
        )
    if pin is not None and not isinstance(pin, Pin):
        example = shown(pin, limit=20) if isinstance(pin, str) else "'aws'"
        raise IntentError(
            f"must be a Pin (got {described(pin)}). To fix: pass pin=Pin(provider={example}) "
            f"(engine.Pin), or targets.placement_pin(provider={example}) for a placement that "
            "becomes Terraform",
            path="pin",
        )
    with _collector_paused():
        team = team_accounts(accounts)  # the accounts module is imported only when there are accounts
        run = ranked(
            as_intent(intent),
            as_catalog(catalog),
            pin if pin is not None else Pin(),
            calibrations,
            team,
            locked=locked,
        )
        return _decide(run, alternatives)


def as_intent(value: object) -> WorkloadIntent:
    """``decide``'s intent argument as a WorkloadIntent (IntentError for anything else)."""
    if isinstance(value, WorkloadIntent):
        return value
    if isinstance(value, Mapping):
        return WorkloadIntent.from_dict(dict(value))
    if isinstance(value, str | os.PathLike):
        return WorkloadIntent.from_file(value)
    raise IntentError(
        f"decide() takes a WorkloadIntent, a mapping or the path of a YAML/JSON intent "
        f"(got {type(value).__name__}). To fix: pass WorkloadIntent.from_file(path) or the path itself."
    )


def as_catalog(value: object) -> Catalog:
    """``decide``'s catalog argument as a Catalog (the embedded one for None; CatalogError otherwise)."""
    if value is None:
        return load_catalog()
    if isinstance(value, Catalog):
        return value
    if isinstance(value, str | os.PathLike):
        return load_catalog(value)
    raise CatalogError(
        f"catalog must be a Catalog or the path of a catalog JSON file (got {type(value).__name__}). "
        "To fix: pass load_catalog(path), the path itself, or leave it out for the embedded catalog."
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a decision allocates its many small acyclic
    records: its passes over them free nothing (reference counting does); the state is restored."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranked:
    """Every candidate of one run: the feasible scored and ranked, the rejected with reasons."""

    header: _Header
    resolved: Resolved

    @property
    def feasible(self) -> list[Candidate]:
        return self.header.result.feasible

    def placement(self, candidate: Candidate) -> Placement:
        """A scored feasible candidate as the Decision's record."""
        return _placement(candidate, self.header.intent, self.header.catalog.as_of)


def ranked(
    intent: WorkloadIntent,
    catalog: Catalog,
    pin: Pin,
    calibrations: Sequence[Calibration] = (),
    accounts: Accounts | None = None,
    *,
    locked: bool = False,
) -> Ranked:
    """Evaluate, score and rank every offer of ``catalog`` for ``intent`` inside ``pin``."""
    if not all(isinstance(c, Calibration) for c in calibrations):
        raise IntentError("must be a sequence of engine.Calibration records", path="calibrations")
    index = catalog_index(catalog)
    resolved = resolve(intent, catalog, pin, locked=locked)
    unlisted = unlisted_names(accounts, catalog) if accounts is not None else ()
    unlisted += resolved.unlisted
    sizer = sizer_for(intent.workload, intent.preferences.capacity_headroom, tuple(calibrations))
    rules = evaluator(intent, resolved, pin, sizer, suspect_prices(catalog), catalog.as_of, accounts)
    # by group of offers (_groups); a team's accounts price and limit offer by offer
    columns = offer_columns(catalog, index) if accounts is None else None
    result = evaluate_grouped(rules, columns) if columns is not None else evaluate_each(rules, index)
    if result.feasible:
        score_all(result.feasible, intent, index.regions_per_itype, resolved, catalog, columns)
        rank(result.feasible, by_position=result.by_position)
    header = _Header(
        intent=intent, catalog=catalog, result=result, pin=pin, accounts=accounts, unlisted=unlisted
    )
    return Ranked(header=header, resolved=resolved)


def _decide(run: Ranked, alternatives: int) -> Decision:
    header, result = run.header, run.header.result
    intent, catalog = header.intent, header.catalog
    if not result.feasible:
        raise _infeasible(header)
    best = distinct(result.feasible, alternatives + 1)
    memo: _Memo = {}
    top = [_placement(c, intent, catalog.as_of, memo) for c in best]
    chosen, runner_up = top[0], (top[1] if len(top) > 1 else None)
    compared = _compared(result.feasible, best, top, intent, catalog.as_of, memo)
    draft = header.decision()
    pinned = "".join(f"; {n:,} outside the pin ({rule})" for rule, n in draft.pinned_out.items())
    lines = explanation(
        intent,
        catalog,
        chosen,
        runner_up,
        counts={"considered": draft.considered, "feasible": draft.feasible, "rejected": len(draft.rejected)},
        by_rule=draft.rejections_by_rule(),
        weights=intent.preferences.weights.as_dict(),
        weak_evidence=compliance_credit(
            result.feasible[0].row.provider, chosen.region, result.feasible[0].services
        )[1],
        pinned=pinned,
        margin=_margin(result.feasible, intent),
        compared=compared,
        services=result.feasible[0].services,
    )
    terms = accounts_line(chosen, header.accounts)
    if terms or header.unlisted:  # right after the "Chosen:" line, with the names the catalog does not list
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("Chosen:")), len(lines))
        lines = (*lines[:at], *((terms,) if terms else ()), *header.unlisted, *lines[at:])
    # replace(), not a second header.decision(): the header fields are not worked out twice
    return replace(
        draft,
        chosen=chosen,
        alternatives=tuple(top[1:]),
        explanation=lines,
        trade_off=trade_off(chosen, *compared),
    )


def _margin(ranked: list[Candidate], intent: WorkloadIntent) -> tuple[str, ...]:
    lines = margin_lines(ranked[0], ranked, intent)
    if intent.workload.training is not None:
        lines += (billing_line(ranked[0]),)
    return lines


def _same_machine(a: Candidate, b: Candidate) -> bool:
    """Same accelerators in the same number at the same unit cost: a duplicate, not an alternative."""
    ia, ib = a.row.itype, b.row.itype
    assert ia is not None and ib is not None
    return (
        ia.accelerator == ib.accelerator
        and ia.accelerator_count * a.sizing.instances == ib.accelerator_count * b.sizing.instances
        and round(a.unit_cost, 6) == round(b.unit_cost, 6)
    )


def _compared(
    ranked: list[Candidate],
    best: list[Candidate],
    top: list[Placement],
    intent: WorkloadIntent,
    as_of: str = "",
    memo: _Memo | None = None,
) -> tuple[Placement | None, str]:
    """What the trade-off compares the chosen placement with: the cheapest feasible alternative when
    the chosen one is not the cheapest, else the best-ranked alternative that is not a duplicate
    (``top``: the placements of ``best``, already made)."""
    chosen = ranked[0]
    # ranked is in rank order, so the first of the cheapest is the best ranked of them
    cheapest = min(ranked, key=_RANKED_UNIT_COST)
    if cheapest.ranked_unit_cost < chosen.ranked_unit_cost:
        return _placement(cheapest, intent, as_of, memo), "the cheapest feasible alternative"
    for c, placement in zip(best[1:], top[1:], strict=True):
        if not _same_machine(chosen, c):
            return placement, "runner-up"
    return None, "runner-up"


_RANKED_UNIT_COST = attrgetter("ranked_unit_cost")
