"""The engine's messages about hostile arguments (red team, after issue 10 section 2): a pasted blob
given as a pin or a region id is cut in the message, not echoed whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from computeops_cdk import IntentError, WorkloadIntent, decide
from computeops_cdk.engine import Pin

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = WorkloadIntent.from_file(ROOT / "examples" / "support-chat.yaml")
BLOB = "a" * 1_000_000


@pytest.mark.parametrize("field", ["provider", "region"])
def test_a_megabyte_pin_is_cut_in_the_message(field: str) -> None:
    # Before: the whole megabyte was in the message (and in a Terraform diagnostic's detail).
    with pytest.raises(IntentError) as info:
        decide(SUPPORT_CHAT, pin=Pin(**{field: BLOB}))
    message = str(info.value)
    assert f"unknown {field} 'aaaa" in message and len(message) < 1_000
    assert info.value.path == f"pin.{field}"


def test_a_megabyte_region_id_in_the_intent_is_cut_in_the_message() -> None:
    intent = WorkloadIntent.from_dict(
        {**SUPPORT_CHAT.to_dict(), "constraints": {"residency": {"regions": [f"aws:{BLOB}"]}}}
    )
    with pytest.raises(IntentError) as info:
        decide(intent)
    assert "unknown region 'aws:aaaa" in str(info.value) and len(str(info.value)) < 1_000
