"""An attestation's conditions reach the user: GCP's FedRAMP High holds only inside an Assured
Workloads folder (Google's FedRAMP page), which the emitted stack does not create, so a decision
that relies on it says so in its one "Compliance:" line, with the services it covers."""

from __future__ import annotations

from typing import Any

from engine_testdata import intent_of

from computeops_cdk.catalog import load_catalog
from computeops_cdk.engine import Pin, decide
from computeops_cdk.intent import WorkloadIntent

_FOLDER = (
    "requires an Assured Workloads folder with the FedRAMP High control package (Data Boundary for "
    "FedRAMP High) and Assured Support: set it up before deploying (the emitted stack deploys into "
    "the project or account you give and does not create it)"
)


def _chat(constraints: dict[str, Any]) -> WorkloadIntent:
    return intent_of(
        {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "serving": {"output_tokens_per_s": 2000},
        },
        constraints,
    )


def _compliance_lines(explanation: tuple[str, ...]) -> list[str]:
    return [line for line in explanation if line.startswith("Compliance:")]


def test_a_gcp_fedramp_high_decision_names_the_services_in_scope_and_the_folder_it_needs() -> None:
    decision = decide(_chat({"compliance": ["fedramp_high"]}))
    assert decision.chosen.provider == "gcp"
    (line,) = _compliance_lines(decision.explanation)
    region = decision.chosen.region
    assert line == (
        f"Compliance: fedramp_high attested by gcp itself (provider_claimed) for {region}; fedramp_high "
        "covers Compute Engine (source read 2026-12-01: `computeops catalog show gcp` quotes it) and "
        f"{_FOLDER}."
    )
    # deterministic: the same inputs give the same line
    assert _compliance_lines(decide(_chat({"compliance": ["fedramp_high"]})).explanation) == [line]


def test_a_gke_node_pool_names_both_services_and_the_condition_once() -> None:
    decision = decide(_chat({"compliance": ["fedramp_high"]}), pin=Pin(require=("kubernetes_node_pool",)))
    assert decision.chosen.provider == "gcp"
    (line,) = _compliance_lines(decision.explanation)
    assert "fedramp_high covers Compute Engine and Google Kubernetes Engine (source read" in line
    assert line.count("Assured Workloads") == 1 and line.endswith(f"{_FOLDER}.")


def test_a_decision_without_compliance_constraints_says_nothing_of_a_folder() -> None:
    decision = decide(_chat({}))
    assert _compliance_lines(decision.explanation) == []
    assert not any("Assured Workloads" in line for line in decision.explanation)


def test_an_authorisation_without_a_condition_names_its_services_only() -> None:
    # Azure's audit-scope page names Virtual Machines at FedRAMP High in its public regions and
    # sets no folder-like condition: the line names the service and requires nothing
    decision = decide(_chat({"providers": {"allow": ["azure"]}, "compliance": ["fedramp_high"]}))
    (line,) = _compliance_lines(decision.explanation)
    assert "fedramp_high covers Azure Virtual Machines (source read 2026-12-01" in line
    assert "requires" not in line and "Assured Workloads" not in line


def test_the_condition_comes_from_the_catalog_record() -> None:
    gcp = load_catalog().provider("gcp")
    (att,) = [a for a in gcp.attestations if a.scope == "fedramp_high"]
    conditions = {e.service: e.requires for e in att.services or ()}
    assert conditions["vm"] == conditions["kubernetes"] != ""
    assert conditions["tpu"] == ""  # not in scope: no condition to meet
