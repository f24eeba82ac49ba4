"""What the workload must do: the model, and how it is served or trained."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer, model_validator

from .._limits import MAX_GLOBAL_BATCH_TOKENS, MAX_PARAMS_B, MAX_TOKENS
from ..errors import EstimateError, did_you_mean
from ..perf._types import Precision  # the precisions the performance model can estimate: one vocabulary
from ._base import IntentModel, fail

__all__ = ["ModelRef", "Precision", "Serving", "Training", "Workload", "WorkloadType"]

WorkloadType = Literal["inference", "training", "fine_tuning"]
_RELEASE = r"^v?[0-9]{1,4}(\.[0-9]{1,4}){0,2}([.+-]?[A-Za-z0-9.+-]{0,30})?$"
"""A release number as the engines write it (``0.6.0``, ``v0.11.1``, ``1.0.0rc2``)."""
TrainingMethod = Literal["full", "lora"]


def _registry_params(name: str) -> tuple[float, float] | None:
    """(total, active) parameters in billions of ``name`` in the model registry, None when unknown."""
    # Imported on use: the registry belongs to the performance model.
    from ..perf import resolve_model

    try:
        spec = resolve_model(name)
    except EstimateError:
        return None
    return spec.params_b, spec.active_params_b


def _registry_context(name: str) -> int | None:
    """The published context window (tokens) of ``name``, None when the registry does not know it."""
    from ..perf import resolve_model

    try:
        return resolve_model(name).max_context
    except EstimateError:
        return None


def _size(value: object) -> float | None:
    """The positive number a model is named after, or None (10**400, which no float holds, is left
    for params_b's own check to report)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        size = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return size if size > 0 else None


def _model_names() -> list[str]:
    from ..perf import model_names

    return list(model_names())


class ModelRef(IntentModel):
    """The model to serve or train.

    Attributes:
        name: a model the registry knows (``computeops estimate --help`` lists them; aliases and
            Hugging Face ids work), or any name when ``params_b`` is given.
        params_b: total parameters in billions. Default: taken from the registry (required for a model
            the registry does not know; for a known model it must agree with the registry within 10 %,
            and the registry's architecture is used).
        active_params_b: parameters active per token (MoE), in billions. Default: the registry's value,
            or ``params_b`` for an unknown model (dense).
        precision: weight/compute precision. Default: ``bf16``. Where an accelerator lacks it the
            estimate falls back to the nearest supported precision and says so.
    """

    # name may be left out when params_b is given (_name_from_size): the schema does not require it
    name: str = Field(min_length=1, max_length=100)
    params_b: float | None = Field(default=None, gt=0, le=MAX_PARAMS_B)
    active_params_b: float | None = Field(default=None, gt=0, le=MAX_PARAMS_B)
    precision: Precision = "bf16"

    @model_validator(mode="before")
    @classmethod
    def _name_from_size(cls, data: Any) -> Any:
        """No name but a size: the model is named after its size (``custom-13b``, ``custom-47b-a13b``)."""
        if not isinstance(data, dict) or "name" in data:
            return data
        total, active = _size(data.get("params_b")), _size(data.get("active_params_b"))
        if total is None:
            return data  # the missing name (or the bad params_b) is reported as usual
        label = f"custom-{total:g}b" + (f"-a{active:g}b" if active is not None else "")
        return {**data, "name": label}

    @model_validator(mode="after")
    def _known_or_sized(self) -> Self:
        active, total = self.active_params_b, self.params_b
        if active is not None and total is not None and active > total:
            raise fail(f"must be <= params_b ({total:g}) (got {active:g})", field="active_params_b")
        known = _registry_params(self.name)
        if known is None:
            if total is None:
                raise fail(
                    f"unknown model {self.name!r}. To fix: use a model the registry knows "
                    "(computeops estimate --help lists them) or give params_b",
                    field="name",
                    suggestions=did_you_mean(self.name, _model_names()),
                )
            return self
        for field, given, registry in (("params_b", total, known[0]), ("active_params_b", active, known[1])):
            if given is not None and abs(given / registry - 1) > 0.1:
                raise fail(
                    f"{self.name} has {registry:g}B {'active ' if field == 'active_params_b' else ''}"
                    f"parameters in the model registry (got {given:g}). To fix: leave {field} out for a "
                    "known model, or rename the model",
                    field=field,
                )
        return self


class Serving(IntentModel):
    """How an inference workload is used (inference only).

    Attributes:
        output_tokens_per_s: sustained aggregate output tokens per second to serve (required).
        input_tokens: mean prompt length in tokens. Default: 1024.
        output_tokens: mean completion length in tokens. Default: 256.
        ttft_ms: time-to-first-token target in milliseconds. Default: no target.
        tpot_ms: time-per-output-token target in milliseconds. Default: no target.
        engine: the serving engine (``vllm``, ``sglang``, ``tensorrt-llm``, ``sglang-jax``,
            ``jetstream``). Default: none named; the estimate describes the engines its constants
            were fitted on, except on AMD GPUs, where a decision is sized for the vLLM release the
            stacks run there and says so. Named, it is a hard constraint: an accelerator it does
            not run on is rejected (``engine.platform``); elsewhere its generation's rule applies
            and the estimate says which engine and version it assumed.
        engine_version: the engine's release (e.g. ``0.5.3``). Default: the model's default
            release of the engine, with its source or marked as an assumption.
        prefix_cache_share: share of each prompt's tokens the engine's prefix cache serves (a
            shared system prompt, a multi-turn history), from 0 to 1: those tokens are read from
            the cache, not prefilled. Your own figure; no measurement backs it. Default: 0.
    """

    output_tokens_per_s: float = Field(gt=0, le=1e9)
    input_tokens: int = Field(default=1024, gt=0, le=MAX_TOKENS)
    output_tokens: int = Field(default=256, gt=0, le=MAX_TOKENS)
    ttft_ms: float | None = Field(default=None, gt=0)
    tpot_ms: float | None = Field(default=None, gt=0)
    engine: str | None = Field(default=None, min_length=1, max_length=40)
    engine_version: str | None = Field(default=None, min_length=1, max_length=40, pattern=_RELEASE)
    prefix_cache_share: float = Field(default=0.0, ge=0, le=1)

    @model_serializer(mode="wrap")
    def _without_unnamed_engine(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Dumped as before the engine and prefix-cache fields existed when they are left at their
        defaults: the intent's digest, its echo in a decision and every lock made before stay
        byte-identical."""
        data: dict[str, Any] = handler(self)
        for key in ("engine", "engine_version"):
            if data.get(key, "") is None:
                del data[key]
        if data.get("prefix_cache_share") == 0:
            del data["prefix_cache_share"]
        return data

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str | None) -> str | None:
        """The engine's canonical name (so the estimate and the decision name it alike)."""
        if value is None:
            return None
        from ..perf import canonical_engine, engine_names

        try:
            return canonical_engine(value)
        except EstimateError:
            raise fail(
                f"unknown serving engine {value!r}. To fix: use one of {', '.join(engine_names())}",
                suggestions=did_you_mean(value, engine_names()),
            ) from None

    @model_validator(mode="after")
    def _version_has_engine(self) -> Self:
        if self.engine is None and self.engine_version is not None:
            raise fail(
                "needs serving.engine. To fix: name the engine, or drop the version", field="engine_version"
            )
        return self


class Training(IntentModel):
    """How much a training or fine-tuning job processes (training and fine_tuning only).

    Attributes:
        tokens: total tokens to process (required), e.g. ``1.0e11``.
        seq_len: sequence length in tokens. Default: 4096.
        global_batch_tokens: tokens per optimizer step. Default: 4194304 (4M).
        deadline_hours: wall-clock hours the job must finish within. Default: no deadline; the engine
            then keeps the smallest deployment that fits.
        method: ``full`` (all weights, mixed-precision Adam) or ``lora`` (adapters on frozen weights).
            Default: ``full``.
    """

    tokens: float = Field(gt=0, le=1e16)
    seq_len: int = Field(default=4096, gt=0, le=MAX_TOKENS)
    global_batch_tokens: int = Field(default=4_194_304, gt=0, le=MAX_GLOBAL_BATCH_TOKENS)
    deadline_hours: float | None = Field(default=None, gt=0)
    method: TrainingMethod = "full"

    @model_validator(mode="after")
    def _batch_holds_a_sequence(self) -> Self:
        if self.global_batch_tokens < self.seq_len:
            raise fail(
                f"must be >= seq_len ({self.seq_len}) (got {self.global_batch_tokens})",
                field="global_batch_tokens",
            )
        return self


class Workload(IntentModel):
    """The workload: its type, its model and the block that matches the type.

    Attributes:
        type: ``inference``, ``training`` or ``fine_tuning``.
        model: the model (see ModelRef).
        serving: required for inference, forbidden otherwise.
        training: required for training and fine_tuning, forbidden for inference.
    """

    type: WorkloadType
    model: ModelRef
    serving: Serving | None = None
    training: Training | None = None

    @model_validator(mode="after")
    def _block_matches_type(self) -> Self:
        if self.type == "inference":
            if self.training is not None:
                raise fail("only allowed for training and fine_tuning workloads", field="training")
            if self.serving is None:
                raise fail("required for an inference workload", field="serving")
        else:
            if self.serving is not None:
                raise fail("only allowed for inference workloads", field="serving")
            if self.training is None:
                raise fail(f"required for a {self.type} workload", field="training")
        if self.serving is not None:
            context = _registry_context(self.model.name)
            used = self.serving.input_tokens + self.serving.output_tokens
            if context is not None and used > context:
                raise fail(
                    f"input_tokens + output_tokens ({used:,}) exceed the context window of "
                    f"{self.model.name} ({context:,} tokens). To fix: shorten the prompt or the completion",
                    field="serving.input_tokens",
                )
        return self
