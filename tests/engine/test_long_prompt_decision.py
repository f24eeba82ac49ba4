"""A decision about long-prompt serving (v15): sized at the regime's band, the notes say how."""

from __future__ import annotations

from pathlib import Path

import pytest

from computeops_cdk.engine import decide
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.perf._calibration import BAND_LONG_PROMPT, BAND_VALIDATED

EXAMPLE = Path(__file__).parents[2] / "examples" / "support-chat.yaml"


def _intent(tmp_path: Path, inp: int, out: int, extra: str = "") -> WorkloadIntent:
    text = EXAMPLE.read_text(encoding="utf-8")
    lines = [
        f"    input_tokens: {inp}" if line.strip().startswith("input_tokens:") else
        f"    output_tokens: {out}{extra}" if line.strip().startswith("output_tokens:") else line
        for line in text.splitlines()
    ]  # fmt: skip
    path = tmp_path / "intent.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return WorkloadIntent.from_file(path)


def _band(decision: object) -> float:
    est = decision.to_dict()["decision"]["estimate"]  # type: ignore[attr-defined]
    return round(est["tokens_per_s_p10"] / est["tokens_per_s"], 2)


@pytest.mark.parametrize(("inp", "out", "low"), [(8192, 1024, BAND_LONG_PROMPT[0]), (1024, 256, None)])
def test_long_prompts_are_sized_at_the_regimes_band(
    tmp_path: Path, inp: int, out: int, low: float | None
) -> None:
    decision = decide(_intent(tmp_path, inp, out))
    assert decision.to_dict()["decision"]["estimate"]["evidence"] == "validated"
    assert _band(decision) == (low if low is not None else BAND_VALIDATED["inference"][0])


def test_a_prefix_cache_share_reaches_the_estimate_and_says_so(tmp_path: Path) -> None:
    plain = decide(_intent(tmp_path, 8192, 1024))
    cached = decide(_intent(tmp_path, 8192, 1024, "\n    prefix_cache_share: 0.75"))
    notes = cached.to_dict()["decision"]["estimate"]["assumptions"]
    assert any(n.startswith("prefix cache: 75% of each prompt's tokens") for n in notes)
    assert not any(
        n.startswith("prefix cache") for n in plain.to_dict()["decision"]["estimate"]["assumptions"]
    )
    assert cached.to_dict()["intent"]["spec"]["workload"]["serving"]["prefix_cache_share"] == 0.75
