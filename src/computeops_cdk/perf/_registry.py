"""The model registry: architectures of popular open models, from their published configs.

The entries (``data/models.json``) each cite the config they were read from; parameter counts are
the model card's, a derived number is listed in ``estimated_fields``. Unknown models go through
:func:`model_from_params` and its documented defaults.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..errors import EstimateError, did_you_mean, did_you_mean_text
from ._types import ModelSpec

__all__ = ["model_from_params", "model_names", "resolve_model"]

_DATA = "models.json"


def _spec(entry: dict[str, Any]) -> ModelSpec:
    repo = entry.get("repo")
    return ModelSpec(
        name=entry["name"],
        params_b=float(entry["params_b"]),
        active_params_b=float(entry.get("active_params_b", entry["params_b"])),
        layers=int(entry["layers"]),
        hidden=int(entry["hidden"]),
        heads=int(entry["heads"]),
        kv_heads=int(entry["kv_heads"]),
        head_dim=int(entry["head_dim"]),
        vocab=int(entry["vocab"]),
        max_context=int(entry["max_context"]),
        experts=int(entry.get("experts", 0)),
        experts_per_token=int(entry.get("experts_per_token", 0)),
        kv_cache_dim=int(entry.get("kv_cache_dim", 0)),
        sliding_window=int(entry.get("sliding_window", 0)),
        global_layer_every=int(entry.get("global_layer_every", 0)),
        aliases=tuple(([repo] if repo else []) + list(entry.get("aliases", []))),
        source=entry["source"],
        estimated_fields=tuple(entry.get("estimated_fields", [])),
    )


def _load() -> tuple[ModelSpec, ...]:
    # A path beside this module, as catalog._load finds the embedded catalog: importlib.resources
    # would import tempfile, zipfile and more at start-up (benchmarks/STARTUP.md).
    try:
        with open(os.path.join(os.path.dirname(__file__), "data", _DATA), encoding="utf-8") as handle:
            text = handle.read()
    except OSError:  # not a file on disk (the package run from a zip archive): read the resource
        from importlib.resources import files

        text = files(__package__).joinpath("data", _DATA).read_text(encoding="utf-8")
    return tuple(_spec(entry) for entry in json.loads(text)["models"])


_MODELS: tuple[ModelSpec, ...] = _load()


def _key(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().lower())


_BY_KEY: dict[str, ModelSpec] = {}
for _model in _MODELS:
    for _alias in (_model.name, *_model.aliases):
        _BY_KEY.setdefault(_key(_alias), _model)


def model_names() -> list[str]:
    """The registry's canonical model names, sorted."""
    return sorted(spec.name for spec in _MODELS)


def resolve_model(name: str) -> ModelSpec:
    """The registry entry for ``name`` (case-insensitive; Hugging Face repo ids and aliases work).

    Raises:
        EstimateError: unknown name, with close matches ("did you mean ...").
    """
    if not isinstance(name, str):
        raise EstimateError(f"model name must be a string (got {type(name).__name__} {name!r})")
    spec = _BY_KEY.get(_key(name))
    if spec is not None:
        return spec
    raise EstimateError(
        f"unknown model {name!r}. To fix: use a model listed by `computeops estimate --help` "
        "or give its size with --params-b." + did_you_mean_text(did_you_mean(_key(name), sorted(_BY_KEY)))
    )


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
    # The upper bound is the intent's (workload.model.params_b <= 100,000): past it the derived
    # shape overflows, and no model is 100 trillion parameters.
    if not (0 < params_b <= 100_000):
        raise EstimateError(
            f"params_b must be a number of billions in (0, 100000], got {params_b!r}. "
            "To fix: give the total parameters in billions (70 for a 70B model)."
        )
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
