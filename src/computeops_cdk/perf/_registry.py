"""The model registry: architectures of popular open models, from their published configs.

Every entry cites the config it was read from (Hugging Face ``config.json`` of the model's official
repository, or the llm-foundry YAML for the MPT benchmark models). Parameter counts are the ones the
model card / paper states; where a number is not in the config it is derived and listed in
``estimated_fields``. Unknown models go through :func:`model_from_params` and its documented defaults.
"""

from __future__ import annotations

import math
import re

from ..errors import EstimateError, did_you_mean
from ._types import ModelSpec

__all__ = ["model_from_params", "model_names", "resolve_model"]

_HF = "huggingface.co/{}/blob/main/config.json"


def _m(
    name: str,
    repo: str,
    params_b: float,
    layers: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    vocab: int,
    max_context: int,
    *,
    active_params_b: float | None = None,
    experts: int = 0,
    top_k: int = 0,
    kv_cache_dim: int = 0,
    window: tuple[int, int] = (0, 0),
    aliases: tuple[str, ...] = (),
    source: str = "",
    estimated: tuple[str, ...] = (),
) -> ModelSpec:
    return ModelSpec(
        name=name,
        params_b=params_b,
        active_params_b=params_b if active_params_b is None else active_params_b,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=vocab,
        max_context=max_context,
        experts=experts,
        experts_per_token=top_k,
        kv_cache_dim=kv_cache_dim,
        sliding_window=window[0],
        global_layer_every=window[1],
        aliases=(repo, *aliases),
        source=source or _HF.format(repo),
        estimated_fields=estimated,
    )


_MODELS: tuple[ModelSpec, ...] = (
    # Llama 2 (params per the Llama 2 paper, arXiv:2307.09288, Table 1; shapes from config.json)
    _m("llama-2-7b", "meta-llama/Llama-2-7b-hf", 6.74, 32, 4096, 32, 32, 128, 32000, 4096),
    _m("llama-2-13b", "meta-llama/Llama-2-13b-hf", 13.0, 40, 5120, 40, 40, 128, 32000, 4096),
    _m("llama-2-70b", "meta-llama/Llama-2-70b-hf", 69.0, 80, 8192, 64, 8, 128, 32000, 4096),
    # Llama 3.x (params per arXiv:2407.21783 and the model cards)
    _m(
        "llama-3-8b",
        "meta-llama/Meta-Llama-3-8B",
        8.03,
        32,
        4096,
        32,
        8,
        128,
        128256,
        8192,
        aliases=("llama-3-8b-instruct", "meta-llama/Meta-Llama-3-8B-Instruct"),
    ),
    _m(
        "llama-3.1-8b",
        "meta-llama/Llama-3.1-8B",
        8.03,
        32,
        4096,
        32,
        8,
        128,
        128256,
        131072,
        aliases=("llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct", "llama-3-8b-128k"),
    ),
    _m(
        "llama-3-70b",
        "meta-llama/Meta-Llama-3-70B",
        70.6,
        80,
        8192,
        64,
        8,
        128,
        128256,
        8192,
        aliases=("llama-3-70b-instruct", "meta-llama/Meta-Llama-3-70B-Instruct"),
    ),
    _m(
        "llama-3.1-70b",
        "meta-llama/Llama-3.1-70B",
        70.6,
        80,
        8192,
        64,
        8,
        128,
        128256,
        131072,
        aliases=("llama-3.1-70b-instruct", "meta-llama/Llama-3.1-70B-Instruct"),
    ),
    _m(
        "llama-3.3-70b",
        "meta-llama/Llama-3.3-70B-Instruct",
        70.6,
        80,
        8192,
        64,
        8,
        128,
        128256,
        131072,
        aliases=("llama-3.3-70b-instruct",),
    ),
    _m(
        "llama-3.1-405b",
        "meta-llama/Llama-3.1-405B",
        405.0,
        126,
        16384,
        128,
        8,
        128,
        128256,
        131072,
        aliases=("llama-3.1-405b-instruct", "meta-llama/Llama-3.1-405B-Instruct", "llama-3-405b"),
    ),
    # Mistral
    _m(
        "mistral-7b",
        "mistralai/Mistral-7B-v0.1",
        7.24,
        32,
        4096,
        32,
        8,
        128,
        32000,
        32768,
        window=(4096, 0),  # config sliding_window 4096 on every layer (v0.2+ dropped it)
        aliases=("mistral-7b-v0.1", "mistralai/Mistral-7B-Instruct-v0.1"),
    ),
    _m(
        "mixtral-8x7b",
        "mistralai/Mixtral-8x7B-v0.1",
        46.7,
        32,
        4096,
        32,
        8,
        128,
        32000,
        32768,
        active_params_b=12.9,
        experts=8,
        top_k=2,
        aliases=("mixtral-8x7b-instruct", "mistralai/Mixtral-8x7B-Instruct-v0.1"),
    ),
    _m(
        "mixtral-8x22b",
        "mistralai/Mixtral-8x22B-v0.1",
        140.6,
        56,
        6144,
        48,
        8,
        128,
        32768,
        65536,
        active_params_b=39.1,
        experts=8,
        top_k=2,
        aliases=("mixtral-8x22b-instruct", "mistralai/Mixtral-8x22B-Instruct-v0.1"),
    ),
    # Qwen 2.5 (params per the Qwen2.5 model cards; max_context = config max_position_embeddings)
    _m(
        "qwen2.5-7b",
        "Qwen/Qwen2.5-7B",
        7.61,
        28,
        3584,
        28,
        4,
        128,
        152064,
        131072,
        aliases=("qwen-2.5-7b", "qwen2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"),
    ),
    _m(
        "qwen2.5-14b",
        "Qwen/Qwen2.5-14B",
        14.7,
        48,
        5120,
        40,
        8,
        128,
        152064,
        131072,
        aliases=("qwen-2.5-14b", "qwen2.5-14b-instruct", "Qwen/Qwen2.5-14B-Instruct"),
    ),
    _m(
        "qwen2.5-32b",
        "Qwen/Qwen2.5-32B",
        32.5,
        64,
        5120,
        40,
        8,
        128,
        152064,
        131072,
        aliases=("qwen-2.5-32b", "qwen2.5-32b-instruct", "Qwen/Qwen2.5-32B-Instruct"),
    ),
    _m(
        "qwen2.5-72b",
        "Qwen/Qwen2.5-72B",
        72.7,
        80,
        8192,
        64,
        8,
        128,
        152064,
        131072,
        aliases=("qwen-2.5-72b", "qwen2.5-72b-instruct", "Qwen/Qwen2.5-72B-Instruct"),
    ),
    # Qwen 3 (params per the Qwen3 model cards)
    _m("qwen3-8b", "Qwen/Qwen3-8B", 8.2, 36, 4096, 32, 8, 128, 151936, 40960, aliases=("qwen-3-8b",)),
    _m("qwen3-14b", "Qwen/Qwen3-14B", 14.8, 40, 5120, 40, 8, 128, 151936, 40960, aliases=("qwen-3-14b",)),
    _m("qwen3-32b", "Qwen/Qwen3-32B", 32.8, 64, 5120, 64, 8, 128, 151936, 40960, aliases=("qwen-3-32b",)),
    _m(
        "qwen3-30b-a3b",
        "Qwen/Qwen3-30B-A3B",
        30.5,
        48,
        2048,
        32,
        4,
        128,
        151936,
        40960,
        active_params_b=3.3,
        experts=128,
        top_k=8,
        aliases=("qwen-3-30b-a3b",),
    ),
    _m(
        "qwen3-235b-a22b",
        "Qwen/Qwen3-235B-A22B",
        235.0,
        94,
        4096,
        64,
        4,
        128,
        151936,
        40960,
        active_params_b=22.0,
        experts=128,
        top_k=8,
        aliases=("qwen-3-235b-a22b",),
    ),
    # DeepSeek-V3 / R1: MLA caches a 512-dim latent + 64-dim RoPE key per token per layer;
    # head_dim is the query/key head dim (qk_nope 128 + qk_rope 64). Params per arXiv:2412.19437.
    _m(
        "deepseek-v3",
        "deepseek-ai/DeepSeek-V3",
        671.0,
        61,
        7168,
        128,
        128,
        192,
        129280,
        163840,
        active_params_b=37.0,
        experts=256,
        top_k=8,
        kv_cache_dim=576,
        aliases=("deepseek-v3-0324", "deepseek-ai/DeepSeek-V3-0324"),
    ),
    _m(
        "deepseek-r1",
        "deepseek-ai/DeepSeek-R1",
        671.0,
        61,
        7168,
        128,
        128,
        192,
        129280,
        163840,
        active_params_b=37.0,
        experts=256,
        top_k=8,
        kv_cache_dim=576,
        aliases=("deepseek-r1-0528",),
    ),
    # Gemma 2 / 3 (params per the model cards). Local layers cache a sliding window: Gemma 2
    # alternates local (4096) and global layers; Gemma 3 has one global layer in six, local ones
    # keep 1024 tokens (config sliding_window / sliding_window_pattern).
    _m(
        "gemma-2-9b",
        "google/gemma-2-9b",
        9.24,
        42,
        3584,
        16,
        8,
        256,
        256000,
        8192,
        window=(4096, 2),
        aliases=("gemma-2-9b-it", "google/gemma-2-9b-it"),
    ),
    _m(
        "gemma-2-27b",
        "google/gemma-2-27b",
        27.2,
        46,
        4608,
        32,
        16,
        128,
        256000,
        8192,
        window=(4096, 2),
        aliases=("gemma-2-27b-it", "google/gemma-2-27b-it"),
    ),
    _m(
        "gemma-3-12b",
        "google/gemma-3-12b-pt",
        12.2,
        48,
        3840,
        16,
        8,
        256,
        262208,
        131072,
        window=(1024, 6),
        aliases=("gemma-3-12b-it", "google/gemma-3-12b-it"),
    ),
    _m(
        "gemma-3-27b",
        "google/gemma-3-27b-pt",
        27.4,
        62,
        5376,
        32,
        16,
        128,
        262208,
        131072,
        window=(1024, 6),
        aliases=("gemma-3-27b-it", "google/gemma-3-27b-it"),
    ),
    # GPT-J and MPT (the calibration rows' models)
    _m(
        "gpt-j-6b",
        "EleutherAI/gpt-j-6b",
        6.05,
        28,
        4096,
        16,
        16,
        256,
        50400,
        2048,
        aliases=("gptj-6b", "gpt-j"),
    ),
    _m("mpt-7b", "mosaicml/mpt-7b", 6.65, 32, 4096, 32, 32, 128, 50432, 2048),
    _m("mpt-30b", "mosaicml/mpt-30b", 29.95, 48, 7168, 64, 64, 112, 50432, 8192),
    _m(
        "mpt-70b",
        "mosaicml/llm-foundry",
        64.9,
        80,
        8192,
        64,
        64,
        128,
        50368,
        2048,
        source="github.com/mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-70b.yaml "
        "(params as the llm-foundry benchmark table counts them)",
    ),
)


def _key(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


_BY_KEY: dict[str, ModelSpec] = {}
for _spec in _MODELS:
    for _alias in (_spec.name, *_spec.aliases):
        _BY_KEY.setdefault(_key(_alias), _spec)


def model_names() -> list[str]:
    """The registry's canonical model names, sorted."""
    return sorted(spec.name for spec in _MODELS)


def resolve_model(name: str) -> ModelSpec:
    """The registry entry for ``name`` (case-insensitive; Hugging Face repo ids and aliases work).

    Raises:
        EstimateError: unknown name, with close matches ("did you mean ...").
    """
    spec = _BY_KEY.get(_key(name))
    if spec is not None:
        return spec
    hints = did_you_mean(_key(name), sorted(_BY_KEY))
    text = (
        f"unknown model {name!r}. To fix: use a model listed by `computeops estimate --help` "
        "or give its size with --params-b."
    )
    if hints:
        text += f" (did you mean {' or '.join(repr(h) for h in hints)}?)"
    raise EstimateError(text)


# Defaults for a model known only by its size. The shape follows the Llama family's scaling
# (hidden grows ~ params^(1/3) at ~ 12 * layers * hidden^2 parameters, 128-dim heads, 8 KV heads);
# a model that differs can override any of them.
DEFAULT_HEAD_DIM = 128
DEFAULT_KV_HEADS = 8
DEFAULT_VOCAB = 128256
DEFAULT_MAX_CONTEXT = 8192
DEFAULT_EXPERTS = 8
DEFAULT_EXPERTS_PER_TOKEN = 2


def model_from_params(
    params_b: float,
    *,
    active_params_b: float | None = None,
    layers: int | None = None,
    hidden: int | None = None,
    kv_heads: int | None = None,
    name: str = "custom",
) -> ModelSpec:
    """A model known only by its size, with documented defaults for the rest.

    Args:
        params_b: total parameters (billions).
        active_params_b: parameters active per token (MoE). Default: ``params_b`` (dense). When
            smaller, the model is MoE with 8 experts, top-2 (Mixtral's routing) unless known otherwise.
        layers: default ``round(hidden / 128)`` clamped to [16, 128] (Llama-like aspect ratio).
        hidden: default the multiple of 128 nearest to ``(active_params_b * 1e9 * 128 / 12) ** (1/3)``,
            from ``params ~ 12 * layers * hidden^2`` with ``layers = hidden / 128``.
        kv_heads: default 8 (grouped-query attention as in Llama 3 / Qwen 2.5), capped at heads.
        name: the label carried by the estimate.

    Head dim 128, vocabulary 128256 and max context 8192 are defaults too; every defaulted field is
    listed in ``estimated_fields``.
    """
    if not (params_b > 0 and math.isfinite(params_b)):
        raise EstimateError(f"params_b must be a positive number, got {params_b!r}")
    active = params_b if active_params_b is None else active_params_b
    if not (0 < active <= params_b):
        raise EstimateError(
            f"active_params_b must be in (0, params_b={params_b}], got {active_params_b!r}. "
            "To fix: give the parameters active per token (MoE) or leave it out for a dense model."
        )
    estimated = ["head_dim", "vocab", "max_context"]
    if hidden is None:
        hidden = max(1024, round((active * 1e9 * 128 / 12) ** (1 / 3) / 128) * 128)
        estimated.append("hidden")
    if layers is None:
        layers = min(128, max(16, round(hidden / 128)))
        estimated.append("layers")
    heads = max(1, hidden // DEFAULT_HEAD_DIM)
    estimated.append("heads")
    if kv_heads is None:
        kv_heads = min(DEFAULT_KV_HEADS, heads)
        estimated.append("kv_heads")
    moe = active < params_b
    if moe:
        estimated += ["experts", "experts_per_token"]
    return ModelSpec(
        name=name,
        params_b=params_b,
        active_params_b=active,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=DEFAULT_HEAD_DIM,
        vocab=DEFAULT_VOCAB,
        max_context=DEFAULT_MAX_CONTEXT,
        experts=DEFAULT_EXPERTS if moe else 0,
        experts_per_token=DEFAULT_EXPERTS_PER_TOKEN if moe else 0,
        source="model_from_params defaults",
        estimated_fields=tuple(sorted(estimated)),
    )
