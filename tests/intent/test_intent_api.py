"""The intent models as a Python user meets them: mutated documents (hypothesis) give an intent that
round-trips or an IntentError, conversions, edge cases, frozen models, instances as nested fields."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from computeops_cdk.errors import IntentError
from computeops_cdk.intent import Constraints, ModelRef, Serving, Training, Weights, WorkloadIntent
from computeops_cdk.intent._base import IntentModel

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
DOCUMENTS = [WorkloadIntent.from_file(path).to_dict(exclude_none=True) for path in EXAMPLES]

# Values a field may meet: of its own type, of a type pydantic coerces, and of types it refuses.
ODD_VALUES: list[Any] = [
    0, 1, -1, 7, 5.0, 2.5, 0.1, 1e9, 1e9 + 1, 1e16, 1e17, 2**53, 2**53 + 1, 10**30, -0.0,
    math.nan, math.inf, -math.inf, True, False, None, "", "16", " 16 ", "1e3", "2.5", "inf",
    "on_demand", "spot", "fp8", "bf16", "full", "lora", "inference", "training", "US", "us", "EU",
    "aws:us-east-1", "vast:uss", "llama-3.1-8b", "Chat", "chat\n", "x" * 70, [], ["US"], ["spot", "spot"],
    ("on_demand",), ["aws"], ["nowhere"], [1], {}, {"allow": ["aws"]}, {"countries": ["DE"]},
    {"cost": 0}, b"bytes", {"x"},
]  # fmt: skip


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def _delete(data: Any, path: tuple[Any, ...]) -> None:
    for part in path[:-1]:
        data = data[part]
    del data[path[-1]]


@st.composite
def mutated_documents(draw: st.DrawFn) -> dict[str, Any]:
    document = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    for _ in range(draw(st.integers(min_value=0, max_value=3))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["set", "set", "set", "delete", "add", "alias"]))
        parent: Any = document
        for part in path[:-1]:
            parent = parent[part]
        if action == "set":
            _set(document, path, copy.deepcopy(draw(st.sampled_from(ODD_VALUES))))
        elif action == "delete" and isinstance(parent, dict):
            _delete(document, path)
        elif action == "add" and isinstance(parent, dict):
            key = draw(st.sampled_from(["extra", "ttft_ms", "regions", "weights", "api_version", 1]))
            parent[key] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
        elif action == "alias":
            document["api_version"] = "computeops.dev/v1"  # by name beside the alias
    return document


def _round_trips(intent: WorkloadIntent) -> None:
    again = WorkloadIntent.from_dict(intent.to_dict())
    assert again == intent and again.sha256 == intent.sha256 and hash(again) == hash(intent)
    assert WorkloadIntent.from_yaml(intent.to_yaml()) == intent


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_a_mutated_document_is_a_round_tripping_intent_or_an_intent_error(document: dict[str, Any]) -> None:
    try:
        intent = WorkloadIntent.from_dict(document)
    except IntentError as err:
        assert str(err) and len(str(err)) < 2_000 and "Input should" not in str(err)
        return
    _round_trips(intent)


@pytest.mark.parametrize(
    ("cls", "data", "made"),
    [
        (Serving, {"output_tokens_per_s": 100, "input_tokens": 5.0}, {"input_tokens": 5}),
        (Serving, {"output_tokens_per_s": "100"}, {"output_tokens_per_s": 100.0}),
        (Constraints, {"pricing": ("spot",), "compliance": ["hipaa"]}, {"pricing": ("spot",)}),
        (ModelRef, {"params_b": 13}, {"name": "custom-13b", "params_b": 13.0}),
        (Training, {"tokens": 2**53 + 1}, {"tokens": float(2**53)}),  # no float holds it exactly
    ],
)
def test_values_are_converted_to_the_fields_own_type(
    cls: type[IntentModel], data: dict[str, Any], made: dict[str, Any]
) -> None:
    model = cls(**data)
    for name, value in made.items():
        assert getattr(model, name) == value and type(getattr(model, name)) is type(value)


@pytest.mark.parametrize(
    ("cls", "data", "path", "says"),
    [
        (Serving, {"output_tokens_per_s": 2**60}, "output_tokens_per_s", "must be <= 1e+09"),
        (Training, {"tokens": 1e12, "seq_len": 4096, "global_batch_tokens": 1024}, "global_batch_tokens",
         "must be >= seq_len (4096) (got 1024)"),
        (Weights, {"cost": 0, "performance": 0, "availability": 0, "reliability": 0, "compliance": 0,
                   "residency": 0}, "", "at least one weight must be > 0"),
        (Constraints, {"pricing": ["spot", "nowhere"]}, "pricing[1]", "must be one of 'on_demand'"),
        (Constraints, {"accept_suspect_prices": 1}, "accept_suspect_prices", "must be true or false (got 1)"),
        (ModelRef, {"name": "llama-3.1-8b", "params_b": 70}, "params_b", "8.03B parameters"),
        (WorkloadIntent, {"name": "chat\n", "workload": DOCUMENTS[0]["workload"]}, "name",
         "must be lower-case letters"),  # a pattern's `$` does not match before a final newline
        (Serving, {"output_tokens_per_s": True}, "output_tokens_per_s", "is not a yes/no flag"),
    ],
)  # fmt: skip
def test_edge_cases_are_refused_at_their_path(
    cls: type[IntentModel], data: dict[str, Any], path: str, says: str
) -> None:
    with pytest.raises(IntentError) as info:
        cls(**data)
    assert info.value.path == path and says in str(info.value)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_round_trips(path: Path) -> None:
    _round_trips(WorkloadIntent.from_file(path))


def test_models_are_frozen_hashable_and_compare_by_value() -> None:
    intent = WorkloadIntent.from_file(EXAMPLES[0])
    with pytest.raises(AttributeError, match=r"cannot assign to field 'name'.*replace\(name=\.\.\.\)"):
        intent.name = "other"  # type: ignore[misc]
    assert hash(intent) == hash(WorkloadIntent.from_file(EXAMPLES[0]))
    assert intent != intent.replace(name="other")
    assert intent.replace(name="other").name == "other"
    with pytest.raises(IntentError) as info:
        intent.replace(name="Not A Label")
    assert info.value.path == "name"


# -- found by review (each failed before its fix) ------------------------------------------------


def test_a_cyclic_or_deep_mapping_is_an_intent_error_not_a_recursion_error() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["x"] = cyclic
    with pytest.raises(IntentError, match=r"also x: unknown field"):
        WorkloadIntent.from_dict(cyclic)
    deep: dict[str, Any] = {}
    for _ in range(5_000):
        deep = {"x": deep}
    with pytest.raises(IntentError, match=r"x: unknown field"):
        WorkloadIntent.from_dict({"name": "chat", "workload": DOCUMENTS[0]["workload"], **deep})


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"workload": {"type": "training", "model": {"name": "x\ud800", "params_b": 13},
                       "training": {"tokens": 1e9}}}, "workload.model.name"),
        ({"constraints": {"accelerators": {"allow": ["H100", "H\udc00"]}}},
         "constraints.accelerators.allow[1]"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_is_refused_in_every_string(change: dict[str, Any], path: str) -> None:
    # Before: accepted, then `decide` crashed in the intent's digest (UnicodeEncodeError, exit 1).
    with pytest.raises(IntentError) as info:
        WorkloadIntent.from_dict({**DOCUMENTS[0], **change})
    assert info.value.path == path
    assert "lone surrogate" in str(info.value)


def test_a_lone_surrogate_in_a_json_intent_is_exit_2_for_the_cli(tmp_path: Path) -> None:
    intent = tmp_path / "intent.json"
    intent.write_text(
        '{"name": "chat", "workload": {"type": "training", "model": {"name": "x\\ud800", "params_b": 13}, '
        '"training": {"tokens": 1e9}}}'
    )
    done = subprocess.run(
        [sys.executable, "-m", "computeops_cdk.cli", "decide", str(intent)], capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "workload.model.name" in done.stderr


def test_an_instance_of_another_model_is_refused_as_before() -> None:
    from computeops_cdk.intent import AcceleratorFilter, ProviderFilter

    # Before the fix it was read as a ProviderFilter with the same fields.
    with pytest.raises(IntentError) as info:
        Constraints(providers=AcceleratorFilter(allow=("aws",)))
    assert info.value.path == "providers"
    assert str(info.value).startswith("providers: must be a mapping of fields")
    with pytest.raises(IntentError, match=r"must be a number \(got <ProviderFilter>\)"):
        Constraints(max_hourly_usd=ProviderFilter(allow=("aws",)))


def test_instances_inside_a_dict_subclass_and_subclass_instances_are_taken() -> None:
    from collections import OrderedDict

    from computeops_cdk.intent import Workload

    workload = WorkloadIntent.from_dict(DOCUMENTS[0]).workload
    assert WorkloadIntent.from_dict(OrderedDict(name="chat", workload=workload)).workload == workload

    class MyServing(Serving):
        pass

    serving = MyServing(output_tokens_per_s=100)
    made = Workload(type="inference", model={"name": "llama-3.1-8b"}, serving=serving)
    assert made.serving is serving


@pytest.mark.parametrize("params_b", [10**400, -(10**400)])
def test_a_size_no_float_holds_is_an_intent_error(params_b: int) -> None:
    # Before: OverflowError from naming the model after its size (the old models too).
    with pytest.raises(IntentError) as info:
        ModelRef(params_b=params_b)
    assert "params_b" in str(info.value)


def test_replace_takes_any_field_name() -> None:
    intent = WorkloadIntent.from_dict(DOCUMENTS[0])
    with pytest.raises(IntentError, match=r"self: unknown field"):
        intent.replace(self=1)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"workload": {**DOCUMENTS[0]["workload"], "\ud800": 1}}, "workload.\\ud800"),
        ({"constraints": {"providers": {"allow": ["aws"], "x\udfffy": 1}}},
         "constraints.providers.x\\udfffy"),
        ({"\udc00": 1}, "\\udc00"),
        ({"é\ud800" * 30: 1}, "é\\ud800é\\ud800é\\ud800é\\ud800é\\ud800é\\..."),
    ],
)  # fmt: skip
def test_a_lone_surrogate_in_a_key_gets_the_values_message_at_the_keys_path(
    change: dict[str, Any], path: str
) -> None:
    # Before: pydantic's own words ("Input should be a valid string, unable to parse raw data as a
    # unicode string") at the path of the mapping holding the key.
    with pytest.raises(IntentError) as info:
        WorkloadIntent.from_dict({**DOCUMENTS[0], **change})
    assert info.value.path == path
    assert str(info.value) == (
        f"{path}: holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which is not Unicode "
        "text. To fix: write the character itself or a valid pair of escapes"
    )
    assert "Input should" not in str(info.value)


def test_a_lone_surrogate_key_in_a_json_intent_is_named_by_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from computeops_cdk.cli import main

    intent = tmp_path / "intent.json"
    intent.write_text(
        '{"name": "chat", "workload": {"type": "training", "model": {"name": "x", "params_b": 13}, '
        '"training": {"tokens": 1e9, "\\ud800": 1}}}'
    )
    assert main(["decide", str(intent)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: workload.training.\\ud800: holds a lone surrogate (an unpaired ")
