"""Price age in every decision: ``price_age_days``, the stale warning, ``price.stale`` (issue 12 s3)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.engine import decide
from computeops_cdk.engine._price_age import STALE_DAYS, age_days, stale_rule
from computeops_cdk.errors import IntentError, NoFeasiblePlacementError

# CoreWeave's list prices are hand-kept from its pricing page (as_of 2026-09-20); the embedded
# snapshot is 2026-11-29: 70 days.
CATALOG = load_catalog()


def _intent(**constraints: Any) -> dict[str, Any]:
    return {
        "name": "age",
        "workload": {
            "type": "inference",
            "model": {"name": "llama-3-8b"},
            "serving": {"output_tokens_per_s": 500},
        },
        "constraints": {"providers": {"allow": ["coreweave"]}, **constraints},
    }


def test_the_chosen_price_carries_its_age_and_a_stale_one_is_warned_about() -> None:
    decision = decide(_intent())
    chosen = decision.chosen
    assert chosen is not None and chosen.provider == "coreweave"
    assert (chosen.price_as_of, chosen.price_age_days) == ("2026-09-20", 70)
    assert json.loads(decision.to_json())["decision"]["price_age_days"] == 70
    [warning] = [line for line in decision.explanation if line.startswith("Warning: the chosen price")]
    assert warning.startswith(
        "Warning: the chosen price is 70 days older than the catalog (as_of 2026-11-29;"
    )
    assert "`computeops catalog refresh`" in warning


def test_a_fresh_price_has_no_warning() -> None:
    decision = decide({**_intent(), "constraints": {"providers": {"allow": ["lambda"]}}})
    assert decision.chosen is not None and decision.chosen.price_age_days == 0
    assert not any(line.startswith("Warning: the chosen price") for line in decision.explanation)


def test_max_price_age_days_rejects_older_prices_with_price_stale() -> None:
    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(_intent(max_price_age_days=30))
    stale = [r for rej in info.value.rejections for r in rej.reasons if r.rule == "price.stale"]
    assert stale and stale[0].message == (
        "price of 2026-09-20 is 70 days older than the catalog (as_of 2026-11-29); "
        "constraints.max_price_age_days allows 30"
    )
    assert decide(_intent(max_price_age_days=70)).chosen is not None  # the limit is inclusive


def test_the_age_is_measured_against_the_catalogs_as_of_not_a_clock() -> None:
    later = replace(CATALOG, as_of="2027-01-01")
    decision = decide({**_intent(), "constraints": {"providers": {"allow": ["lambda"]}}}, catalog=later)
    assert decision.chosen is not None and decision.chosen.price_age_days == 33  # 2026-11-29 -> 2027-01-01
    assert any(line.startswith("Warning: the chosen price is 33 days") for line in decision.explanation)


def test_rule_helpers() -> None:
    assert age_days("2026-11-22", "2026-11-29") == STALE_DAYS
    assert age_days("someday", "2026-11-29") is None
    assert stale_rule("2026-11-29", "2026-11-29", None) == ()
    [reason] = stale_rule("garbage", "2026-11-29", 5)
    assert reason.rule == "price.stale" and "does not parse" in reason.message


@pytest.mark.parametrize("value", [-1, 3651, 1.5])
def test_max_price_age_days_must_be_a_whole_number_of_days(value: object) -> None:
    with pytest.raises(IntentError, match=r"constraints\.max_price_age_days"):
        decide(_intent(max_price_age_days=value))
