"""Sizing: how many instances of a machine shape the workload needs, and what they deliver.

This is the ONLY engine module that calls the performance model (``computeops_cdk.perf``), and only
through its public names, so the model stays replaceable. Estimates are memoised by their inputs
(model, precision, accelerator, accelerator count, ...): instance types of different providers
that share a shape (8 x H100-SXM) are estimated once, and repeated decisions reuse them.

Every estimate carries an uncertainty band (``perf.uncertainty``: p10 and p90 of measured /
estimated speed from the model's held-out validation). Sizing keeps its promise at the band's
conservative (p10) point, plus ``preferences.capacity_headroom``:

Inference: one instance (or, on a multi-node shape, the fewest instances that hold the model)
forms a serving group; groups are independent replicas, so the deployment is
``ceil(output_tokens_per_s x (1 + headroom) / (group_tokens_per_s x p10))`` groups, at the largest
batch whose TTFT/TPOT divided by p10 still meet the targets. Training: the fewest instances
(doubling from one; more than one only on a multi-node shape) that hold the model, can use their
accelerators for the batch, and meet the deadline at p10 with the headroom (or just hold it,
without a deadline), and the next two doublings; the cheapest of these (fewest instance-hours,
hence cheapest for every offer of the shape) is kept. A job's hours include STARTUP_HOURS.
The sizing also records what the central estimate alone would need, so the explanation can say
what the margin costs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Literal

from .. import perf
from .._limits import MAX_INSTANCES  # the largest deployment considered, shared with the CLI
from ..catalog import Accelerator, InstanceType
from ..errors import DoesNotFitError, EstimateError
from ..intent import Workload
from ._billing import STARTUP_HOURS
from ._decision import Reason

__all__ = ["MAX_INSTANCES", "Calibration", "Sizer", "Sizing", "model_spec", "sizer_for"]


STACK_SERVING_ENGINE: dict[str, tuple[str, str]] = {"amd": ("vllm", "0.10.1")}
"""platform -> (engine, release) a decision naming no ``serving.engine`` is sized for there: the
engine the synthesized stacks run, where the model's unnamed estimate describes a build no stack
runs. AMD: the unnamed estimate is AMD's tuned MLPerf v4.1 build (``ROCM_SERVING_EFF``); the stacks
boot vLLM 0.10.1 (``targets.DEFAULT_VLLM_ROCM_IMAGE``, a test keeps the two equal), which AMD's own
tables measure at about half of it (``VLLM_ROCM_FACTOR``). NVIDIA and TPU stacks run vLLM too,
whose rule there is the unnamed estimate, so nothing is named for them."""

_GROUP_SIZES = (1, 2, 4, 8, 16)
"""Instances one inference replica may span on a multi-node shape."""

_SIZES_AFTER_FIRST = 2
"""Training: after the fewest instances that work, this many doublings are also estimated and the
cheapest (fewest instance-hours) is kept; scaling out rarely pays, but the model decides."""


class _CentralLater:
    """Sizing's base: its ``central_instances`` may be worked out when first read.

    An inference sizing's central figure takes one more estimate per machine shape (the intent's own
    latency targets instead of the tightened ones), and only feasible candidates' are ever read (the
    margin line, the placements): support-chat's first decide sizes ~100 shapes that fit, ~26 of
    them feasible. Until it is read the field's slot is unset and ``_central_later`` holds the call
    (a ``functools.partial`` of the estimate's inputs, never the Sizer: a sizing is kept in
    weak mappings keyed by its Sizer); any read (the attribute, repr, ==, hash, ``replace``,
    pickling) fills the slot, with the number the eager call gave (the estimate is pure)."""

    __slots__ = ("_central_later",)

    if not TYPE_CHECKING:  # mypy would otherwise accept any attribute name on a Sizing

        def __getattr__(self, name):
            if name != "central_instances":
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            try:
                later = object.__getattribute__(self, "_central_later")
            except AttributeError:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}") from None
            if later is not None:  # two threads may both compute it: the same number
                object.__setattr__(self, "central_instances", later())
                object.__setattr__(self, "_central_later", None)
            return object.__getattribute__(self, "central_instances")


def _central_later(sizing: Sizing, compute: Callable[[], int | None]) -> Sizing:
    """``sizing`` with its ``central_instances`` made by ``compute()`` when first read."""
    object.__delattr__(sizing, "central_instances")
    object.__setattr__(sizing, "_central_later", compute)
    return sizing


@dataclass(frozen=True, slots=True, kw_only=True)
class Sizing(_CentralLater):
    """A sized deployment of one instance type, or the reasons it cannot meet the intent."""

    instances: int
    reasons: tuple[Reason, ...] = ()
    """Empty when the deployment meets every performance constraint."""
    tokens_per_s: float = 0.0
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    hours: float | None = None
    step_time_s: float | None = None
    mfu: float | None = None
    tensor_parallel: int | None = None
    replicas: int | None = None
    memory_gb_per_accelerator: float | None = None
    concurrency_per_replica: int | None = None
    """Inference: requests in flight per model replica the estimate assumed (vLLM's --max-num-seqs)."""
    group_instances: int = 1
    """Instances one model replica spans (inference); > 1 needs a multi-node fabric."""
    model_version: str = ""
    assumptions: tuple[str, ...] = ()
    band: tuple[float, float] = (1.0, 1.0)
    """(p10, p90) multipliers of the estimated speed (perf.uncertainty)."""
    evidence: str = ""
    """validated | extrapolated | upper_bound | measured (perf.Uncertainty.evidence)."""
    central_instances: int | None = None
    """Instances the central estimate alone (no band, no headroom) would need; None if it misses."""
    hours_p10: float | None = None
    """Training: hours at the band's conservative point (what the deadline is checked against)."""
    central_hours: float | None = None
    """Training: hours of the deployment the central estimate alone would choose."""
    deadline_needed: float | None = None
    """Training that misses its deadline: the deadline_hours that would admit it (p10 x headroom)."""
    pipeline_parallel: int | None = None
    micro_batches: int | None = None

    @property
    def tokens_per_s_p10(self) -> float:
        return self.tokens_per_s * self.band[0]

    @property
    def tokens_per_s_p90(self) -> float:
        return self.tokens_per_s * self.band[1]

    @property
    def needs_fabric(self) -> bool:
        """True when one replica or one training job spans several instances."""
        return self.group_instances > 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """A serving efficiency measured in production (``computeops observe``) for one model at one
    precision on one accelerator. It replaces the model's uncertainty band there: the deployment is
    sized at ``factor`` x the estimate's throughput and its latencies are checked at the estimate's /
    ``factor``, instead of trusting the datasheet extrapolation.

    Attributes:
        model: the intent's model name, as the measured deployment's intent gave it.
        precision: the intent's precision.
        accelerator: catalog accelerator id.
        factor: measured / estimated tokens/s at the measured load, in (0, 4].
        source: where it was measured (lock entry and time), quoted in the assumptions.
    """

    model: str
    precision: str
    accelerator: str
    factor: float
    source: str

    def __post_init__(self) -> None:
        if (
            isinstance(self.factor, bool)
            or not isinstance(self.factor, int | float)
            or not 0 < self.factor <= 4
        ):
            raise EstimateError(
                f"a calibration factor must be a number in (0, 4] (got {self.factor!r} for "
                f"{self.accelerator})"
            )


def model_spec(workload: Workload) -> perf.ModelSpec:
    """The performance model's spec for the workload's model (registry first, else from its size)."""
    ref = workload.model
    try:
        return perf.resolve_model(ref.name)
    except EstimateError:
        if ref.params_b is None:  # the intent validator already rejects this
            raise
        return perf.model_from_params(ref.params_b, active_params_b=ref.active_params_b, name=ref.name)


class _Same:
    """A frozen record as a cache key, hashed once: equal to the key of an equal record.

    A record's hash reads every field (about 1.5 us for an Accelerator or a ModelSpec), and a cold
    decide's sizing hashed them ~1,100 times as the keys of its caches (a Sizer's sizings, the
    estimates below) for ~50 records; ``_key`` makes each record's key once (found by identity) and
    the caches hash that. Equal records of another identity (a catalog loaded again) give equal
    keys, so they share the entries, as the records themselves did."""

    __slots__ = ("_hash", "record")

    def __init__(self, record: object) -> None:
        self.record = record
        self._hash = hash(record)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Same):
            return NotImplemented
        return self.record is other.record or bool(self.record == other.record)


_KEYS: dict[int, _Same] = {}
"""id(record) -> its key. The key holds the record, so no other object takes its id while kept."""
_KEYS_KEPT = 1024


def _key(record: object) -> _Same:
    """``record``'s cache key (``_Same``), made once per record (up to ``_KEYS_KEPT`` kept)."""
    found = _KEYS.get(id(record))
    if found is not None and found.record is record:
        return found
    if len(_KEYS) >= _KEYS_KEPT:
        _KEYS.clear()
    found = _KEYS[id(record)] = _Same(record)
    return found


_INFERENCE: dict[tuple[object, ...], perf.InferenceEstimate] = {}
"""The inference estimates the sizings asked for, by their inputs (the records by ``_key``)."""
_TRAINING: dict[tuple[object, ...], perf.TrainingEstimate] = {}
_ESTIMATES_KEPT = 8192
"""Estimates kept of each kind (then forgotten all at once; they are pure, made again if asked)."""


def _inference(
    model: perf.ModelSpec,
    precision: str,
    acc: Accelerator,
    count: int,
    per_node: int,
    lengths: tuple[int, int],
    targets: tuple[float | None, float | None],
    engine: tuple[str | None, str | None, float] = (None, None, 0.0),
) -> perf.InferenceEstimate:
    """``perf.estimate_inference``, kept; ``engine``: (engine, its release, prefix-cache share)."""
    key = (_key(model), precision, _key(acc), count, per_node, lengths, targets, engine)
    found = _INFERENCE.get(key)
    if found is None:  # two threads may both make it: the same estimate
        if len(_INFERENCE) >= _ESTIMATES_KEPT:
            _INFERENCE.clear()
        found = _INFERENCE[key] = perf.estimate_inference(
            model,
            precision=precision,  # type: ignore[arg-type]
            accelerator=acc,
            count=count,
            input_tokens=lengths[0],
            output_tokens=lengths[1],
            ttft_ms=targets[0],
            tpot_ms=targets[1],
            gpus_per_node=per_node,
            engine=engine[0],
            engine_version=engine[1],
            prefix_cache_share=engine[2],
        )
    return found


def _training(
    model: perf.ModelSpec,
    precision: str,
    acc: Accelerator,
    count: int,
    per_node: int,
    shape: tuple[int, int, Literal["full", "lora"]],
    fabric: bool,
) -> perf.TrainingEstimate:
    key = (_key(model), precision, _key(acc), count, per_node, shape, fabric)
    found = _TRAINING.get(key)
    if found is None:
        if len(_TRAINING) >= _ESTIMATES_KEPT:
            _TRAINING.clear()
        found = _TRAINING[key] = perf.estimate_training(
            model,
            precision=precision,  # type: ignore[arg-type]
            accelerator=acc,
            count=count,
            seq_len=shape[0],
            global_batch_tokens=shape[1],
            method=shape[2],
            gpus_per_node=per_node,
            multi_node_fabric=fabric,
        )
    return found


def _measured_note(c: Calibration) -> str:
    return (
        f"sized at x{c.factor:.2f} of this estimate: the efficiency measured in production ({c.source}) "
        f"replaces the model's uncertainty band for {c.model} at {c.precision} on {c.accelerator}"
    )


def _gb(value: float) -> str:
    return f"{value:,.1f} GB"


def _central_inference(
    model: perf.ModelSpec,
    precision: str,
    acc: Accelerator,
    per_node: int,
    group: int,
    lengths: tuple[int, int],
    targets: tuple[float | None, float | None],
    rate: float,
    engine: tuple[str | None, str | None, float] = (None, None, 0.0),
) -> int | None:
    """Instances the central estimate alone would size for ``rate`` output tokens/s (no band, no
    headroom)."""
    est = _inference(model, precision, acc, group * per_node, per_node, lengths, targets, engine)
    if not est.fits or est.tokens_per_s <= 0 or Sizer._latency(est, *targets, 1.0):
        return None
    # At least one group: a rate far below one group's throughput (0.001 tokens/s) rounded to zero
    # groups, a central figure of "x0 at 0 USD" and a division by zero in the margin line.
    groups = max(1, math.ceil(rate / est.tokens_per_s - 1e-9))
    return groups * group if groups * group <= MAX_INSTANCES else None


_SIZINGS_KEPT = 2048
"""Sizings one Sizer keeps (64 Sizers are kept: at most 131,072 sizings in all)."""


@lru_cache(maxsize=64)
def sizer_for(workload: Workload, headroom: float = 0.0, calibrations: tuple[Calibration, ...] = ()) -> Sizer:
    """The Sizer of a workload, headroom and calibrations, shared by every decision about them (pure,
    so safe). Only calibrations of the workload's own model and precision apply."""
    model = workload.model
    mine = {c.accelerator: c for c in calibrations if (c.model, c.precision) == (model.name, model.precision)}
    return Sizer(workload, model_spec(workload), headroom, mine)


class Sizer:
    """Sizes instance types for one workload; results are cached per (accelerator, count, multi-node)."""

    def __init__(
        self,
        workload: Workload,
        model: perf.ModelSpec,
        headroom: float = 0.0,
        calibrated: dict[str, Calibration] | None = None,
    ) -> None:
        self._workload = workload
        self._headroom = headroom
        self._model = model
        self._calibrated = calibrated or {}
        self._precision = workload.model.precision
        # Keyed by the accelerator record's value: keyed by its id string, a Sizer shared by decisions
        # over two catalogs sized the second catalog's accelerator with the first's specs; by the
        # record's identity, it kept every record of every catalog loaded since (equal records size
        # alike, so they share an entry). At most _SIZINGS_KEPT, then forgotten and made again: one
        # catalog needs a few hundred, and a long-lived process (the Terraform provider) deciding over
        # many catalogs kept every one of them (about 0.55 MB per catalog, reviewer 4).
        self._cache: dict[tuple[_Same, int, bool], Sizing] = {}

    def size(self, itype: InstanceType, acc: Accelerator) -> Sizing:
        """The deployment of ``itype`` that meets the intent, or why none does."""
        key = (_key(acc), itype.accelerator_count, itype.multi_node)
        found = self._cache.get(key)
        if found is None:
            try:
                if self._workload.type == "inference":
                    found = self._size_inference(acc, itype.accelerator_count, itype.multi_node)
                else:
                    found = self._size_training(acc, itype.accelerator_count, itype.multi_node)
            except DoesNotFitError as err:  # the model reports misfits as fits=False; this is a fallback
                found = Sizing(instances=1, reasons=(Reason(rule="memory.fit", message=str(err)),))
            except EstimateError as err:
                found = Sizing(instances=1, reasons=(Reason(rule="spec.unknown", message=str(err)),))
            if len(self._cache) >= _SIZINGS_KEPT:
                self._cache.clear()
            self._cache[key] = found
        return found

    # -- inference ------------------------------------------------------------------------------

    def _size_inference(self, acc: Accelerator, per_node: int, multi_node: bool) -> Sizing:
        serving = self._workload.serving
        assert serving is not None  # the intent guarantees it for inference
        name, version, stack_note = serving.engine, serving.engine_version, ""
        if name is None and version is None and (deployed := STACK_SERVING_ENGINE.get(perf.platform_of(acc))):
            name, version = deployed
            stack_note = (
                f"no serving.engine named: sized for {name} {version}, the engine the stacks run on "
                f"{acc.id} (name serving.engine to size for another)"
            )
        band = perf.uncertainty(
            acc.id,
            "inference",
            input_tokens=serving.input_tokens,
            output_tokens=serving.output_tokens,
            tpu=acc.is_tpu,
            engine=name,
            engine_version=version,
        )
        calibration = self._calibrated.get(acc.id)
        if calibration is not None:
            # Production measured this model here: the measurement replaces the model's prior band.
            band = replace(band, low=calibration.factor, high=calibration.factor, basis=calibration.source)
        low = band.low
        lengths = (serving.input_tokens, serving.output_tokens)
        targets = (serving.ttft_ms, serving.tpot_ms)
        engine = (name, version, serving.prefix_cache_share)
        if serving.engine is not None:
            # a named engine is a hard constraint: one that does not run on this accelerator rejects it
            refused = perf.engine_refusal(serving.engine, perf.platform_of(acc))
            if refused is not None:
                return Sizing(instances=1, reasons=(Reason(rule="engine.platform", message=refused),))
        # The operating point must meet the targets even if reality is as slow as the p10 point.
        ttft, tpot = targets
        tight = (None if ttft is None else ttft * low, None if tpot is None else tpot * low)
        group, est = 1, None
        for group in _GROUP_SIZES if multi_node else (1,):
            est = _inference(
                self._model, self._precision, acc, group * per_node, per_node, lengths, tight, engine
            )
            if est.fits:
                break
        assert est is not None
        if not est.fits:
            return Sizing(instances=group, reasons=(self._no_fit(est, acc, group, per_node, multi_node),))
        if stack_note:
            est = replace(est, assumptions=(stack_note, *est.assumptions))
        if calibration is not None:
            est = replace(est, assumptions=(*est.assumptions, _measured_note(calibration)))
        reasons = self._latency(est, serving.ttft_ms, serving.tpot_ms, low)
        needed = serving.output_tokens_per_s * (1 + self._headroom)
        per_group = est.tokens_per_s * low
        groups = math.ceil(needed / per_group - 1e-9) if per_group > 0 else math.inf
        if groups * group > MAX_INSTANCES:
            per = f"{per_group:,.0f} tok/s (p10) per {group} instance(s)"
            reasons += (
                Reason(
                    rule="throughput",
                    message=f"sustaining {needed:,.0f} output tok/s at {per} needs more than "
                    f"{MAX_INSTANCES} instances, the largest deployment considered",
                ),
            )
            groups = MAX_INSTANCES // group
        groups = max(1, int(groups))
        sizing = Sizing(
            instances=groups * group,
            reasons=reasons,
            tokens_per_s=est.tokens_per_s * groups,
            ttft_ms=est.ttft_ms,
            tpot_ms=est.tpot_ms,
            tensor_parallel=est.tensor_parallel,
            replicas=est.replicas * groups,
            memory_gb_per_accelerator=est.memory_gb_per_accelerator,
            concurrency_per_replica=est.concurrency,
            group_instances=group,
            model_version=est.model_version,
            assumptions=est.assumptions,
            band=(band.low, band.high),
            evidence=band.evidence,
        )
        # the same inputs as the estimate above, targets untightened; the estimate cannot fail where
        # that one did not (the same model, accelerator and count, positive targets)
        central = partial(
            _central_inference,
            self._model,
            self._precision,
            acc,
            per_node,
            group,
            lengths,
            targets,
            serving.output_tokens_per_s,
            engine,
        )
        return _central_later(sizing, central)

    @staticmethod
    def _latency(
        est: perf.InferenceEstimate, ttft: float | None, tpot: float | None, low: float
    ) -> tuple[Reason, ...]:
        """Targets missed at batch 1 by the latencies at the band's conservative point (/ low)."""
        reasons: list[Reason] = []
        for rule, label, value, target, digits in (
            ("latency.ttft", "TTFT", est.ttft_ms, ttft, 0),
            ("latency.tpot", "TPOT", est.tpot_ms, tpot, 1),
        ):
            if target is None or value / low <= target:
                continue
            at = "" if low == 1.0 else f" ({value / low:,.{digits}f} ms at the p10 point, x1/{low:g})"
            reasons.append(
                Reason(
                    rule=rule,
                    message=f"estimated {label} {value:,.{digits}f} ms{at} exceeds {label.lower()}_ms "
                    f"{target:g} even at batch 1",
                )
            )
        return tuple(reasons)

    def _no_fit(
        self,
        est: perf.InferenceEstimate | perf.TrainingEstimate,
        acc: Accelerator,
        instances: int,
        per_node: int,
        multi_node: bool,
    ) -> Reason:
        count = instances * per_node
        needed = est.memory_needed_gb
        have = est.memory_available_gb_per_accelerator or (acc.memory_gb or 0.0)
        usable = est.memory_usable_gb_per_accelerator or have
        need_text = f"needs {_gb(needed)}" if needed else "does not fit"
        scale = f" even on {instances} instances" if multi_node else "; the instance type is not multi-node"
        share = (
            f" of {_gb(have)} each: the runtime's {usable / have:.0%} memory share"
            if 0 < usable < have
            else " each"
        )
        return Reason(
            rule="memory.fit",
            message=(
                f"{self._model.name} at {self._precision} {need_text} but {count} x {acc.id} offer "
                f"{_gb(count * usable)} usable ({_gb(usable)}{share}){scale}"
            ),
        )

    # -- training -------------------------------------------------------------------------------

    def _size_training(self, acc: Accelerator, per_node: int, multi_node: bool) -> Sizing:
        training = self._workload.training
        assert training is not None  # the intent guarantees it for training and fine_tuning
        band = perf.uncertainty(acc.id, "training", seq_len=training.seq_len)
        deadline = training.deadline_hours
        # At the p10 point, with the headroom, the job must still finish within the deadline.
        limit = None if deadline is None else deadline / (1 + self._headroom)
        sizes = [2**i for i in range(int(math.log2(MAX_INSTANCES)) + 1)] if multi_node else [1]
        fastest: tuple[int, perf.TrainingEstimate, float] | None = None
        feasible: list[tuple[int, perf.TrainingEstimate, float]] = []
        central: tuple[int, float] | None = None
        est = layout = unfit = None
        for instances in sizes:
            est = self._train(acc, instances, per_node, multi_node)
            if est.layout_error:
                layout = layout or est
                continue
            if not est.fits or est.tokens_per_s <= 0:
                unfit = (instances, est)
                continue
            compute_h = training.tokens / est.tokens_per_s / 3600
            hours, p10 = compute_h + STARTUP_HOURS, compute_h / band.low + STARTUP_HOURS
            if central is None and (deadline is None or hours <= deadline):
                central = (instances, hours)
            if limit is None or p10 <= limit:
                feasible.append((instances, est, hours))
                if len(feasible) == _SIZES_AFTER_FIRST + 1:
                    break
            elif fastest is None or hours < fastest[2]:
                fastest = (instances, est, hours)
        if feasible:
            # Cheapest job: fewest instance-hours (the offer's price per instance is a constant factor).
            instances, est, hours = min(feasible, key=lambda f: (f[0] * f[2], f[0]))
            return replace(
                self._trained(est, instances, hours, band),
                central_instances=central[0] if central else None,
                central_hours=central[1] if central else None,
            )
        assert est is not None
        if fastest is None:
            reasons: tuple[Reason, ...] = ()
            if unfit is not None:
                reasons += (self._no_fit(unfit[1], acc, unfit[0], per_node, multi_node),)
            if layout is not None:
                reasons += (self._unusable(layout, acc),)
            return Sizing(instances=unfit[0] if unfit else sizes[0], reasons=reasons)
        return self._missed_deadline(acc, per_node, multi_node, fastest, band)

    def _unusable(self, est: perf.TrainingEstimate, acc: Accelerator) -> Reason:
        return Reason(
            rule="training.layout",
            message=f"{self._model.name} on {acc.id}: {est.layout_error}. To fix: a smaller deployment, "
            "or a larger global_batch_tokens",
        )

    def _train(
        self, acc: Accelerator, instances: int, per_node: int, multi_node: bool
    ) -> perf.TrainingEstimate:
        training = self._workload.training
        assert training is not None
        shape = (training.seq_len, training.global_batch_tokens, training.method)
        return _training(self._model, self._precision, acc, instances * per_node, per_node, shape, multi_node)

    def _missed_deadline(
        self,
        acc: Accelerator,
        per_node: int,
        multi_node: bool,
        fastest: tuple[int, perf.TrainingEstimate, float],
        band: perf.Uncertainty,
    ) -> Sizing:
        instances, est, hours = fastest
        assert self._workload.training is not None
        deadline = self._workload.training.deadline_hours
        p10 = (hours - STARTUP_HOURS) / band.low + STARTUP_HOURS
        scale = (
            f"the fastest size considered (up to {MAX_INSTANCES} instances)"
            if multi_node
            else "one instance (the instance type is not multi-node, so it cannot scale out)"
        )
        margin = f" x (1 + capacity_headroom {self._headroom:g})" if self._headroom else ""
        reason = Reason(
            rule="deadline",
            message=(
                f"{instances} instance(s) ({instances * per_node} x {acc.id}) take {hours:,.1f} h "
                f"({p10:,.1f} h at the p10 point{margin}), over deadline_hours {deadline:g}; that is {scale}"
            ),
        )
        return replace(
            self._trained(est, instances, hours, band),
            reasons=(reason,),
            deadline_needed=p10 * (1 + self._headroom),
        )

    def _trained(
        self, est: perf.TrainingEstimate, instances: int, hours: float, band: perf.Uncertainty
    ) -> Sizing:
        p10 = (hours - STARTUP_HOURS) / band.low + STARTUP_HOURS
        return Sizing(
            instances=instances,
            tokens_per_s=est.tokens_per_s,
            hours=hours,
            step_time_s=est.step_time_s,
            mfu=est.mfu,
            tensor_parallel=est.tensor_parallel,
            replicas=est.replicas,
            memory_gb_per_accelerator=est.memory_gb_per_accelerator,
            group_instances=instances,
            model_version=est.model_version,
            assumptions=est.assumptions,
            band=(band.low, band.high),
            evidence=band.evidence,
            hours_p10=p10,
            pipeline_parallel=est.pipeline_parallel,
            micro_batches=est.micro_batches,
        )
