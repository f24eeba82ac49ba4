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
