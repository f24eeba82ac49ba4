"""Hostile ``computeops.accounts.yaml`` files (red team, after issue 10 section 2): the intent's YAML
rules hold for the accounts file too, so a typo is an error at its line, never a silent value."""

from __future__ import annotations

import pytest

from computeops_cdk.accounts import parse_accounts
from computeops_cdk.errors import AccountsError


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
    ("account", "path", "hint"),
    [
        # the quota of a misspelt region limited nothing: nebius us-central1 was chosen against a 0
        ("nebius: {quotas: {us-centrl1: 0, '*': 100}}", "providers.nebius.quotas.us-centrl1", "us-central1"),
        (
            "aws: {owned: [{instance_type: p5.48xlarg, region: us-east-1, instances: 2}]}",
            "providers.aws.owned[0].instance_type",
            "p5.48xlarge",
        ),
        (
            "aws: {owned: [{instance_type: p5.48xlarge, region: mars-1, instances: 2}]}",
            "providers.aws.owned[0].region",
            None,
        ),
    ],
    ids=["quota-region", "owned-instance-type", "owned-region"],
)
def test_a_name_the_catalog_does_not_have_is_an_error(account: str, path: str, hint: str | None) -> None:
    from pathlib import Path

    from computeops_cdk import decide

    accounts = parse_accounts(f"version: 1\nproviders:\n  {account}\n".encode())
    intent = Path(__file__).resolve().parents[1] / "examples" / "support-chat.yaml"
    with pytest.raises(AccountsError) as info:
        decide(intent, accounts=accounts)
    assert info.value.path == path and "has no" in str(info.value) and "To fix:" in str(info.value)
    assert (hint in info.value.suggestions) if hint else not info.value.suggestions
