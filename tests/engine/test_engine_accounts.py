"""The team's accounts in a decision (issue 12 section 4): account.not_enabled, account.quota across
instances, negotiated discounts shown as list -> your rate, owned capacity at zero marginal cost,
the file's sha256 recorded, strict parsing with a fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from computeops_cdk.accounts import family_of, load_accounts, parse_accounts
from computeops_cdk.cli import main
from computeops_cdk.engine import decide
from computeops_cdk.errors import AccountsError, NoFeasiblePlacementError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "accounts" / "computeops.accounts.yaml"
SCHEMA = json.loads((ROOT / "schemas" / "accounts.schema.json").read_text(encoding="utf-8"))
DECISION_SCHEMA = json.loads((ROOT / "schemas" / "decision.schema.json").read_text(encoding="utf-8"))
INTENT: dict[str, Any] = {
    "name": "accounts",
    "workload": {
        "type": "inference",
        "model": {"name": "llama-3-8b"},
        "serving": {"output_tokens_per_s": 500},
    },
}


OWNED = (
    "providers:\n  lambda:\n    owned:\n"
    "      - {{instance_type: gpu_1x_a10, region: us-east-1, instances: {n}}}\n"
)


def _accounts(text: str) -> Any:
    return parse_accounts(text.encode(), path="computeops.accounts.yaml")


def _rules(err: NoFeasiblePlacementError, rule: str) -> list[str]:
    return [r.message for rej in err.rejections for r in rej.reasons if r.rule == rule]


def test_the_example_file_is_valid_against_the_schema_and_parses() -> None:
    jsonschema.validate(yaml.safe_load(EXAMPLE.read_text(encoding="utf-8")), SCHEMA)
    accounts = load_accounts(EXAMPLE)
    assert accounts is not None and sorted(accounts.providers) == ["aws", "gcp", "lambda"]
    aws = accounts.providers["aws"]
    assert aws.quota("us-east-1") == 64 and aws.quota("eu-west-1") == 16
    discount = aws.discount("p5.48xlarge", "on_demand")
    assert discount is not None and discount.percent == 25  # family + pricing beats the provider-wide 10
    spot = aws.discount("p5.48xlarge", "spot")
    assert spot is not None and spot.percent == 10
    assert family_of("p5.48xlarge") == "p5" and family_of("gpu_8x_h100_sxm5") == "gpu"


def test_providers_without_an_account_are_rejected_with_account_not_enabled() -> None:
    decision = decide(INTENT, accounts=_accounts("providers:\n  lambda: {}\n"))
    assert decision.chosen is not None and decision.chosen.provider == "lambda"
    not_enabled = [r for rej in decision.rejected for r in rej.reasons if r.rule == "account.not_enabled"]
    assert not_enabled and not_enabled[0].message.startswith("the team has no ")
    assert not_enabled[0].message.endswith("account in its accounts file (enabled: lambda)")
    refused = {
        rej.provider for rej in decision.rejected if any(r.rule == "account.not_enabled" for r in rej.reasons)
    }
    assert refused == {"aws", "gcp", "azure", "oci", "coreweave", "nebius", "crusoe", "runpod", "vast"}


def test_a_quota_counts_accelerators_across_instances() -> None:
    only_a10 = {
        **INTENT,
        "constraints": {"providers": {"allow": ["lambda"]}, "accelerators": {"allow": ["A10"]}},
    }
    # 500 tokens/s of llama-3-8b on gpu_1x_a10 takes 3 instances = 3 accelerators
    assert decide(only_a10, accounts=_accounts("providers:\n  lambda:\n    quotas: {us-east-1: 3}\n")).chosen
    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(only_a10, accounts=_accounts("providers:\n  lambda:\n    quotas: {'*': 2}\n"))
    messages = _rules(info.value, "account.quota")
    expected = (
        "the deployment needs 3 accelerators at lambda us-east-1 (the '*' quota); "
        "the account's quota there is 2"
    )
    assert expected in messages


def test_a_negotiated_discount_is_shown_as_list_to_your_rate() -> None:
    accounts = _accounts(
        "providers:\n  aws:\n    discounts:\n      - {percent: 12}\n"
        "      - {percent: 20, family: g6e, pricing: on_demand}\n"
    )
    plain = decide({**INTENT, "constraints": {"providers": {"allow": ["aws"]}}})
    decision = decide({**INTENT, "constraints": {"providers": {"allow": ["aws"]}}}, accounts=accounts)
    chosen = decision.chosen
    assert chosen is not None and plain.chosen is not None
    assert (chosen.instance_type, chosen.region) == (plain.chosen.instance_type, plain.chosen.region) == (
        "g6e.xlarge", "us-east-1"
    )  # fmt: skip
    assert chosen.list_hourly_usd == plain.chosen.hourly_usd == 1.861
    assert chosen.hourly_usd == round(1.861 * 0.8, 4)
    assert chosen.account_terms == "20 % negotiated discount on aws g6e on_demand"
    line = next(x for x in decision.explanation if x.startswith("Accounts:"))
    assert line == (
        f"Accounts: computeops.accounts.yaml (sha256 {accounts.sha256[:12]}): list 1.86 -> your rate "
        "1.49 USD/h (20 % negotiated discount on aws g6e on_demand)."
    )
    doc = json.loads(decision.to_json())
    assert doc["accounts"] == {"path": "computeops.accounts.yaml", "sha256": accounts.sha256}
    jsonschema.validate(doc, DECISION_SCHEMA)


def test_owned_capacity_costs_nothing_up_to_its_size() -> None:
    owned = _accounts(OWNED.format(n=3))
    decision = decide(INTENT, accounts=owned)
    chosen = decision.chosen
    assert chosen is not None
    assert (chosen.instance_type, chosen.region, chosen.instances) == ("gpu_1x_a10", "us-east-1", 3)
    assert chosen.hourly_usd == 0 and chosen.list_hourly_usd == 3.87
    assert chosen.account_terms == "3 of 3 instance(s) already owned, at zero marginal cost"
    partly = _accounts(OWNED.format(n=1))
    a10 = {**INTENT, "constraints": {"providers": {"allow": ["lambda"]}, "accelerators": {"allow": ["A10"]}}}
    first = decide(a10, accounts=partly, pin=None).chosen
    assert first is not None and (first.region, first.hourly_usd) == ("us-east-1", 2.58)  # 2 of 3 paid


def test_no_accounts_file_means_list_prices_and_no_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPUTEOPS_ACCOUNTS", raising=False)
    decision = decide(INTENT)
    assert (
        decision.accounts is None and decision.chosen is not None and decision.chosen.list_hourly_usd is None
    )
    assert not any(x.startswith("Accounts:") for x in decision.explanation)


def test_cli_accounts_flag_and_environment_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    intent = tmp_path / "job.yaml"
    intent.write_text(yaml.safe_dump(INTENT), encoding="utf-8")
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  nebius: {}\n", encoding="utf-8")
    assert main(["decide", str(intent), "--accounts", str(accounts), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["decision"]["provider"] == "nebius" and doc["accounts"]["path"] == str(accounts)
    monkeypatch.setenv("COMPUTEOPS_ACCOUNTS", str(accounts))
    assert main(["decide", str(intent), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"]["provider"] == "nebius"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("providers:\n  lambdaa: {}\n", r"providers\.lambdaa: unknown provider.*\(did you mean 'lambda'"),
        ("providers:\n  aws:\n    quota: {}\n", r"providers\.aws\.quota: unknown key.*did you mean 'quotas'"),
        (
            "providers:\n  aws:\n    discounts: [{percent: 150}]\n",
            r"discounts\[0\]\.percent: expected a number 0\.\.100",
        ),
        ("providers:\n  aws:\n    discounts: [{family: p5}]\n", r"discounts\[0\]\.percent: required"),
        (
            "providers:\n  aws:\n    quotas: {us-east-1: -1}\n",
            r"quotas\.us-east-1: expected a whole number 0",
        ),
        (
            "providers:\n  aws:\n    owned: [{instance_type: p5.48xlarge, region: us-east-1}]\n",
            r"owned\[0\]\.instances: required",
        ),
        (
            "providers:\n  aws:\n    owned: [{instance_type: 'p5${x}', region: r, instances: 1}]\n",
            r"owned\[0\]\.instance_type: str 'p5\$\{x\}' is not an instance type name \(letters, digits",
        ),
        ("base: &b {}\nproviders:\n  aws: *b\n", r"anchors/aliases are not accepted"),
        ("version: 2\nproviders: {}\n", r"version: only 1 is known"),
        ("[1, 2]\n", r"\$: expected a mapping"),
        ("providers: [aws]\n", r"providers: expected a mapping"),
        ("providers: {\n", r"not valid YAML"),
    ],
)
def test_a_malformed_accounts_file_is_an_error_with_the_path(text: str, message: str) -> None:
    with pytest.raises(AccountsError, match=message):
        _accounts(text)


def test_a_missing_or_huge_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(AccountsError, match=r"does not exist or is not a regular file"):
        load_accounts(tmp_path / "nope.yaml")
    big = tmp_path / "big.yaml"
    big.write_text("#" * (300 * 1024), encoding="utf-8")
    with pytest.raises(AccountsError, match=r"larger than 256 KiB"):
        load_accounts(big)
    with pytest.raises(AccountsError, match=r"does not exist or is not a regular file"):
        load_accounts(tmp_path)  # a directory


def test_nearest_misses_name_the_accounts_file_and_the_price_age() -> None:
    only_aws = {**INTENT, "constraints": {"providers": {"allow": ["lambda"]}}}
    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(only_aws, accounts=_accounts("providers:\n  aws: {}\n"))
    assert any(
        m.startswith("adding a lambda account to the accounts file would admit lambda")
        for m in info.value.nearest_misses
    )
    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(only_aws, accounts=_accounts("providers:\n  lambda:\n    quotas: {'*': 0}\n"))
    assert any(m.startswith("raising the lambda quota for ") for m in info.value.nearest_misses)
    # CoreWeave's hand-kept prices (2026-09-20) are 70 days older than the snapshot
    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.engine._decide import ranked
    from computeops_cdk.engine._misses import nearest_misses
    from computeops_cdk.engine._pin import Pin
    from computeops_cdk.intent import WorkloadIntent

    stale = WorkloadIntent.from_dict({**INTENT, "constraints": {"max_price_age_days": 10}})
    run = ranked(stale, load_catalog(), Pin())
    coreweave = [r for r in run.header.result.rejected if r[0].offer.provider == "coreweave"]
    misses = nearest_misses(coreweave, {})
    assert misses and misses[0].startswith(
        "raising constraints.max_price_age_days (the price is of 2026-09-20) would admit coreweave"
    )
