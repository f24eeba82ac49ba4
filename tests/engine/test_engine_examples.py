"""Every example intent decides (or fails as intended) on the embedded catalog, and every document
the engine produces validates against schemas/decision.schema.json."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from computeops_cdk.engine import decide
from computeops_cdk.errors import NoFeasiblePlacementError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "decision.schema.json").read_text(encoding="utf-8"))
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
INFEASIBLE_ON_PURPOSE = {"infeasible-budget.yaml"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_decides_as_intended_and_matches_the_schema(path: Path) -> None:
    if path.name in INFEASIBLE_ON_PURPOSE:
        with pytest.raises(NoFeasiblePlacementError) as caught:
            decide(path)
        assert caught.value.nearest_misses, "an infeasible example must show how to get a placement"
        document = caught.value.document
    else:
        decision = decide(path)
        assert decision.chosen is not None and decision.alternatives
        document = decision.to_dict()
    jsonschema.validate(document, SCHEMA)


def test_examples_cover_the_workload_kinds_and_constraints() -> None:
    names = {p.name for p in EXAMPLES}
    assert {
        "support-chat.yaml",
        "llama-8b-pretrain.yaml",
        "lora-finetune.yaml",
        "hipaa-us.yaml",
        "eu-residency.yaml",
        "infeasible-budget.yaml",
    } <= names


def test_hipaa_example_lands_on_a_provider_claimed_hipaa_region() -> None:
    decision = decide(ROOT / "examples" / "hipaa-us.yaml")
    for placement in decision.ranked:
        assert {"hipaa", "soc2"} <= set(placement.attestations)
        assert placement.country == "US"


def test_schema_rejects_a_document_missing_the_unit_cost() -> None:
    document = decide(ROOT / "examples" / "support-chat.yaml").to_dict()
    del document["decision"]["unit_cost"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, SCHEMA)
