"""Pickles of intents: this version's round trip (pydantic's format), the pickles of earlier versions
read back validated, and a state that is not a valid intent refused as a clear error.

``data/support-chat.COMMIT.pickle`` is ``pickle.dumps(WorkloadIntent.from_file(
"examples/support-chat.yaml"))`` made by computeops-cdk at that commit: 4e34803's models were pydantic
models (the format of this version), f101e84's plain classes pickled the mapping of their fields.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from computeops_cdk.intent import WorkloadIntent

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).with_name("data")
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_this_versions_pickles_round_trip(protocol: int) -> None:
    for path in EXAMPLES:
        intent = WorkloadIntent.from_file(path)
        back = pickle.loads(pickle.dumps(intent, protocol=protocol))
        assert back == intent and hash(back) == hash(intent) and repr(back) == repr(intent)
        assert back.to_dict() == intent.to_dict() and back.sha256 == intent.sha256
        assert back.workload.model == intent.workload.model


def test_copies_go_through_the_same_state() -> None:
    # copy and deepcopy reconstruct through __reduce_ex__ and __setstate__ too
    import copy

    intent = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
    assert copy.copy(intent) == intent and copy.deepcopy(intent) == intent
    assert copy.deepcopy(intent.workload) == intent.workload


@pytest.mark.parametrize("commit", ["4e34803", "f101e84"])
def test_an_earlier_versions_pickle_is_read_back_validated(commit: str) -> None:
    # Before: 4e34803's unpickled into an object whose every field access raised AttributeError.
    old = pickle.loads((DATA / f"support-chat.{commit}.pickle").read_bytes())
    intent = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
    assert old == intent and old.sha256 == intent.sha256 and type(old.workload) is type(intent.workload)


def test_a_state_with_other_fields_is_a_clear_error() -> None:
    intent = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
    made = object.__new__(WorkloadIntent)
    fields = dict(intent.__dict__)
    for state in (
        {k: v for k, v in fields.items() if k != "name"},
        {**fields, "x": 1},
        {**intent.__getstate__(), "__dict__": {**fields, "x": 1}},
        None,
    ):
        with pytest.raises(TypeError, match=r"^cannot unpickle WorkloadIntent: .*fields differ.*To fix"):
            made.__setstate__(state)


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("name", '${file("/etc/passwd")}', "(name: must be lower-case letters"),
        ("name", 123, "(name: must be a string"),
        ("preferences", "garbage", "(preferences: must be a mapping"),
    ],
    ids=["template-name", "int-name", "str-preferences"],
)
def test_a_state_with_bad_values_is_a_clear_error(field: str, value: object, problem: str) -> None:
    # The field names were checked, the values not: a forged state made an unvalidated intent.
    intent = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
    made = object.__new__(WorkloadIntent)
    with pytest.raises(TypeError) as info:
        made.__setstate__({**intent.__dict__, field: value})
    message = str(info.value)
    assert message.startswith(
        f"cannot unpickle WorkloadIntent: its state is not a valid WorkloadIntent {problem}"
    )
    assert "To fix: rebuild the intent from its document" in message and len(message) < 1000
    # and through pickle itself, with a nested model's state forged
    forged = pickle.dumps(intent).replace(b"support-chat", b"Support-chat")
    with pytest.raises(
        TypeError, match=r"^cannot unpickle (WorkloadIntent|ModelRef|Serving): its state is not"
    ):
        pickle.loads(forged)


def test_a_state_is_taken_in_its_validated_form() -> None:
    intent = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
    made = object.__new__(WorkloadIntent)
    made.__setstate__({**intent.__dict__, "preferences": intent.preferences.to_dict()})
    assert (
        made == intent and made.sha256 == intent.sha256 and type(made.preferences) is type(intent.preferences)
    )
