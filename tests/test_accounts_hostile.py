"""Hostile ``computeops.accounts.yaml`` files (red team, after issue 10 section 2): the intent's YAML
rules hold for the accounts file too, so a typo is an error at its line, never a silent value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from computeops_cdk import decide
from computeops_cdk.accounts import parse_accounts
from computeops_cdk.errors import AccountsError, NoFeasiblePlacementError

SUPPORT_CHAT = Path(__file__).resolve().parents[1] / "examples" / "support-chat.yaml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # PyYAML kept the second aws silently: the first one's quotas were gone
        (
            "version: 1\nproviders:\n  aws: {quotas: {'*': 8}}\n  aws: {}\n",
            "not valid YAML at line 4, column 3: duplicate key 'aws' (each field may appear once)",
        ),
        # YAML 1.1 read 1:20 as 80 (base 60): a quota of 80 accelerators nobody wrote
        (
            "version: 1\nproviders:\n  aws: {quotas: {'*': 1:20}}\n",
            "not valid YAML at line 3, column 23: '1:20' is a YAML 1.1 sexagesimal",
        ),
        ("version: 1\nproviders:\n  aws: {quotas: {'*': 0x10}}\n", "'0x10' is a YAML 1.1 hexadecimal"),
    ],
    ids=["duplicate-provider", "sexagesimal-quota", "hex-quota"],
)
def test_the_intents_yaml_rules_hold_for_the_accounts_file(text: str, message: str) -> None:
    with pytest.raises(AccountsError) as info:
        parse_accounts(text.encode())
    assert message in str(info.value)


def test_plain_yaml_still_reads() -> None:
    text = b"version: 1\nproviders:\n  aws: {quotas: {us-east-1: 64, '*': 16}}\n  gcp: {}\n"
    accounts = parse_accounts(text)
    aws = accounts.account("aws")
    assert aws is not None and aws.quota("us-east-1") == 64 and aws.quota("eu-west-1") == 16


@pytest.mark.parametrize(
    ("account", "path", "hint", "effect"),
    [
        # the quota of a misspelt region limited nothing without a word: nebius us-central1 was
        # chosen against a 0
        (
            "nebius: {quotas: {us-centrl1: 0, '*': 100}}",
            "providers.nebius.quotas.us-centrl1",
            "us-central1",
            "this quota limits nothing",
        ),
        (
            "aws: {owned: [{instance_type: p5.48xlarg, region: us-east-1, instances: 2}]}",
            "providers.aws.owned[0].instance_type",
            "p5.48xlarge",
            "this owned capacity prices nothing",
        ),
        (
            "aws: {owned: [{instance_type: p5.48xlarge, region: mars-1, instances: 2}]}",
            "providers.aws.owned[0].region",
            None,
            "this owned capacity prices nothing",
        ),
        (
            "aws: {discounts: [{percent: 10, family: p55}]}",
            "providers.aws.discounts[0].family",
            "p5",
            "this discount applies to nothing",
        ),
    ],
    ids=["quota-region", "owned-instance-type", "owned-region", "discount-family"],
)
def test_a_name_the_catalog_does_not_list_is_a_warning_with_close_matches(
    account: str, path: str, hint: str | None, effect: str
) -> None:
    # Before: an AccountsError, so once a refreshed catalog dropped an instance type or a region the
    # file names, decide, a locked synth and reevaluate all stopped (exit 2). Such an entry limits
    # or prices nothing; the decision says so, with close matches, and is made.
    accounts = parse_accounts(f"version: 1\nproviders:\n  {account}\n".encode(), path="team.yaml")
    decision = decide(SUPPORT_CHAT, accounts=accounts)
    assert decision.chosen is not None
    (line,) = [x for x in decision.explanation if x.startswith("Warning: accounts file ")]
    assert line.startswith(
        f"Warning: accounts file team.yaml, {path}: catalog {decision.catalog_version} lists no "
    )
    assert f"so {effect}. To fix: correct the name, or remove the entry" in line
    assert (f"(did you mean {hint!r}" in line) if hint else "did you mean" not in line
    # right after the Accounts line
    at = next(i for i, x in enumerate(decision.explanation) if x.startswith("Accounts:"))
    assert decision.explanation[at + 1] == line


def test_the_unlisted_names_are_bounded() -> None:
    owned = "".join(
        f"      - {{instance_type: p{i}.gone, region: us-east-1, instances: 1}}\n" for i in range(1000)
    )
    accounts = parse_accounts(f"version: 1\nproviders:\n  aws:\n    owned:\n{owned}".encode())
    lines = [x for x in decide(SUPPORT_CHAT, accounts=accounts).explanation if x.startswith("Warning: acc")]
    assert len(lines) == 6 and "names 995 more regions, instance types or families" in lines[-1]


def test_a_misspelt_quota_region_is_said_when_nothing_is_feasible() -> None:
    # A quota of 0 everywhere but a misspelt region: the warning is why nothing is feasible.
    accounts = parse_accounts(b"version: 1\nproviders:\n  nebius: {quotas: {us-centrl1: 100, '*': 0}}\n")
    with pytest.raises(NoFeasiblePlacementError) as info:
        decide(SUPPORT_CHAT, accounts=accounts)
    assert "providers.nebius.quotas.us-centrl1: catalog " in str(info.value)
    assert "(did you mean 'us-central1'?)" in str(info.value)
    assert str(info.value).splitlines()[-1].startswith("To fix:")


@pytest.mark.parametrize(
    ("account", "path", "what"),
    [
        ("aws: {quotas: {us_east_1: 8}}", "providers.aws.quotas", "a region code"),
        ("aws: {quotas: {'us east 1': 8}}", "providers.aws.quotas", "a region code"),
        ("aws: {quotas: {'-us-east-1': 8}}", "providers.aws.quotas", "a region code"),
        ("aws: {quotas: {us-east-1+: 8}}", "providers.aws.quotas", "a region code"),
        (
            "aws: {owned: [{instance_type: 'p5.48xlarge${x}', region: us-east-1, instances: 1}]}",
            "providers.aws.owned[0].instance_type",
            "an instance type name",
        ),
        (
            "aws: {owned: [{instance_type: p5.48xlarge, region: " + "a" * 65 + ", instances: 1}]}",
            "providers.aws.owned[0].region",
            "a region code",
        ),
        (
            "aws: {owned: [{instance_type: p5.48xlarge, region: 12, instances: 1}]}",
            "providers.aws.owned[0].region",
            "a region code",
        ),
        # a family is a name's part before its first '.', '_' or '-': "p5.48" never matched anything
        (
            "aws: {discounts: [{percent: 10, family: p5.48}]}",
            "providers.aws.discounts[0].family",
            "an instance family",
        ),
    ],
)
def test_a_malformed_name_is_refused_with_the_catalogs_rule(account: str, path: str, what: str) -> None:
    with pytest.raises(AccountsError) as info:
        parse_accounts(f"version: 1\nproviders:\n  {account}\n".encode())
    message = str(info.value)
    assert message.startswith(f"{path}: ") and f" is not {what} (" in message
    assert "To fix: write the " in message


def test_the_name_patterns_are_the_catalog_schemas() -> None:
    from computeops_cdk import accounts as module
    from computeops_cdk.schemas import load_schema

    catalog = load_schema("catalog")["$defs"]
    assert f"^{module.REGION_CODE}$" == catalog["region_code"]["pattern"]
    assert f"^{module.INSTANCE_TYPE_NAME}$" == catalog["instance_type_name"]["pattern"]
    shape = load_schema("accounts")["$defs"]
    assert shape["region_code"]["pattern"] == catalog["region_code"]["pattern"]
    assert shape["instance_type_name"]["pattern"] == catalog["instance_type_name"]["pattern"]
    family = shape["account"]["properties"]["discounts"]["items"]["properties"]["family"]["pattern"]
    assert family == f"^{module._IDENTIFIERS['family'][0]}$"
    quotas = shape["account"]["properties"]["quotas"]["propertyNames"]["pattern"]
    assert quotas == f"^(?:{module.REGION_CODE}|\\*)$"


def test_decide_json_says_the_unlisted_names_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from computeops_cdk.cli import main

    file = tmp_path / "computeops.accounts.yaml"
    file.write_text("version: 1\nproviders:\n  nebius: {quotas: {us-centrl1: 0, '*': 100}}\n")
    assert main(["decide", str(SUPPORT_CHAT), "--accounts", str(file), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["decision"]["provider"] == "nebius"
    assert err.startswith(f"warning: accounts file {file}, providers.nebius.quotas.us-centrl1: catalog ")
    assert main(["decide", str(SUPPORT_CHAT), "--accounts", str(file)]) == 0  # the table shows it
    out, err = capsys.readouterr()
    assert "providers.nebius.quotas.us-centrl1" in out and not err
