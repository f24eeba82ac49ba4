"""Intent models built directly, as a Python user does (red team, after issue 10 section 2): a bad field
is the library's IntentError naming its path, never pydantic's ValidationError."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from computeops_cdk import IntentError, WorkloadIntent
from computeops_cdk.intent import Constraints

SERVING = {"type": "inference", "model": {"name": "llama-3.1-8b"}, "serving": {"output_tokens_per_s": 100}}


@pytest.mark.parametrize(
    ("model", "fields", "path"),
    [
        (WorkloadIntent, {}, "name"),
        (WorkloadIntent, {"name": 1, "workload": SERVING}, "name"),
        (WorkloadIntent, {"name": "Chat", "workload": SERVING}, "name"),
        (WorkloadIntent, {"name": "chat", "workload": {**SERVING, "type": "batch"}}, "workload.type"),
        (Constraints, {"max_hourly_usd": -1}, "max_hourly_usd"),
    ],
)
def test_a_model_built_directly_raises_intent_error(model: Any, fields: dict[str, Any], path: str) -> None:
    # Before: pydantic's ValidationError (a traceback naming pydantic's docs), unlike from_dict.
    with pytest.raises(IntentError) as info:
        model(**fields)
    assert not isinstance(info.value, ValidationError)
    assert info.value.path == path


def test_built_directly_or_from_a_mapping_is_the_same_intent() -> None:
    assert WorkloadIntent(name="chat", workload=SERVING) == WorkloadIntent.from_dict(
        {"name": "chat", "workload": SERVING}
    )
    # a nested model may be given as an instance
    workload = WorkloadIntent.from_dict({"name": "chat", "workload": SERVING}).workload
    assert WorkloadIntent(name="chat", workload=workload) == WorkloadIntent(name="chat", workload=SERVING)
    assert WorkloadIntent(name="chat", workload=workload).workload is workload
    with pytest.raises(IntentError) as info:
        WorkloadIntent(name="Chat", workload=workload)
    assert info.value.path == "name"
