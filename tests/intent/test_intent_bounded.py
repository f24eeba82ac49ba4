"""Bounded work on any intent (issue 10 section 2): every hostile input is an IntentError with a short
message, by construction (size, depth, expansion and listing limits), never a traceback, a hang or
gigabytes. No test here measures time: each asserts the limit that bounds the work."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from computeops_cdk.engine import decide
from computeops_cdk.errors import ComputeOpsError, IntentError
from computeops_cdk.intent import WorkloadIntent

GOOD = """\
apiVersion: computeops.dev/v1
kind: WorkloadIntent
name: chat
workload:
  type: inference
  model: {name: llama-3.1-8b}
  serving:
    output_tokens_per_s: 1000
"""
MESSAGE_LIMIT = 2_000
"""The longest message any of these inputs may produce (the 495-byte bomb once gave 72 MB)."""


def _yaml_error(text: str) -> IntentError:
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml(text)
    assert len(str(caught.value)) < MESSAGE_LIMIT
    return caught.value


def _file_error(path: str | Path) -> IntentError:
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_file(path)
    assert len(str(caught.value)) < MESSAGE_LIMIT
    return caught.value


# -- files -----------------------------------------------------------------------------------------


def test_the_good_intent_parses() -> None:
    assert WorkloadIntent.from_yaml(GOOD).name == "chat"


def test_a_file_over_one_mib_is_refused_unread(tmp_path: Path) -> None:
    from computeops_cdk.intent import MAX_INTENT_BYTES

    assert MAX_INTENT_BYTES == 1024 * 1024
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_INTENT_BYTES + 1)  # sparse: no disk used
    assert "1 MiB" in str(_file_error(path))


def test_text_over_one_mib_is_refused() -> None:
    assert "1 MiB" in str(_yaml_error(GOOD + "#" * (1024 * 1024)))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "intent.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in str(_file_error(fifo))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused() -> None:
    assert "not a regular file" in str(_file_error("/dev/zero"))


def test_a_path_with_a_nul_byte() -> None:
    assert "NUL" in str(_file_error("intent\x00.yaml"))
    with pytest.raises(IntentError, match="NUL"):
        decide("intent\x00.yaml")


# -- YAML that expands, nests or is read the YAML 1.1 way ----------------------------------------

BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
)


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    assert len(BOMB) < 600
    err = _yaml_error(BOMB)
    assert "alias" in str(err)


def test_an_alias_bomb_in_a_field_is_refused() -> None:
    text = GOOD.replace("name: chat", "name: *i") + BOMB.replace("a: &a", "x: &a", 1)
    assert "alias" in str(_yaml_error(text))


def test_a_document_of_more_than_10000_values_stops_composing() -> None:
    # 10,000 unknown keys in YAML: refused once 10,000 values are composed, not after reading them all
    text = GOOD + "".join(f"unknown_{i}: {i}\n" for i in range(10_000))
    assert "more than 10,000 values" in str(_yaml_error(text))


def test_a_small_anchor_and_merge_still_work() -> None:
    text = GOOD.replace("serving:\n", "serving: &s\n") + "preferences:\n  regions: [aws:us-east-1]\n"
    assert WorkloadIntent.from_yaml(text).preferences.regions == ("aws:us-east-1",)


@pytest.mark.parametrize("depth", [40, 100_000])
def test_deep_nesting(depth: int) -> None:
    text = GOOD + "preferences: " + "[" * depth + "]" * depth + "\n"
    assert "nested" in str(_yaml_error(text))


def test_deep_nesting_in_json(tmp_path: Path) -> None:
    path = tmp_path / "intent.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested" in str(_file_error(path))


@pytest.mark.parametrize("digits", [310, 5_000])
def test_huge_integers(digits: int) -> None:
    text = GOOD.replace("output_tokens_per_s: 1000", "output_tokens_per_s: 1" + "0" * (digits - 1))
    err = _yaml_error(text)
    assert "workload.serving.output_tokens_per_s" in str(err) or "digits" in str(err)


def test_an_unhashable_key() -> None:
    assert "key" in str(_yaml_error(GOOD + "{[1, 2]: 3}: x\n"))
    assert "key" in str(_yaml_error("{[1, 2]: 3}"))


@pytest.mark.parametrize(
    ("written", "word"),
    [
        ("1:20", "sexagesimal"),
        ("0x10", "hexadecimal"),
        ("0o17", "octal"),
        ("017", "octal"),
        ("0b101", "binary"),
        ("1_000", "underscore"),
    ],
)
def test_yaml_1_1_numbers_are_refused_not_converted(written: str, word: str) -> None:
    text = GOOD.replace("output_tokens_per_s: 1000", f"output_tokens_per_s: {written}")
    err = _yaml_error(text)
    assert word in str(err) and "line 8" in str(err)


def test_binary_and_other_yaml_1_1_tags_are_refused() -> None:
    assert "!!binary" in str(_yaml_error(GOOD.replace("name: chat", "name: !!binary aGVsbG8=")))
    assert "!!set" in str(_yaml_error(GOOD + "x: !!set {a, b}\n"))


def test_plain_yaml_1_2_numbers_still_read() -> None:
    for written, value in (("1000", 1000), ("1.5e3", 1500), ("+1000", 1000), ("1000.0", 1000)):
        text = GOOD.replace("output_tokens_per_s: 1000", f"output_tokens_per_s: {written}")
        assert WorkloadIntent.from_yaml(text).workload.serving.output_tokens_per_s == value  # type: ignore[union-attr]


# -- what a message echoes --------------------------------------------------------------------------


class _Counted:
    """A value that counts how often a message builder asks for its repr."""

    calls = 0

    def __repr__(self) -> str:
        _Counted.calls += 1
        return "counted"


def test_an_echoed_value_is_cut_without_building_its_whole_repr() -> None:
    from computeops_cdk.intent._errors import _shown

    _Counted.calls = 0
    shown = _shown([_Counted() for _ in range(10_000)])
    assert len(shown) <= 80 and _Counted.calls < 50


def test_10000_unknown_keys_give_one_short_message() -> None:
    doc = yaml_doc()
    doc.update({f"unknown_{i}": i for i in range(10_000)})
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    text = str(caught.value)
    assert len(text) < MESSAGE_LIMIT and "and 9,990 more problems" in text


def test_a_huge_pasted_key_is_cut() -> None:
    doc = yaml_doc()
    doc["k" * 100_000] = 1
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    assert len(str(caught.value)) < MESSAGE_LIMIT and len(caught.value.path) < 200


def test_a_huge_value_of_a_literal_field_is_cut() -> None:
    doc = yaml_doc()
    doc["kind"] = "x" * 1_000_000
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    assert len(str(caught.value)) < MESSAGE_LIMIT


def yaml_doc() -> dict[str, Any]:
    import yaml

    loaded: dict[str, Any] = yaml.safe_load(GOOD)
    return loaded


def test_lists_have_caps_so_no_message_repeats_a_long_list() -> None:
    doc = yaml_doc()
    codes = [f"{a}{b}" for a in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    doc["constraints"] = {"residency": {"countries": codes}}
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    assert "at most" in str(caught.value) and len(str(caught.value)) < MESSAGE_LIMIT


def test_no_rejection_repeats_a_long_constraint_list() -> None:
    doc = yaml_doc()
    # 200 country codes: within the cap, but listing them in each of 4,000 rejections made 715 MB.
    codes = ["US", *[f"{a}{b}" for a in "QWXYZ" for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"][:199]]
    doc["constraints"] = {"residency": {"countries": codes}, "max_hourly_usd": 0.01}
    with pytest.raises(ComputeOpsError) as caught:
        decide(doc)
    rejections = getattr(caught.value, "rejections", [])
    assert rejections, caught.value
    assert max(len(reason.message) for r in rejections for reason in r.reasons) < 300
    document = caught.value.document  # type: ignore[attr-defined]
    assert len(json.dumps(document)) < 1_500 * len(rejections)


# -- the Python API --------------------------------------------------------------------------------


@pytest.mark.parametrize("pin", ["aws", 42, {"provider": "aws"}])
def test_decide_with_a_wrong_pin_type(pin: object) -> None:
    with pytest.raises(IntentError, match="pin"):
        decide(yaml_doc(), pin=pin)  # type: ignore[arg-type]


def test_from_yaml_of_a_non_string_and_from_dict_of_a_non_mapping() -> None:
    with pytest.raises(IntentError):
        WorkloadIntent.from_yaml(None)  # type: ignore[arg-type]
    with pytest.raises(IntentError):
        WorkloadIntent.from_dict("name: x")
