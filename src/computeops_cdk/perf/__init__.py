"""The performance model: how much useful work a model does on given accelerators.

A calibrated roofline for inference (memory fit, tensor parallelism, batch, TTFT, TPOT, tokens/s)
and training (memory, layout, MFU, step time, tokens/s). Every tuned constant lives in
``_calibration`` with the measurements it was fitted to; ``MODEL_VERSION`` labels every estimate.

Sizing for the engine: call once per (accelerator, accelerators per instance) with ``count`` =
accelerators per instance; the result is already the best tensor-parallel degree x replicas, so
``n`` instances serve ``n x tokens_per_s``. ``fits=False`` (no fit in one instance): call again
with ``count = k x per_instance`` and ``gpus_per_node = per_instance``, or use fewer bytes/weight.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .._limits import (
    MAX_ACCELERATORS,
    MAX_ACCELERATORS_PER_INSTANCE,
    MAX_BATCH_PER_REPLICA,
    MAX_CONCURRENCY,
    MAX_GLOBAL_BATCH_TOKENS,
    MAX_TOKENS,
)
from ..errors import EstimateError, shown
from ._calibration import (
    BAND_EXTRAPOLATED,
    BAND_LONG_CONTEXT,
    BAND_LONG_PROMPT,
    BAND_VALIDATED,
    ENGINE_MEASURED_RANGE,
    ENGINE_MEASURED_SINCE,
    LONG_CONTEXT_TOKENS,
    LONG_PROMPT_INPUT_RATIO,
    LONG_PROMPT_MIN_INPUT,
    MEASURED_LONG_PROMPTS,
    MEASURED_RANGE,
    MODEL_VERSION,
    VALIDATED_INFERENCE,
    VALIDATED_TRAINING,
)
from ._engines import (
    canonical_engine,
    engine_names,
    engine_refusal,
    engine_serves,
    platform_of,
    prefill_chunk,
    release_of,
)
from ._hardware import Hardware, hardware_of
from ._inference import estimate_inference_hw
from ._registry import model_from_params, model_names, resolve_model
from ._types import PRECISIONS, InferenceEstimate, ModelSpec, TrainingEstimate, Uncertainty

if TYPE_CHECKING:
    from ._types import Bound, Evidence, Precision, WorkloadKind

    _Estimate = TypeVar("_Estimate", InferenceEstimate, TrainingEstimate)

_ALIASES = ("Bound", "Evidence", "Precision", "WorkloadKind")


def __getattr__(name: str) -> object:
    """The Literal aliases of ``_types``, read from there on first use."""
    if name not in _ALIASES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _types

    alias = globals()[name] = getattr(_types, name)
    return alias


__all__ = [
    "MODEL_VERSION",
    "PRECISIONS",
    "Bound",
    "Evidence",
    "InferenceEstimate",
    "ModelSpec",
    "Precision",
    "TrainingEstimate",
    "Uncertainty",
    "WorkloadKind",
    "canonical_engine",
    "engine_names",
    "engine_refusal",
    "engine_serves",
    "estimate_inference",
    "estimate_training",
    "long_prompt",
    "model_from_params",
    "model_names",
    "platform_of",
    "resolve_model",
    "uncertainty",
]


def _digits(value: int) -> str:
    """A whole number as echoed: written out up to 38 digits, else its size (``str`` of a
    5,000-digit number raises, and its echo would be a screen)."""
    if value.bit_length() <= 128:
        return f"{value:,}"
    sign = "a negative" if value < 0 else "a"  # -10**400 was "a number of about 400 digits"
    return f"{sign} number of about {value.bit_length() * 0.30103:,.0f} digits"


def _given(value: object) -> str:
    """A bad argument as echoed, 40 characters at most: an int written out (its size when huge),
    another number (numpy int64, Decimal, Fraction) its ``repr`` cut, else as ``errors.shown``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__repr__(value) if value.bit_length() <= 128 else _digits(value)
    import numbers  # only on this error path

    if isinstance(value, numbers.Number) and not isinstance(value, float | complex):
        try:
            text = repr(value)
        except Exception:  # a Fraction of a 5,000-digit int: repr raises
            return shown(value, limit=40)
        return text if len(text) <= 40 else text[:37] + "..."
    return shown(value, limit=40)


def _positive(name: str, value: object, high: int | None = None, what: str = "") -> int:
    """A whole number >= 1 and, given ``high``, <= ``high`` (the physical range of ``what``, the
    CLI's for the same flag): 10**400 accelerators was an OverflowError traceback."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EstimateError(
            f"{name} must be a positive integer, got {_given(value)}. To fix: pass a Python int >= 1"
            + ("" if isinstance(value, int) else " (int(x) of a numpy integer, a Decimal or a Fraction)")
        )
    if high is not None and value > high:
        raise EstimateError(
            f"{name} must be at most {high:,} ({what}; got {_digits(value)}). To fix: give a value in "
            "that range"
        )
    return value


def _milliseconds(name: str, value: object) -> float:
    """A finite latency target in milliseconds > 0: 10**400 was an OverflowError traceback."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an int beyond the largest float
            number = None
    if number is None or not (number > 0 and math.isfinite(number)):
        got = _digits(value) if isinstance(value, int) and not isinstance(value, bool) else _given(value)
        raise EstimateError(
            f"{name} must be a finite number of milliseconds > 0 (at most {sys.float_info.max:.4g}; "
            f"got {got}). To fix: pass the latency target in milliseconds (e.g. 50), or None for no "
            "target"
        )
    return number


_LARGEST = f"the largest deployment: {MAX_ACCELERATORS:,} accelerators"


def _inputs(model: object, accelerator: object) -> None:
    # Both are records, not names: a name would fail later as an AttributeError, or (for the
    # accelerator, read duck-typed) as a misleading "has no published specs".
    if not isinstance(model, ModelSpec):
        raise EstimateError(
            f"model must be a ModelSpec (got {type(model).__name__} {model!r}). "
            "To fix: pass resolve_model(name) or model_from_params(...)."
        )
    if accelerator is None or isinstance(accelerator, str | int | float):
        raise EstimateError(
            f"accelerator must be a catalog Accelerator (got {type(accelerator).__name__} {accelerator!r}). "
            "To fix: pass load_catalog().find_accelerator(name)."
        )


def _precision(value: str) -> Precision:
    if value not in PRECISIONS:
        raise EstimateError(f"unknown precision {value!r}. To fix: use one of {', '.join(PRECISIONS)}")
    return value


def uncertainty(
    accelerator_id: str,
    kind: Literal["inference", "training"],
    *,
    input_tokens: int = 0,
    output_tokens: int = 1,
    tpu: bool = False,
    seq_len: int = 0,
    engine: str | None = None,
    engine_version: str | None = None,
) -> Uncertainty:
    """The band of an estimate of ``kind`` on ``accelerator_id`` (a catalog id), from the model's
    held-out validation (benchmarks/ACCURACY.md), the first that applies:

    * a serving estimate naming ``engine`` (at ``engine_version``, default its default release)
      where that engine's rows were measured: their range (``ENGINE_MEASURED_RANGE``), or the whole
      held-out range for a release older than the rows (``ENGINE_MEASURED_SINCE``);
    * a known upper bound's measured range (``MEASURED_RANGE``);
    * in the long-prompt regime, where those rows have short prompts only (every range outside
      ``MEASURED_LONG_PROMPTS``): that range and the long-prompt band together, extrapolated;
    * the validated p10-p90 of the kind (a GPU serving estimate with long prompts, ``input_tokens``
      and ``output_tokens``: the long-prompt regime's; a training estimate of ``seq_len`` from
      ``LONG_CONTEXT_TOKENS``: the long-context one);
    * no measurement of the kind on it: the whole held-out range.

    Raises:
        EstimateError: a length that is not a non-negative integer, an unknown engine, or a
            version that is not a release number.
    """
    for name, value, low in (("input_tokens", input_tokens, 0), ("output_tokens", output_tokens, 1),
                             ("seq_len", seq_len, 0)):  # fmt: skip
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise EstimateError(
                f"{name} must be an integer >= {low} (got {_given(value)}). To fix: pass an int"
            )
    engine_name = canonical_engine(engine) if engine is not None else None
    covered = _engine_covered(accelerator_id, engine_name, engine_version)
    long = kind == "inference" and not tpu and long_prompt(input_tokens, output_tokens)
    band = _validation(accelerator_id, kind, engine_name, covered, long)[0]
    if kind == "training" and seq_len >= LONG_CONTEXT_TOKENS:
        return _long_context_band(band)
    return band


def long_prompt(input_tokens: int, output_tokens: int) -> bool:
    """Whether a serving workload is in v15's long-prompt regime (``LONG_PROMPT_MIN_INPUT``)."""
    return input_tokens >= LONG_PROMPT_MIN_INPUT and input_tokens >= LONG_PROMPT_INPUT_RATIO * output_tokens


@lru_cache(maxsize=64)
def _long_context_band(band: Uncertainty) -> Uncertainty:
    """A validated training band as the long-context rows widen it (v15); other bands are kept."""
    if band.evidence != "validated":
        return band
    low, high = BAND_LONG_CONTEXT
    return replace(
        band, low=low, high=high, basis="long-context training (v15): the range of the regime's held-out rows"
    )


def _engine_covered(accelerator_id: str, engine: str | None, version: str | None) -> bool:
    """Whether the rows behind the engine's measured range on ``accelerator_id`` cover ``version``."""
    since = ENGINE_MEASURED_SINCE.get((accelerator_id, engine or ""))
    return since is None or engine is None or release_of(engine, version) >= since


def _release_text(release: tuple[int, int, int]) -> str:
    return ".".join(str(part) for part in release)


def _band(
    accelerator_id: str, kind: Literal["inference", "training"], engine: str | None, covered: bool, long: bool
) -> Uncertainty:
    """``uncertainty``, worked out (``long``: a GPU serving estimate in the long-prompt regime)."""
    named = ENGINE_MEASURED_RANGE.get((accelerator_id, engine or "")) if kind == "inference" else None
    if named and covered and long and (accelerator_id, engine or "") not in MEASURED_LONG_PROMPTS:
        return _short_prompts_only(accelerator_id, f"{engine} serving", named)
    if named and covered:
        return Uncertainty(
            evidence="measured",
            low=named[0],
            high=named[1],
            basis=f"published {engine} serving measurements on {accelerator_id} reach {named[0]:.2f}-"
            f"{named[1]:.2f}x of the estimate naming {engine}",
        )
    if named:
        since = _release_text(ENGINE_MEASURED_SINCE[(accelerator_id, engine or "")])
        low, high = BAND_EXTRAPOLATED
        return Uncertainty(
            evidence="extrapolated",
            low=low,
            high=high,
            basis=f"no published measurement of {engine} before {since} on {accelerator_id}: the whole "
            "held-out range of either kind",
        )
    measured = MEASURED_RANGE.get((accelerator_id, kind))
    if measured and long and (accelerator_id, kind) not in MEASURED_LONG_PROMPTS:
        return _short_prompts_only(accelerator_id, kind, measured)
    if measured:
        return Uncertainty(
            evidence="upper_bound" if measured[1] < 1 else "measured",
            low=measured[0],
            high=measured[1],
            basis=f"published {kind} measurements on {accelerator_id} reach {measured[0]:.2f}-"
            f"{measured[1]:.2f}x of the estimate",
        )
    validated = VALIDATED_TRAINING if kind == "training" else VALIDATED_INFERENCE
    if accelerator_id in validated and long:
        return Uncertainty(
            evidence="validated",
            low=BAND_LONG_PROMPT[0],
            high=BAND_LONG_PROMPT[1],
            basis="long-prompt serving (v15): the range of the regime's held-out rows, widened "
            "(fewer than 10)",
        )
    if accelerator_id in validated:
        low, high = BAND_VALIDATED[kind]
        return Uncertainty(
            evidence="validated",
            low=low,
            high=high,
            basis=f"p10-p90 of measured/estimated speed over the held-out {kind} rows",
        )
    low, high = BAND_EXTRAPOLATED
    return Uncertainty(
        evidence="extrapolated",
        low=low,
        high=high,
        basis=f"no {kind} measurement on {accelerator_id}: the whole held-out range of either kind",
    )


def _short_prompts_only(accelerator_id: str, who: str, measured: tuple[float, float]) -> Uncertainty:
    """A measured range whose rows all have short prompts, for an estimate in the long-prompt regime."""
    low, high = min(measured[0], BAND_LONG_PROMPT[0]), max(measured[1], BAND_LONG_PROMPT[1])
    return Uncertainty(
        evidence="extrapolated",
        low=low,
        high=high,
        basis=f"published {who} measurements on {accelerator_id} ({measured[0]:.2f}-{measured[1]:.2f}x) have "
        f"prompts under {LONG_PROMPT_MIN_INPUT:,} tokens: that range and the long-prompt band together",
    )


@lru_cache(maxsize=1024)
def _validation(
    acc: str,
    kind: Literal["inference", "training"],
    engine: str | None = None,
    covered: bool = True,
    long: bool = False,
) -> tuple[Uncertainty, tuple[str, ...]]:
    """The band of an estimate of ``kind`` on ``acc`` (serving with ``engine``, a canonical name, if
    named; ``covered``: the rows of its measured range cover the named release; ``long``: a GPU
    serving estimate in the long-prompt regime) and its validation notes: whether a published
    measurement of this kind on it backs the estimate, and the measured range where it has one."""
    band = _band(acc, kind, engine, covered, long)
    validated = VALIDATED_TRAINING if kind == "training" else VALIDATED_INFERENCE
    notes: list[str] = []
    if acc not in validated:
        notes.append(
            f"no published {kind} measurement on {acc} validates this estimate: it extrapolates "
            f"from the datasheet with constants fitted on {', '.join(sorted(validated))} "
            "(benchmarks/ACCURACY.md)"
        )
    named = ENGINE_MEASURED_RANGE.get((acc, engine or "")) if kind == "inference" else None
    measured = named or MEASURED_RANGE.get((acc, kind))
    who = f"{engine} serving" if named else kind
    if named and not covered:
        since = _release_text(ENGINE_MEASURED_SINCE[(acc, engine or "")])
        notes.append(
            f"no published {who} measurement on {acc} covers a release before {since}: "
            'this estimate extrapolates (benchmarks/ACCURACY.md "v17")'
        )
    elif measured and band.evidence == "extrapolated":  # a long prompt the rows do not reach
        notes.append(
            f"no published {who} measurement on {acc} has a prompt of {LONG_PROMPT_MIN_INPUT:,} tokens "
            "or more: this estimate extrapolates"
        )
    elif named:
        notes.append(
            f"published {who} measurements on {acc} reach {named[0]:.2f}-{named[1]:.2f}x of "
            f'this model\'s estimates naming {engine} (benchmarks/ACCURACY.md "v17")'
        )
    elif measured:
        low, high = measured
        notes.append(
            f"published {who} measurements on {acc} reach {low:.2f}-{high:.2f}x of this model's "
            "estimates (held-out rows, benchmarks/ACCURACY.md)"
            + (": read this estimate as an upper bound" if high < 1 else "")
        )
    return band, tuple(notes)


def _label_validation(
    estimate: _Estimate, accelerator: Any, kind: Literal["inference", "training"]
) -> _Estimate:
    """``estimate`` with its band and validation notes (``_validation``) attached."""
    band, notes = _validation(str(getattr(accelerator, "id", "")), kind)
    if not notes:
        return replace(estimate, uncertainty=band)
    return replace(estimate, uncertainty=band, assumptions=estimate.assumptions + notes)


_HARDWARE: dict[int, tuple[object, Hardware]] = {}
"""id(accelerator) -> (it, its Hardware), for frozen dataclass records: the entry holds the record,
so no other object takes its id while it is kept."""
_HARDWARE_KEPT = 256


def _hardware(accelerator: Any) -> Hardware:
    """``hardware_of``, kept per accelerator record (anything else, duck-typed, is reduced each time)."""
    params = type(accelerator).__dict__.get("__dataclass_params__")
    if params is None or not params.frozen:
        return hardware_of(accelerator)
    found = _HARDWARE.get(id(accelerator))
    if found is not None and found[0] is accelerator:
        return found[1]
    hw = hardware_of(accelerator)
    if len(_HARDWARE) >= _HARDWARE_KEPT:
        _HARDWARE.clear()
    _HARDWARE[id(accelerator)] = (accelerator, hw)
    return hw


def _gpus_per_node(gpus_per_node: int | None, count: int, hw: Hardware) -> int:
    if gpus_per_node is not None:
        return _positive(
            "gpus_per_node",
            gpus_per_node,
            MAX_ACCELERATORS_PER_INSTANCE,
            "accelerators of the largest instance",
        )
    # A TPU slice is one ICI domain, up to the generation's largest slice (more chips are several
    # slices joined over the data-center network); GPU servers hold 8 (HGX, MI300X OAM platforms).
    if hw.is_tpu:
        return min(count, hw.max_slice_chips or count)
    return min(count, 8)


def estimate_inference(
    model: ModelSpec,
    *,
    precision: Precision,
    accelerator: Any,
    count: int,
    input_tokens: int,
    output_tokens: int,
    concurrency: int | None = None,
    ttft_ms: float | None = None,
    tpot_ms: float | None = None,
    gpus_per_node: int | None = None,
    tensor_parallel: int | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
    prefix_cache_share: float = 0.0,
) -> InferenceEstimate:
    """Serving estimate for ``model`` on ``count`` accelerators (a catalog ``Accelerator``).

    Args:
        precision: weight precision asked for; an accelerator without it falls back (see
            ``precision``, ``requested_precision`` and ``assumptions`` of the result).
        count: accelerators (TPU chips). The model picks the tensor-parallel degree (a power of two
            dividing the attention heads) and fills the rest with data-parallel replicas.
        input_tokens, output_tokens: mean prompt and completion lengths.
        concurrency: requests in flight across all ``count`` accelerators. Default: the largest
            batch that fits (maximum sustained throughput, as a throughput benchmark runs it).
            ``1`` gives single-request latency.
        ttft_ms, tpot_ms: latency targets. Without ``concurrency``, the largest batch meeting them
            (``slo_met`` says whether any batch does; if none, the batch-1 figures are returned).
        gpus_per_node: accelerators joined by the fast link. Default 8 (the whole slice for TPUs);
            a tensor-parallel group larger than this crosses the network and pays for it.
        tensor_parallel: pin the tensor-parallel degree (must divide ``count``). Default: the
            degree that maximises throughput at the operating point (ties: the smaller one).
        engine, engine_version: the serving engine (``engine_names()``) and its release. Default:
            no engine named, the engines the constants were fitted on. A named engine applies its
            generation's rule (``_engines``); without ``engine_version`` its default release is
            assumed. The assumptions say which engine and version the estimate assumed.
        prefix_cache_share: share of each prompt's tokens served from the prefix cache (0 to 1).
            Default 0: every prompt token is prefilled.

    Returns:
        An estimate; ``fits=False`` (zero throughput, infinite latencies) when one request's
        weights and KV cache exceed the memory of ``count`` accelerators.

    Raises:
        EstimateError: invalid arguments, or the accelerator lacks a spec the model needs.
    """
    _inputs(model, accelerator)
    count = _positive("count", count, MAX_ACCELERATORS, _LARGEST)
    inp = _positive("input_tokens", input_tokens, MAX_TOKENS, "the tokens an intent accepts")
    out = _positive("output_tokens", output_tokens, MAX_TOKENS, "the tokens an intent accepts")
    # A published context window is a hard limit; a defaulted one (unknown model) is only a guess.
    if "max_context" not in model.estimated_fields and inp + out > model.max_context:
        raise EstimateError(
            f"input_tokens + output_tokens ({inp + out:,}) exceed the context window of {model.name} "
            f"({model.max_context:,} tokens). To fix: shorten the prompt or the completion."
        )
    if concurrency is not None and _positive("concurrency", concurrency) > MAX_CONCURRENCY:
        # 10**400 was an OverflowError traceback (requests per replica as a float)
        raise EstimateError(
            f"concurrency must be at most {MAX_CONCURRENCY:,} (requests the largest deployment can "
            f"hold: {MAX_BATCH_PER_REPLICA:,} per replica on each of {MAX_ACCELERATORS:,} accelerators; "
            f"got {_digits(concurrency)}). To fix: pass the requests in flight, or leave it out for "
            "the most that fit"
        )
    ttft = None if ttft_ms is None else _milliseconds("ttft_ms", ttft_ms)
    tpot = None if tpot_ms is None else _milliseconds("tpot_ms", tpot_ms)
    if tensor_parallel is not None and (_positive("tensor_parallel", tensor_parallel) > count):
        raise EstimateError(f"tensor_parallel ({_digits(tensor_parallel)}) cannot exceed count ({count:,})")
    share = _share(prefix_cache_share)
    hw = _hardware(accelerator)
    named = engine is not None or engine_version is not None
    note = ""
    if named:
        hw, note = _with_engine(hw, platform_of(accelerator), engine, engine_version)
    name = canonical_engine(engine) if named else None
    acc_id = str(getattr(accelerator, "id", ""))
    covered = _engine_covered(acc_id, name, engine_version if isinstance(engine_version, str) else None)
    band, validation = _validation(
        acc_id, "inference", name, covered, not hw.is_tpu and long_prompt(inp, out)
    )
    if note:
        validation = (note, *validation)
    validation = (*_prefill_notes(hw, name, inp, share), *validation)
    # the engine's own chunk always (SGLang's 16384 on a large GPU was charged as two 8192 chunks,
    # with no note); the record is kept when nothing differs, so the caches keyed on it still hit
    chunk = 0 if hw.is_tpu else prefill_chunk(name, hw.memory_gb, hw.name)[0]
    if chunk != hw.prefill_chunk or share:
        hw = _prefill_hardware(hw, chunk, share)
    return estimate_inference_hw(
        model,
        hw,
        _precision(precision),
        count,
        inp,
        out,
        concurrency,
        ttft,
        tpot,
        _gpus_per_node(gpus_per_node, count, hw),
        tensor_parallel,
        band,
        validation,
    )


def _share(value: object) -> float:
    """A prefix-cache share: a Python int or float from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EstimateError(
            f"prefix_cache_share must be a Python float from 0 to 1 (got {_given(value)}, of type "
            f"{type(value).__name__}). To fix: pass float(x) of a numpy number, a Decimal or a Fraction"
        )
    if not 0 <= value <= 1:
        raise EstimateError(
            f"prefix_cache_share must be a number from 0 to 1 (got {_given(value)}). To fix: pass the "
            "share of each prompt's tokens served from the prefix cache, e.g. 0.5, or 0 for none"
        )
    return float(value)


def _prefill_notes(hw: Hardware, engine: str | None, inp: int, share: float) -> tuple[str, ...]:
    """What the estimate says of chunked prefill and the prefix cache (empty: neither applies)."""
    notes = []
    prefilled = max(1, inp - math.floor(inp * share))
    if share:
        notes.append(
            f"prefix cache: {share * 100:g}% of each prompt's tokens served from the cache (a figure given "
            f"with the workload; no measurement backs it): {prefilled:,} of {inp:,} tokens prefilled"
        )
    if not hw.is_tpu:
        chunk, basis = prefill_chunk(engine, hw.memory_gb, hw.name)
        chunks = math.ceil(prefilled / chunk)
        if chunks > 1:
            notes.append(
                f"chunked prefill: {prefilled:,} prompt tokens in {chunks} chunks of {chunk:,} ({basis}); "
                "each chunk re-reads the weights and the KV cache of the chunks before it"
            )
    return tuple(notes)


@lru_cache(maxsize=256)
def _prefill_hardware(hw: Hardware, chunk: int, share: float) -> Hardware:
    """``hw`` with an engine's prefill chunk and a prefix-cache share (one record per triple)."""
    return replace(hw, prefill_chunk=0 if hw.is_tpu else chunk, prefix_cache_share=share)


def _with_engine(hw: Hardware, platform: str, engine: object, version: object) -> tuple[Hardware, str]:
    """``hw`` as the named engine generation runs it, and the note saying which one was assumed."""
    if engine is None:
        raise EstimateError("engine_version needs an engine. To fix: name the engine, or drop the version")
    if version is not None and not isinstance(version, str):
        raise EstimateError(
            f"engine_version must be a string (got {_given(version)}). To fix: pass e.g. '0.6.0'"
        )
    from ._engines import resolve_engine

    rule = resolve_engine(canonical_engine(engine), version, platform=platform)
    return _engine_hardware(hw, rule.throughput_factor, rule.host_s_per_seq), rule.note


@lru_cache(maxsize=256)
def _engine_hardware(hw: Hardware, factor: float, host_s: float) -> Hardware:
    """``hw`` with an engine's serving efficiency and host time (one record per pair: the estimates'
    caches key on its identity)."""
    if factor == 1.0 and host_s == 0.0:
        return hw
    return replace(hw, serving_eff=hw.serving_eff * factor, host_s_per_seq=host_s)


def estimate_training(
    model: ModelSpec,
    *,
    precision: Precision,
    accelerator: Any,
    count: int,
    seq_len: int,
    global_batch_tokens: int,
    method: Literal["full", "lora"] = "full",
    gpus_per_node: int | None = None,
    multi_node_fabric: bool = True,
) -> TrainingEstimate:
    """Training (``method="full"``) or LoRA fine-tuning estimate on ``count`` accelerators.

    Args:
        precision: compute precision (bf16 mixed precision; fp8 uses FP8 GEMMs where supported).
            For LoRA, int8/int4 store the frozen base quantized (QLoRA) and compute in bf16.
        seq_len: tokens per sequence; global_batch_tokens: tokens per optimizer step.
        gpus_per_node: accelerators per node (default 8; for TPUs one slice: all ``count`` chips up
            to the generation's largest slice, 256 on v5e/v6e and 6144 on v5p, beyond which the
            chips are slices joined over the data-center network, each slice a "node").
        multi_node_fabric: whether nodes are joined by an RDMA fabric (InfiniBand, EFA, RoCE at
            400 Gb/s per GPU). Default True; False models 100 Gb/s Ethernet per node, where
            data-parallel traffic often dominates (``bound="communication"``).

    Returns:
        An estimate; ``fits=False`` when the model cannot be sharded into ``count`` accelerators.
    """
    _inputs(model, accelerator)
    count = _positive("count", count, MAX_ACCELERATORS, _LARGEST)
    seq = _positive("seq_len", seq_len, MAX_TOKENS, "the tokens an intent accepts")
    gbt = _positive(
        "global_batch_tokens",
        global_batch_tokens,
        MAX_GLOBAL_BATCH_TOKENS,
        "the tokens per step an intent accepts",
    )
    if gbt < seq:  # a step holds at least one whole sequence (the intent checks the same)
        raise EstimateError(
            f"global_batch_tokens ({gbt}) must be >= seq_len ({seq}): a step holds at least one "
            "sequence. To fix: raise global_batch_tokens or lower seq_len."
        )
    if method not in ("full", "lora"):
        raise EstimateError(f"method must be 'full' or 'lora', got {method!r}")
    # Imported on first use: a serving decision never reads the training model.
    from ._training import estimate_training_hw

    hw = _hardware(accelerator)
    estimate = estimate_training_hw(
        model,
        hw,
        _precision(precision),
        count,
        seq,
        gbt,
        method,
        _gpus_per_node(gpus_per_node, count, hw),
        bool(multi_node_fabric),
    )
    labelled = _label_validation(estimate, accelerator, "training")
    if seq >= LONG_CONTEXT_TOKENS and labelled.uncertainty is not None:
        band = _long_context_band(labelled.uncertainty)
        labelled = replace(labelled, uncertainty=band)
    return labelled
