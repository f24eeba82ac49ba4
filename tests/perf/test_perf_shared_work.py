"""The model's first-call work shared between estimates (a cold decide's ~260 estimates): the
replicas of one shape, their points and latency searches, the accelerators' Hardware and the
validation labels. Sharing must never change a number: an estimate made after many others, in any
order, is the estimate made alone with every cache empty."""

from __future__ import annotations

import itertools
import random
from types import SimpleNamespace

import pytest

import computeops_cdk.perf as perf
from computeops_cdk.catalog import Accelerator
from computeops_cdk.perf import _inference, _training

_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3")


def _forget() -> None:
    for cached in (
        _inference.estimate_inference_hw,
        _inference._shared_replica,
        _training.estimate_training_hw,
        perf._validation,
    ):
        cached.cache_clear()
    perf._HARDWARE.clear()
    _inference._forget_shared()


def _questions(accs: dict[str, Accelerator]) -> list[dict[str, object]]:
    # What the sizing asks: every shape at the intent's latency targets and at tighter ones, by
    # instance size, plus throughput-only and fixed-concurrency questions.
    # Each input differs alone somewhere: the targets one at a time, the lengths (1088 + 128 / 2 is
    # 1024 + 256 / 2: one replica), and accelerators per node (a TP group crossing nodes or not).
    chosen = [accs[name] for name in ("H100-SXM", "A100-80GB", "MI300X", "L4", "TPU-v5e")]
    asked = []
    for acc, model, precision, (count, per_node), (ttft, tpot, concurrency), (inp, out) in itertools.product(
        chosen,
        _MODELS,
        ("fp8", "bf16"),
        ((1, 1), (2, 2), (2, 1), (8, 8), (16, 8), (16, 4)),
        ((800.0, 60.0, None), (400.0, 60.0, None), (800.0, 30.0, None), (None, None, None), (None, None, 32)),
        ((1024, 256), (1088, 128), (512, 256)),
    ):
        asked.append(
            {
                "model": perf.resolve_model(model),
                "precision": precision,
                "accelerator": acc,
                "count": count,
                "input_tokens": inp,
                "output_tokens": out,
                "ttft_ms": ttft,
                "tpot_ms": tpot,
                "concurrency": concurrency,
                "gpus_per_node": per_node,
            }
        )
    return asked


def test_an_estimate_is_the_same_alone_and_after_others_in_any_order(accs: dict[str, Accelerator]) -> None:
    asked = _questions(accs)
    alone = []
    for question in asked:
        _forget()
        alone.append(repr(perf.estimate_inference(**question)))  # type: ignore[arg-type]
    for seed in (0, 1):
        order = list(range(len(asked)))
        random.Random(seed).shuffle(order)
        _forget()
        shared = {n: repr(perf.estimate_inference(**asked[n])) for n in order}  # type: ignore[arg-type]
        assert [shared[n] for n in range(len(asked))] == alone


def test_a_replica_is_shared_by_the_estimates_of_its_shape(accs: dict[str, Accelerator]) -> None:
    _forget()
    h100 = accs["H100-SXM"]
    for count in (1, 2, 4, 8):
        perf.estimate_inference(
            perf.resolve_model("llama-3.1-8b"), precision="fp8", accelerator=h100, count=count,
            input_tokens=1024, output_tokens=256, ttft_ms=800, tpot_ms=60,
        )  # fmt: skip
    # TP 1 asked four times, 2 three times, ...: each made once, then found by the records' identity
    info = _inference._shared_replica.cache_info()
    assert info.misses == 4 and info.currsize == 4
    (shared,) = _inference._SHARED.values()
    assert sorted(key[1] for key in shared.replicas) == [1, 2, 4, 8]
    assert sorted(shared.degrees) == [1, 2, 4, 8] and list(shared.precisions) == ["fp8"]


def _copy(record: object) -> object:
    return type(record)(**{name: getattr(record, name) for name in record.__dataclass_fields__})  # type: ignore[attr-defined]


def test_equal_records_of_another_identity_share_the_replicas_and_the_numbers(
    accs: dict[str, Accelerator],
) -> None:
    # Kept by identity, a second catalog's equal accelerator (and a second equal model) gets its own
    # entry, filled from the lru_cache: the very replicas, the same estimates.
    _forget()
    model, h100 = perf.resolve_model("llama-3.1-70b"), accs["H100-SXM"]
    ask = {"precision": "fp8", "count": 8, "input_tokens": 1024, "output_tokens": 256, "ttft_ms": 800.0}
    first = perf.estimate_inference(model, accelerator=h100, **ask)  # type: ignore[arg-type]
    _inference.estimate_inference_hw.cache_clear()  # ask again, not read back the whole estimate
    again = perf.estimate_inference(_copy(model), accelerator=_copy(h100), **ask)  # type: ignore[arg-type]
    assert repr(again) == repr(first)
    one, two = _inference._SHARED.values()
    assert one.model is not two.model and one.hardware is not two.hardware
    assert one.replicas.keys() == two.replicas.keys()
    assert all(two.replicas[key] is replica for key, replica in one.replicas.items())


def test_what_is_kept_by_identity_is_bounded(accs: dict[str, Accelerator]) -> None:
    _forget()
    model = perf.resolve_model("llama-3.1-8b")
    h100 = accs["H100-SXM"]
    for n in range(_inference._SHARED_KEPT + 10):
        copy = Accelerator(**{**{f: getattr(h100, f) for f in h100.__dataclass_fields__}, "id": f"X{n}"})
        perf.estimate_inference(
            model, precision="bf16", accelerator=copy, count=1, input_tokens=512, output_tokens=128
        )
    assert 0 < len(_inference._SHARED) <= _inference._SHARED_KEPT
    shared = next(iter(_inference._SHARED.values()))
    for inp in range(1, _inference._SHARED_KEPT + 10):  # another context each: another replica
        _inference.estimate_inference_hw(
            model, shared.hardware, "bf16", 1, inp, 16, None, None, None, 8
        )  # fmt: skip
    assert 0 < len(shared.replicas) <= _inference._SHARED_KEPT


def test_the_replicas_of_all_entries_together_are_bounded(
    accs: dict[str, Accelerator], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Review: the two caps nested (256 entries x 256 replicas); one cap now holds for all entries.
    monkeypatch.setattr(_inference, "_REPLICAS_KEPT", 40)
    _forget()
    model = perf.resolve_model("llama-3.1-8b")
    h100 = accs["H100-SXM"]
    for n in range(6):
        copy = Accelerator(**{**{f: getattr(h100, f) for f in h100.__dataclass_fields__}, "id": f"Y{n}"})
        for inp in range(1, 31):  # another context each: another replica
            perf.estimate_inference(
                model, precision="bf16", accelerator=copy, count=1, input_tokens=inp, output_tokens=16
            )
    assert 0 < sum(len(shared.replicas) for shared in _inference._SHARED.values()) <= 40


def test_hardware_is_kept_only_for_frozen_records(accs: dict[str, Accelerator]) -> None:
    _forget()
    model = perf.resolve_model("llama-3.1-8b")
    h100 = accs["H100-SXM"]
    ask = {"model": model, "precision": "fp8", "count": 1, "input_tokens": 512, "output_tokens": 128}
    perf.estimate_inference(accelerator=h100, **ask)  # type: ignore[arg-type]
    assert [entry[0] for entry in perf._HARDWARE.values()] == [h100]
    # A duck-typed accelerator may change between calls: it is reduced every time, never kept.
    fields = {name: getattr(h100, name) for name in h100.__dataclass_fields__}
    loose = SimpleNamespace(**fields, is_tpu=h100.is_tpu)
    before = perf.estimate_inference(accelerator=loose, **ask)  # type: ignore[arg-type]
    loose.memory_bw_gbps = h100.memory_bw_gbps / 2
    after = perf.estimate_inference(accelerator=loose, **ask)  # type: ignore[arg-type]
    assert after.tpot_ms > before.tpot_ms
    assert len(perf._HARDWARE) == 1


def test_the_kept_hardware_is_bounded(accs: dict[str, Accelerator]) -> None:
    _forget()
    model = perf.resolve_model("llama-3.1-8b")
    h100 = accs["H100-SXM"]
    for n in range(perf._HARDWARE_KEPT + 10):
        copy = Accelerator(**{**{f: getattr(h100, f) for f in h100.__dataclass_fields__}, "id": f"X{n}"})
        perf.estimate_inference(
            model, precision="bf16", accelerator=copy, count=1, input_tokens=512, output_tokens=128
        )
    assert len(perf._HARDWARE) <= perf._HARDWARE_KEPT


@pytest.fixture(autouse=True)
def _empty_caches_after() -> object:
    yield
    _forget()
