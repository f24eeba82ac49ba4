"""The YAML rules of intents and accounts files, read by one reader (PyYAML, libyaml's parser where
present): YAML 1.1 surprises are refused, not converted; a key appears once; errors name the line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from computeops_cdk import accounts
from computeops_cdk.errors import AccountsError, IntentError
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.intent._yaml import _Loader, load_yaml

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = (ROOT / "examples" / "support-chat.yaml").read_text()
ACCOUNTS = ROOT / "examples" / "accounts" / "computeops.accounts.yaml"


def test_libyamls_parser_is_used_where_pyyaml_has_it() -> None:
    assert (getattr(yaml, "CSafeLoader", None) in _Loader.__mro__) == yaml.__with_libyaml__


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("max_hourly_usd: 400", "max_hourly_usd: 1:20", "sexagesimal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 0x10", "hexadecimal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 0400", "octal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 4_00", "underscore"),
        ("max_hourly_usd: 400", "max_hourly_usd: 400\n  max_hourly_usd: 500", "duplicate key"),
        ("{cost: 5,", "{cost: 5, cost: 4,", "duplicate key"),
        ("max_hourly_usd: 400", "max_hourly_usd: yes", "max_hourly_usd: got true, but this field is not"),
        ("ttft_ms: 800", "ttft_ms: On", "ttft_ms: got true"),
        ("max_hourly_usd: 400", "max_hourly_usd: 123456789012345678901", "21 digits"),
        ("max_hourly_usd: 400", "max_hourly_usd: 2024-01-01", "max_hourly_usd: must be a number"),
        ("pricing: [on_demand]", "pricing: [on_demand, ~]", "pricing[1]: must be one of"),
        ("max_hourly_usd: 400", "max_hourly_usd: =", "tag:yaml.org,2002:value"),
    ],
)
def test_yaml_1_1_surprises_in_an_intent_are_refused(old: str, new: str, says: str) -> None:
    assert SUPPORT_CHAT.count(old) == 1
    with pytest.raises(IntentError) as err:
        WorkloadIntent.from_yaml(SUPPORT_CHAT.replace(old, new), source="intent.yaml")
    assert says in str(err.value)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("us-east-1: 64", "us-east-1: 1:20", "sexagesimal"),
        ("us-east-1: 64", "us-east-1: 0x40", "hexadecimal"),
        ("  gcp:\n", "  aws: {}\n  gcp:\n", "duplicate key"),
        ('quotas: {"*": 32}', 'quotas: {"*": 32, "*": 8}', "duplicate key"),
        ("us-east-1: 64", "us-east-1: [64", "not valid YAML"),
    ],
)
def test_the_same_rules_hold_for_an_accounts_file(old: str, new: str, says: str) -> None:
    text = ACCOUNTS.read_text()
    assert text.count(old) == 1
    with pytest.raises(AccountsError) as err:
        accounts.parse_accounts(text.replace(old, new).encode())
    assert says in str(err.value) and "at line" in str(err.value)


def test_the_example_accounts_file_reads() -> None:
    assert accounts.load_accounts(ACCOUNTS).providers["aws"].quotas == {"us-east-1": 64, "*": 16}  # type: ignore[union-attr]


def test_quoted_numbers_and_booleans_stay_text() -> None:
    assert load_yaml("a: '1:20'\nb: \"yes\"\nc: '0x10'\nd: yes\n") == {
        "a": "1:20",
        "b": "yes",
        "c": "0x10",
        "d": True,
    }


def test_an_alias_that_contains_itself_is_refused() -> None:
    with pytest.raises(
        IntentError, match=r"at line 1, column 4: an alias refers to the value that contains it"
    ):
        WorkloadIntent.from_yaml("a: &x [1, *x]\n")


def test_a_tab_that_cannot_start_a_token_is_named() -> None:
    # libyaml's message leaves the character out ("found character that cannot start any token")
    text = SUPPORT_CHAT.replace("\n  ", "\n\t", 1)
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml(text, source="tabbed.yaml")
    assert "found character '\\t' that cannot start any token" in str(caught.value)
    assert str(caught.value).startswith("tabbed.yaml: invalid YAML at line ")


def test_a_control_character_is_named_by_line_and_column() -> None:
    # PyYAML's reader gave an offset into "<unicode string>" and no fix
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml("apiVersion: computeops.dev/v1\nname: x\x00y\n", source="nul.yaml")
    assert str(caught.value) == (
        "nul.yaml: invalid YAML at line 2, column 8: unacceptable character #x0000 "
        f"({'control' if yaml.__with_libyaml__ else 'special'} characters are not allowed). To fix: "
        "remove it; the file is plain UTF-8 text"
    )


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        (
            "workload:\n    type: inference\n  model: x\n",
            "indent this line like the other keys of its mapping",
        ),
        ("name: [a, b\n", "close the list with ']'"),
        ("name: {a: 1\n", "close the mapping with '}'"),
        ("name: a: b\n", "quote a value that holds ': '"),
    ],
)
def test_the_commonest_syntax_errors_say_how_to_fix_them(text: str, fix: str) -> None:
    with pytest.raises(IntentError, match=r"invalid YAML at line \d+, column \d+: .*\. To fix: ") as caught:
        WorkloadIntent.from_yaml(text, source="bad.yaml")
    assert fix in str(caught.value)


def test_an_accounts_file_reports_yaml_errors_the_same_way(tmp_path: Path) -> None:
    from computeops_cdk.accounts import load_accounts
    from computeops_cdk.errors import AccountsError

    path = tmp_path / "accounts.yaml"
    path.write_text("version: 1\nproviders:\x00\n", encoding="utf-8")
    with pytest.raises(
        AccountsError, match=r"not valid YAML at line 2, column 11: unacceptable character #x0000"
    ):
        load_accounts(path)


@pytest.mark.parametrize("name", ["1e3", "0x1f", "1e-3", "yes", "123", "0o17"])
def test_to_yaml_quotes_a_string_the_reader_would_take_for_something_else(name: str) -> None:
    # safe_dump resolved plain scalars as YAML 1.1 does: "1e3" went out unquoted and came back a number
    intent = WorkloadIntent.from_yaml(SUPPORT_CHAT).replace(name=name)
    assert WorkloadIntent.from_yaml(intent.to_yaml()) == intent


def test_a_control_character_after_non_ascii_text_is_placed_by_character() -> None:
    # libyaml gives the offset in UTF-8 bytes: two accented letters put it on a line that is not there
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml("# réglé pour la prod\nname: x\x01\n", source="f.yaml")
    assert "f.yaml: invalid YAML at line 2, column 8: unacceptable character #x0001" in str(caught.value)


def test_a_lone_surrogate_is_an_intent_error_not_a_traceback() -> None:
    with pytest.raises(IntentError, match=r"at line 2, column 7: U\+D800 is a lone surrogate.*To fix"):
        WorkloadIntent.from_yaml("apiVersion: computeops.dev/v1\nname: \ud800\n", source="api")


def test_to_yaml_keeps_a_next_line_character() -> None:
    # NEL (U+0085) went out raw in a quoted scalar and came back folded into a space
    intent = WorkloadIntent.from_yaml(SUPPORT_CHAT)
    doc = intent.to_dict()
    doc["workload"]["model"] = {"name": "a\x85b", "params_b": 8, "precision": "bf16"}
    odd = WorkloadIntent.from_dict(doc)
    assert WorkloadIntent.from_yaml(odd.to_yaml()) == odd
