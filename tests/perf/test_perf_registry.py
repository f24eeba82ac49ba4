from __future__ import annotations

import dataclasses

import pytest

from computeops_cdk.errors import EstimateError
from computeops_cdk.perf import model_from_params, model_names, resolve_model


@pytest.mark.parametrize(
    "alias",
    ["llama-3.1-70b", "LLAMA-3.1-70B", "meta-llama/Llama-3.1-70B", "meta-llama/Llama-3.1-70B-Instruct"],
)
def test_aliases_resolve_case_insensitively(alias: str) -> None:
    assert resolve_model(alias).name == "llama-3.1-70b"


def test_unknown_model_suggests_close_names() -> None:
    with pytest.raises(EstimateError) as err:
        resolve_model("llama-3.1-7b")
    assert str(err.value).startswith("unknown model 'llama-3.1-7b'. To fix:")
    assert "did you mean" in str(err.value)


def test_registry_covers_the_issue_list() -> None:
    names = set(model_names())
    wanted = {
        "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3.1-70b", "llama-3.1-405b",
        "llama-3.3-70b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "qwen2.5-7b", "qwen2.5-72b",
        "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3", "deepseek-r1", "gemma-2-9b", "gemma-3-27b",
        "gpt-j-6b", "mpt-7b", "mpt-30b", "mpt-70b",
    }  # fmt: skip
    assert wanted <= names


def test_every_entry_is_consistent_and_cited() -> None:
    for name in model_names():
        m = resolve_model(name)
        assert m.source, name
        assert 0 < m.active_params_b <= m.params_b, name
        assert m.heads % m.kv_heads == 0, name
        assert m.is_moe == (m.experts > 0), name
        # 12 * layers * hidden^2 is the classic dense-transformer estimate; published counts stay
        # within 2.5x of it (embeddings, GQA and wide gated MLPs such as Gemma 2 27B's 8x move it).
        if not m.is_moe:
            rough = 12 * m.layers * m.hidden**2 / 1e9
            assert 0.5 < m.params_b / rough < 2.5, name


def test_deepseek_uses_the_compressed_mla_cache() -> None:
    ds = resolve_model("deepseek-r1")
    assert ds.kv_elements_per_token == 61 * 576
    assert ds.is_moe and ds.active_params_b == 37.0


def test_model_from_params_records_defaults() -> None:
    m = model_from_params(70)
    assert {"hidden", "layers", "kv_heads", "head_dim"} <= set(m.estimated_fields)
    assert 7000 < m.hidden < 10000 and not m.is_moe
    moe = model_from_params(47, active_params_b=13, layers=32, hidden=4096, kv_heads=8)
    assert moe.is_moe and "experts" in moe.estimated_fields
    assert "hidden" not in moe.estimated_fields and moe.layers == 32


@pytest.mark.parametrize(("params", "active"), [(0, None), (-1, None), (10, 20), (10, 0)])
def test_model_from_params_rejects_nonsense(params: float, active: float | None) -> None:
    with pytest.raises(EstimateError):
        model_from_params(params, active_params_b=active)


@pytest.mark.parametrize("params", [1e300, float("inf"), float("nan")])
def test_model_from_params_rejects_absurd_sizes_with_a_fix(params: float) -> None:
    # 1e300 used to overflow deriving the hidden size (OverflowError, a traceback in the CLI).
    with pytest.raises(EstimateError) as info:
        model_from_params(params)
    assert str(info.value) == (
        f"params_b must be a number of billions in (0, 100000], got {params!r}. "
        "To fix: give the total parameters in billions (70 for a 70B model)."
    )


def test_sliding_window_layers_cache_only_their_window() -> None:
    g3 = resolve_model("gemma-3-27b")
    assert g3.kv_context(512) == 512  # shorter than the window: every layer holds everything
    # 62 layers: 10 global hold all 131072 tokens, 52 local hold 1024
    assert g3.kv_context(131072) == (10 * 131072 + 52 * 1024) / 62
    assert resolve_model("mistral-7b").kv_context(32768) == 4096
    assert resolve_model("llama-3.1-8b").kv_context(131072) == 131072


def test_sliding_window_shrinks_long_context_memory() -> None:
    from computeops_cdk.perf import estimate_inference

    from .conftest import ACCELERATORS

    g3 = resolve_model("gemma-3-27b")
    kw = {"precision": "bf16", "accelerator": ACCELERATORS["H200"], "count": 1, "concurrency": 1}
    local = estimate_inference(g3, input_tokens=65536, output_tokens=256, **kw)  # type: ignore[arg-type]
    dense = estimate_inference(
        dataclasses.replace(g3, sliding_window=0),
        input_tokens=65536,
        output_tokens=256,
        **kw,  # type: ignore[arg-type]
    )
    assert local.memory_gb_per_accelerator < dense.memory_gb_per_accelerator - 10


def test_every_alias_resolves_to_its_own_model() -> None:
    for name in model_names():
        for alias in resolve_model(name).aliases:
            assert resolve_model(alias).name == name, alias
