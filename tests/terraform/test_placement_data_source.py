"""Data source ``computeops_placement`` in process: the CLI's bytes, and diagnostics on attributes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tf_testdata import ROOT, SUPPORT_CHAT, runner_up_cheaper_by, write_catalog

from computeops_cdk.cli import main as cli_main
from computeops_cdk.terraform._framework import Diagnostics, decode, encode
from computeops_cdk.terraform._placement import data_source
from computeops_cdk.terraform._settings import SETTINGS

SPEC = data_source()


def read(config: dict[str, Any]) -> tuple[dict[str, Any] | None, Diagnostics]:
    diags = Diagnostics()
    # What the framework hands the handler: the wire form, decoded against the schema.
    values = decode(SPEC.attributes, encode(SPEC.attributes, config))
    return SPEC.read(diags, values), diags


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    cli_main(["decide", *args, "--format", "json"])
    return capsys.readouterr().out


def intent_text(name: str = "support-chat.yaml") -> str:
    return (ROOT / "examples" / name).read_text(encoding="utf-8")


def test_decision_json_is_byte_identical_to_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    state, diags = read({"intent": intent_text()})
    assert state is not None and not diags.items
    assert state["decision_json"] == cli_json(capsys, str(SUPPORT_CHAT))
    doc = json.loads(state["decision_json"])
    chosen = doc["decision"]
    assert state["cloud"] == chosen["provider"] and state["instance_type"] == chosen["instance_type"]
    assert state["unit_cost"] == chosen["unit_cost"] and state["instances"] == chosen["instances"]
    assert state["rejected_by_rule"] == doc["rejections_by_rule"]
    assert state["explanation"] == doc["explanation"]
    assert [a["cloud"] for a in state["alternatives"]] == [a["provider"] for a in doc["alternatives"]]
    assert state["intent_sha256"] == doc["intent"]["sha256"]
    assert state["id"] == "/".join(chosen[k] for k in ("provider", "instance_type", "region", "pricing"))


def test_pins_give_the_clis_pinned_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    config = {"intent": intent_text(), "pin_provider": "aws", "pin_region": "us-east-1", "cluster": True}
    state, diags = read(config)
    assert state is not None, diags.items
    expected = cli_json(capsys, str(SUPPORT_CHAT), "--provider", "aws", "--region", "us-east-1", "--cluster")
    assert state["decision_json"] == expected
    assert state["pin_provider"] == "aws" and state["cluster"] is True  # inputs pass through unchanged


def test_json_intent_from_jsonencode_works() -> None:
    import yaml

    as_json = json.dumps(yaml.safe_load(intent_text()))
    state, _ = read({"intent": as_json})
    state_yaml, _ = read({"intent": intent_text()})
    assert state is not None and state_yaml is not None
    assert state["decision_json"] == state_yaml["decision_json"]


def test_a_configured_catalog_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_catalog(tmp_path / "c.json", runner_up_cheaper_by(30))
    SETTINGS.configure(Diagnostics(), {"catalog": str(path)})
    state, _ = read({"intent": intent_text()})
    assert state is not None
    assert state["decision_json"] == cli_json(capsys, str(SUPPORT_CHAT), "--catalog", str(path))


def test_an_invalid_intent_is_an_error_on_intent_with_path_and_did_you_mean() -> None:
    typo = intent_text().replace("output_tokens_per_s:", "output_tokens_per_sec:")
    state, diags = read({"intent": typo})
    assert state is None
    (error,) = diags.items
    assert (error.severity, error.summary, error.attribute) == ("error", "Invalid intent", "intent")
    assert "workload.serving" in error.detail and "did you mean" in error.detail


def test_bad_yaml_and_an_empty_intent_name_the_problem() -> None:
    _, diags = read({"intent": "name: [unclosed"})
    assert "invalid YAML at line" in diags.items[0].detail
    _, diags = read({"intent": "   "})
    assert diags.items[0].attribute == "intent" and "To fix" in diags.items[0].detail


def test_an_unknown_accelerator_needs_the_catalog_and_is_still_on_intent() -> None:
    bad = intent_text().replace(
        "pricing: [on_demand]", "pricing: [on_demand]\n  accelerators: {allow: [H1OO]}"
    )
    _, diags = read({"intent": bad})
    assert diags.items[0].attribute == "intent" and "H1OO" in diags.items[0].detail


def test_an_infeasible_intent_lists_rules_misses_and_the_fix() -> None:
    state, diags = read({"intent": intent_text("infeasible-budget.yaml")})
    assert state is None
    (error,) = diags.items
    assert error.summary == "No feasible placement" and error.attribute == "intent"
    for part in (
        "rejections by rule",
        "price.max_hourly",
        "nearest misses",
        "relaxing max_hourly_usd",
        "To fix",
    ):
        assert part in error.detail


def test_a_pin_that_breaks_a_constraint_names_the_rule_and_the_numbers() -> None:
    state, diags = read({"intent": intent_text("hipaa-us.yaml"), "pin_provider": "vast"})
    assert state is None
    (error,) = diags.items
    assert error.attribute == "pin_provider" and error.summary.startswith("Pinned placement breaks ")
    rule = error.summary.removeprefix("Pinned placement breaks ")
    assert rule in error.detail and "vast " in error.detail


def test_an_unknown_pin_says_did_you_mean_on_its_attribute() -> None:
    _, diags = read({"intent": intent_text(), "pin_provider": "aws", "pin_region": "us-esat-1"})
    (error,) = diags.items
    assert error.attribute == "pin_region" and "us-esat-1" in error.detail and "did you mean" in error.detail
    _, diags = read({"intent": intent_text(), "pin_provider": "lamda"})
    assert diags.items[0].attribute == "pin_provider" and "'lambda'" in diags.items[0].detail


def test_a_bad_catalog_is_an_error_on_the_provider_block_naming_the_json_path(tmp_path: Path) -> None:
    path = write_catalog(tmp_path / "bad.json", lambda doc: doc["offers"][3].update(hourly_usd=-3))
    diags = Diagnostics()
    SETTINGS.configure(diags, {"catalog": str(path)})
    (error,) = diags.items
    assert error.attribute == "catalog" and "$.offers[3].hourly_usd" in error.detail
    missing = Diagnostics()
    SETTINGS.configure(missing, {"catalog": str(tmp_path / "nope.json")})
    assert "does not exist" in missing.items[0].detail


def test_validation_is_cheap_and_catches_an_empty_intent() -> None:
    diags = Diagnostics()
    assert SPEC.validate is not None
    SPEC.validate(diags, {"intent": ""})
    assert diags.items[0].attribute == "intent"


def test_the_configured_accounts_file_is_decided_under_like_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 12: plain-HCL teams decide under their accounts too (`provider "computeops" { accounts }`).
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  aws:\n    discounts: [{percent: 10}]\n", encoding="utf-8")
    diags = Diagnostics()
    SETTINGS.configure(diags, {"catalog": None, "accounts": str(accounts)})
    assert not diags.items
    state, diags = read({"intent": intent_text()})
    assert state is not None and not diags.items, diags.items
    assert state["cloud"] == "aws"  # the only provider the file enables
    assert state["decision_json"] == cli_json(capsys, str(SUPPORT_CHAT), "--accounts", str(accounts))
    assert json.loads(state["decision_json"])["accounts"]["sha256"] != ""


def test_an_accounts_name_the_catalog_does_not_list_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: an error (the decision was refused) once the catalog did not list a region the file
    # names; now the decision is made and the line is a warning diagnostic.
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  nebius: {quotas: {us-centrl1: 0}}\n", encoding="utf-8")
    diags = Diagnostics()
    SETTINGS.configure(diags, {"catalog": None, "accounts": str(accounts)})
    state, diags = read({"intent": intent_text()})
    assert state is not None and state["cloud"] == "nebius"
    (warning,) = diags.items
    assert warning.severity == "warning"
    assert warning.summary == "Accounts file names what the catalog does not list"
    assert "providers.nebius.quotas.us-centrl1: catalog " in warning.detail
    assert "(did you mean 'us-central1'?)" in warning.detail
    assert state["decision_json"] == cli_json(capsys, str(SUPPORT_CHAT), "--accounts", str(accounts))


def test_a_bad_accounts_file_is_an_error_on_the_provider_block(tmp_path: Path) -> None:
    bad = tmp_path / "computeops.accounts.yaml"
    bad.write_text("providers:\n  aws:\n    discounts: [{percent: 150}]\n", encoding="utf-8")
    diags = Diagnostics()
    SETTINGS.configure(diags, {"catalog": None, "accounts": str(bad)})
    (error,) = diags.items
    assert error.summary == "Invalid accounts" and error.attribute == "accounts"
    assert "percent" in error.detail
    # Decisions are refused while the configured file is bad, with the same diagnostic.
    state, diags = read({"intent": intent_text()})
    assert state is None and diags.items[0].attribute == "accounts"
