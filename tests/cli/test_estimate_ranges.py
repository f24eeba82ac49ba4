"""``computeops estimate``'s numeric flags have the physical ranges the intent models and the
catalog use for the same quantities (red team: --count 1e20 gave 9.8e22 tokens/s, exit 0)."""

from __future__ import annotations

import json

import pytest

from computeops_cdk import _limits
from computeops_cdk.cli import main
from computeops_cdk.intent._workload import ModelRef, Serving, Training
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


def _le(model: type, field: str) -> object:
    (bound,) = [spec.le for spec in model.__specs__ if spec.name == field]
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
