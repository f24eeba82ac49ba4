"""``computeops estimate``'s numeric flags have the physical ranges the intent models and the
catalog use for the same quantities (red team: --count 1e20 gave 9.8e22 tokens/s, exit 0)."""

from __future__ import annotations

import json
import numbers
from decimal import Decimal
from fractions import Fraction

import pytest
from pydantic import BaseModel

from computeops_cdk import _limits
from computeops_cdk.catalog import load_catalog
from computeops_cdk.cli import main
from computeops_cdk.errors import EstimateError
from computeops_cdk.intent._workload import ModelRef, Serving, Training
from computeops_cdk.perf import _calibration, estimate_inference, resolve_model
from computeops_cdk.schemas import load_schema

BASE = ["estimate", "--model", "llama-3.1-8b", "--precision", "bf16", "--accelerator", "H100"]
INFERENCE = [*BASE, "--workload", "inference"]
TRAINING = [*BASE, "--workload", "training"]


@pytest.mark.parametrize(
    ("argv", "flag", "high"),
    [
        ([*INFERENCE, "--count", "100000000000000000000"], "--count", "4,194,304"),
        ([*INFERENCE, "--count", "4194305"], "--count", "4,194,304"),
        ([*INFERENCE, "--gpus-per-node", "16385"], "--gpus-per-node", "16,384"),
        ([*INFERENCE, "--input-tokens", "10000001"], "--input-tokens", "10,000,000"),
        ([*INFERENCE, "--output-tokens", "10000001"], "--output-tokens", "10,000,000"),
        ([*TRAINING, "--seq-len", "10000001"], "--seq-len", "10,000,000"),
        (
            [*TRAINING, "--global-batch-tokens", "10000000000001"],
            "--global-batch-tokens",
            "10,000,000,000,000",
        ),
        ([*BASE[:1], "--params-b", "100001", *BASE[3:], "--workload", "inference"], "--params-b", "100,000"),
        # 1e400 requests in flight was an OverflowError traceback (exit 1); 1e12 was exit 0
        ([*INFERENCE, "--concurrency", "1" + "0" * 400], "--concurrency", "4,294,967,296"),
        ([*INFERENCE, "--concurrency", "4294967297"], "--concurrency", "4,294,967,296"),
    ],
)
def test_a_flag_beyond_its_physical_range_is_exit_2_naming_it(
    argv: list[str], flag: str, high: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be in 1..{high} (" in err
    assert "To fix: give a value in that range" in err


def test_the_largest_deployment_is_still_estimated(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*INFERENCE, "--count", str(_limits.MAX_ACCELERATORS), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == _limits.MAX_ACCELERATORS


def _le(model: type[BaseModel], field: str) -> object:
    (bound,) = [m.le for m in model.model_fields[field].metadata if hasattr(m, "le")]
    return bound


def test_one_number_per_quantity() -> None:
    # The CLI's bounds are the intent models' and the catalog schema's, not a second copy.
    assert _le(Serving, "input_tokens") == _le(Serving, "output_tokens") == _limits.MAX_TOKENS
    assert _le(Training, "seq_len") == _limits.MAX_TOKENS
    assert _le(Training, "global_batch_tokens") == _limits.MAX_GLOBAL_BATCH_TOKENS
    assert _le(ModelRef, "params_b") == _le(ModelRef, "active_params_b") == _limits.MAX_PARAMS_B
    shape = load_schema("catalog")["$defs"]
    counts = [
        d["properties"]["accelerator_count"]
        for d in shape.values()
        if "accelerator_count" in d.get("properties", {})
    ]
    assert counts and all(c["maximum"] == _limits.MAX_ACCELERATORS_PER_INSTANCE for c in counts)


def test_the_most_requests_in_flight_are_still_estimated(capsys: pytest.CaptureFixture[str]) -> None:
    # The bound is what the model can represent: every replica of the largest deployment at the
    # largest batch a serving runtime schedules (each replica's batch is capped there anyway).
    assert _limits.MAX_BATCH_PER_REPLICA == _calibration.MAX_BATCH
    assert _limits.MAX_CONCURRENCY == _limits.MAX_ACCELERATORS * _calibration.MAX_BATCH == 2**32
    argv = [*INFERENCE, "--count", str(_limits.MAX_ACCELERATORS), "--concurrency", str(2**32)]
    assert main([*argv, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == _limits.MAX_ACCELERATORS


def test_a_long_number_is_echoed_cut(capsys: pytest.CaptureFixture[str]) -> None:
    # A 5,000-digit value was echoed whole in "must be a whole number (got '1000...')".
    with pytest.raises(SystemExit) as raised:
        main([*INFERENCE, "--concurrency", "1" * 5000])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and "argument --concurrency: must be a whole number (got '111" in err
    assert len(err) < 1000
    with pytest.raises(SystemExit):
        main([*INFERENCE, "--ttft-ms", "x" * 5000])
    assert len(capsys.readouterr().err) < 1000


@pytest.mark.parametrize("flag", ["--count", "--concurrency", "--input-tokens", "--gpus-per-node"])
def test_a_long_negative_number_is_echoed_cut(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    # A 4,000-digit negative was echoed whole in "must be >= 1 (got -999...)" (4,690 bytes).
    with pytest.raises(SystemExit) as raised:
        main([*INFERENCE, flag, "-" + "9" * 4000])
    err = capsys.readouterr().err
    assert raised.value.code == 2 and f"argument {flag}: must be >= 1 (got '-999" in err
    assert len(err) < 1000
    with pytest.raises(SystemExit):
        main([*TRAINING, "--seq-len", "-" + "9" * 4000])
    assert len(capsys.readouterr().err) < 1000


@pytest.mark.parametrize("concurrency", [2**32 + 1, 10**400, 10**5000], ids=["2^32+1", "1e400", "1e5000"])
def test_the_api_refuses_more_requests_than_the_model_represents(concurrency: int) -> None:
    h100 = next(a for a in load_catalog().accelerators if a.id == "H100-SXM")
    with pytest.raises(EstimateError, match=r"concurrency must be at most 4,294,967,296 .*To fix") as info:
        estimate_inference(
            resolve_model("llama-3.1-8b"),
            precision="bf16",
            accelerator=h100,
            count=8,
            input_tokens=1024,
            output_tokens=256,
            concurrency=concurrency,
        )
    assert len(str(info.value)) < 400


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # 10**400 accelerators was an OverflowError traceback; 2**40 was estimated
        ({"count": 10**400}, "count must be at most 4,194,304 (the largest deployment"),
        ({"count": 2**40}, "count must be at most 4,194,304 (the largest deployment"),
        ({"input_tokens": 10**400}, "input_tokens must be at most 10,000,000 ("),
        ({"gpus_per_node": 16385}, "gpus_per_node must be at most 16,384 ("),
        ({"tensor_parallel": 10**400}, "tensor_parallel (a number of about 400 digits) cannot exceed count"),
    ],
    ids=["count-1e400", "count-2^40", "input-1e400", "per-node", "tensor-parallel-1e400"],
)
def test_the_api_has_the_flags_ranges(change: dict[str, int], message: str) -> None:
    h100 = next(a for a in load_catalog().accelerators if a.id == "H100-SXM")
    args: dict[str, int] = {"count": 8, "input_tokens": 1024, "output_tokens": 256, **change}
    with pytest.raises(EstimateError) as info:
        estimate_inference(resolve_model("llama-3.1-8b"), precision="bf16", accelerator=h100, **args)
    assert message in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize(
    ("change", "got"),
    [
        # 10**400 was an OverflowError traceback (float of it), -10**5000 a ValueError (repr of it)
        ({"tpot_ms": 10**400}, "a number of about 400 digits"),
        ({"ttft_ms": 10**400}, "a number of about 400 digits"),
        ({"tpot_ms": -(10**5000)}, "about 5,000 digits"),
        ({"ttft_ms": float("inf")}, "inf"),
        ({"tpot_ms": float("nan")}, "nan"),
        ({"tpot_ms": -1.5}, "-1.5"),
    ],
    ids=["tpot-1e400", "ttft-1e400", "tpot-minus-1e5000", "ttft-inf", "tpot-nan", "tpot-negative"],
)
def test_a_latency_target_out_of_range_is_an_estimate_error(change: dict[str, object], got: str) -> None:
    h100 = next(a for a in load_catalog().accelerators if a.id == "H100-SXM")
    (name,) = change
    with pytest.raises(EstimateError) as info:
        estimate_inference(
            resolve_model("llama-3.1-8b"),
            precision="bf16",
            accelerator=h100,
            count=8,
            input_tokens=1024,
            output_tokens=256,
            **change,  # type: ignore[arg-type]
        )
    text = str(info.value)
    assert text.startswith(f"{name} must be a finite number of milliseconds > 0 (at most 1.798e+308; got ")
    assert got in text and "To fix: pass the latency target in milliseconds" in text and len(text) < 300


def test_the_largest_latency_target_is_still_estimated() -> None:
    h100 = next(a for a in load_catalog().accelerators if a.id == "H100-SXM")
    estimate = estimate_inference(
        resolve_model("llama-3.1-8b"),
        precision="bf16",
        accelerator=h100,
        count=8,
        input_tokens=1024,
        output_tokens=256,
        ttft_ms=10**300,
        tpot_ms=1.7e308,
    )
    assert estimate.slo_met


@numbers.Integral.register
class _Int64:
    """What numpy's int64 is to these checks: an Integral that is not an int."""

    def __repr__(self) -> str:
        return "np.int64(8)"


class _Loud:
    def __repr__(self) -> str:  # pragma: no cover - never called: an unknown type shows its name
        raise AssertionError("repr of an unknown type was called")


@pytest.mark.parametrize(
    ("change", "got"),
    [
        # a numpy int64, a Decimal, a Fraction were shown as <int64>, <Decimal>, <Fraction>
        ({"count": _Int64()}, "got np.int64(8). To fix: pass a Python int >= 1 (int(x) of"),
        ({"concurrency": Decimal(8)}, "got Decimal('8'). To fix: pass a Python int >= 1 (int(x) of"),
        ({"input_tokens": Fraction(8)}, "got Fraction(8, 1). To fix: pass a Python int >= 1 (int(x) of"),
        ({"count": Decimal("1" * 5000)}, "got Decimal('1111111111111111111111111111..."),
        ({"count": Fraction(10**5000)}, "got <Fraction>"),
        ({"tensor_parallel": "8"}, "got '8'. To fix: pass a Python int >= 1"),
        ({"gpus_per_node": _Loud()}, "got <_Loud>. To fix: pass a Python int >= 1"),
        # a huge negative said "a number of about 400 digits"
        ({"count": -(10**400)}, "got a negative number of about 400 digits. To fix: pass a Python int >= 1"),
        ({"ttft_ms": -(10**400)}, "got a negative number of about 400 digits). To fix"),
        ({"tpot_ms": Decimal(-5)}, "got Decimal('-5')). To fix"),
    ],
    ids=[
        "int64",
        "decimal",
        "fraction",
        "long-decimal",
        "huge-fraction",
        "str",
        "unknown",
        "neg",
        "neg-ms",
        "dec-ms",
    ],
)
def test_a_bad_argument_is_shown_by_a_short_repr_with_a_fix(change: dict[str, object], got: str) -> None:
    h100 = next(a for a in load_catalog().accelerators if a.id == "H100-SXM")
    args: dict[str, object] = {"count": 8, "input_tokens": 1024, "output_tokens": 256, **change}
    with pytest.raises(EstimateError) as info:
        estimate_inference(resolve_model("llama-3.1-8b"), precision="bf16", accelerator=h100, **args)  # type: ignore[arg-type]
    assert got in str(info.value) and len(str(info.value)) < 300
