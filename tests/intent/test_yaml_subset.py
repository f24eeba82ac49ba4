"""Intent YAML's plain subset is read without PyYAML, to exactly PyYAML's data; everything else is
left to PyYAML (errors, YAML 1.1 number forms, bounds, anchors, ...). The generated-document
comparison is in test_yaml_subset_differential.py; these are the examples, every hostile scalar in
every position, the structures the reader must leave alone, and the cold process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_yaml_subset_differential import (
    _HOSTILE,
    _SAFE_NUMBERS,
    _SAFE_WORDS,
    _WORDS_11,
    assert_same_as_pyyaml,
    typed,
)

import computeops_cdk
from computeops_cdk import accounts
from computeops_cdk.errors import AccountsError, IntentError
from computeops_cdk.intent import WorkloadIntent, _read, _yaml, _yaml_subset
from computeops_cdk.intent._yaml_subset import subset_data

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
SUPPORT_CHAT = (ROOT / "examples" / "support-chat.yaml").read_text()
ACCOUNTS = ROOT / "examples" / "accounts" / "computeops.accounts.yaml"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_is_read_by_the_subset_reader_to_pyyamls_data(path: Path) -> None:
    text = path.read_text()
    read, data = subset_data(text)
    assert read, f"{path.name} fell back to PyYAML"
    assert typed(data) == typed(_yaml.load_yaml(text))
    assert WorkloadIntent.from_file(path) == WorkloadIntent.from_dict(_yaml.load_yaml(text))


@pytest.mark.parametrize("accounts", [(), ("--accounts", str(ACCOUNTS))], ids=["alone", "with accounts"])
def test_a_cold_decide_of_the_example_does_not_import_pyyaml(accounts: tuple[str, ...]) -> None:
    argv = ["decide", str(ROOT / "examples" / "support-chat.yaml"), "--format", "json", *accounts]
    code = (
        "import json, sys\n"
        "from computeops_cdk.cli import main\n"
        f"code = main({argv!r})\n"
        "yaml = sorted(m for m in sys.modules if m == 'yaml' or m.startswith('yaml.'))\n"
        "sys.stderr.write(json.dumps({'code': code, 'yaml': yaml, 'subset': "
        "'computeops_cdk.intent._yaml_subset' in sys.modules}))\n"
    )
    env = {"PYTHONPATH": str(Path(computeops_cdk.__file__).parents[1]), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    report = json.loads(done.stderr.splitlines()[-1])
    assert report == {"code": 0, "yaml": [], "subset": True}
    assert json.loads(done.stdout)["decision"]["provider"]


# -- scalars ------------------------------------------------------------------------------------

_POSITIONS = (
    "k: {s}\n",
    "k:  {s}  # c\n",
    "k:\n  {s}\n",
    "- {s}\n",
    "-\n  {s}\n",
    "k: [{s}]\n",
    "k: [a, {s} ]\n",
    "k: {{x: {s}}}\n",
    "k: {{{s}: 1, y: 2}}\n",
    "{s}: 1\n",
    "k:\n  {s}: 1\n",
    "- {s}: 1\n",
    "k:\n- {s}\n",
    "--- \n{s}\n",
)
_STYLES = ("{s}", "'{s}'", '"{s}"')
_ALL_SCALARS = sorted(set(_HOSTILE + _SAFE_WORDS + _SAFE_NUMBERS + _WORDS_11))


@pytest.mark.parametrize("position", _POSITIONS)
def test_every_hostile_scalar_in_every_position_and_style_reads_as_pyyaml_reads_it(position: str) -> None:
    read = 0
    for scalar in _ALL_SCALARS:
        for style in _STYLES:
            read += assert_same_as_pyyaml(position.format(s=style.format(s=scalar)))
    assert read > len(_ALL_SCALARS)  # the subset reader took its share


_LEFT_TO_PYYAML = (
    # YAML 1.1 number forms (refused by _yaml with its message), timestamps, special floats
    *("007", "-012", "0x1F", "0o17", "0b101", "1_000", "1:20", "190:20:30", "1:2:3.5", "00"),
    *("2024-01-01", "2001-12-14t21:59:43.10-05:00", ".inf", "-.Inf", ".NaN", "+.inf"),
    # integers near and over MAX_DIGITS, text that only looks like a number
    *("1234567890123456", "12345678901234567890", "123456789012345678901", "+", "-x", ".", "1.5.2", "1e"),
    # indicators, merge keys, aliases, anchors, tags
    *("<<", "=", "&a x", "*a", "!x y", "!!str 1", "!!binary aGk=", "? x", "|", ">", "%x", "@a", "`a"),
)


@pytest.mark.parametrize("scalar", _LEFT_TO_PYYAML)
def test_number_forms_timestamps_indicators_and_big_integers_are_left_to_pyyaml(scalar: str) -> None:
    for position in ("k: {s}\n", "- {s}\n", "k: [{s}]\n", "k: {{x: {s}}}\n", "k:\n  {s}\n"):
        text = position.format(s=scalar)
        assert subset_data(text) == (False, None), text
        assert_same_as_pyyaml(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="0123456789.eE+-_:xob ", min_size=1, max_size=9))
def test_number_like_plain_scalars_resolve_as_pyyaml_resolves_them(text: str) -> None:
    assert_same_as_pyyaml(f"n: {text}\nm: [{text}]\n")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="yesnoYESNOtruefalsTRUEFALSnulNUL~ ", min_size=1, max_size=6))
def test_boolean_and_null_like_words_resolve_as_pyyaml_resolves_them(text: str) -> None:
    assert_same_as_pyyaml(f"w: {text}\nv: [{text}]\n")


def test_the_implicit_resolvers_first_characters_are_the_ones_the_subset_reader_knows() -> None:
    # A plain scalar's type is found from its first character: a resolver PyYAML (or _yaml) gained
    # for a character the subset reader lets through as text would read it differently.
    known = set("yYnNtTfFoO~" + "+-.0123456789" + "<=!&*") | {""}
    assert set(_yaml._Loader.yaml_implicit_resolvers) == known
    as_text = _yaml_subset._PLAIN_START - set("yYnNtTfFoO~") - _yaml_subset._NUMBER_START
    assert not as_text & set(_yaml._Loader.yaml_implicit_resolvers)


# -- structure ----------------------------------------------------------------------------------

_READ_HERE = {
    "a:\n  b:\n    c: 1\n  d: [x, 'y', \"z\"]\ne: {p: 1, q: on}\n": {
        "a": {"b": {"c": 1}, "d": ["x", "y", "z"]},
        "e": {"p": 1, "q": True},
    },
    "k:\n- a\n- b: 1\n  c: 2\n- - x\n  - y\nz: ~\n": {"k": ["a", {"b": 1, "c": 2}, ["x", "y"]], "z": None},
    "---\n# c\n- \n-\n  k: v\n-   x: 1\n    y: 2\n": [None, {"k": "v"}, {"x": 1, "y": 2}],
    "  a: 1\n  b:\n  c: []\n  d: {}\n": {"a": 1, "b": None, "c": [], "d": {}},
    "a: x#y\nb: 'x # y'\nc: \"it's\"\nd: a:b\ne: -1.5e3\nf: '1:20'\ng: Yes\n": {
        "a": "x#y",
        "b": "x # y",
        "c": "it's",
        "d": "a:b",
        "e": -1500.0,
        "f": "1:20",
        "g": True,
    },
}


@pytest.mark.parametrize("text", list(_READ_HERE))
def test_the_subset_reads_nested_blocks_compact_items_flows_and_quotes(text: str) -> None:
    read, data = subset_data(text)
    assert read
    assert typed(data) == typed(_READ_HERE[text]) == typed(_yaml.load_yaml(text))


_STRUCTURES_LEFT_TO_PYYAML = (
    "a: b\n  c\n",  # a multi-line plain scalar
    "a:\n  x\n  y\n",
    "- a\n  b\n",
    "a: 'x\n  y'\n",  # a quoted scalar over two lines
    "a: [x,\n  y]\n",  # a flow sequence over two lines
    "a: {x: 1,\n  y: 2}\n",
    "- a\nb: 1\n",  # a key at a sequence's column
    "a: 1\n- b\n",  # an item at a mapping's column
    "a:\n  - x\n  b: 1\n",
    "a:\n    b: 1\n  c: 2\n",  # a column between two blocks'
    "a:\n  b: 1\n   c: 2\n",
    "a: 1\na: 2\n",  # a key twice
    "a: {x: 1, x: 2}\n",
    "1: a\ntrue: b\n",  # keys that are not text
    "yes: 1\n",
    "null: 1\n",
    "a: &x 1\nb: *x\n",  # anchors and aliases
    "base: &b {x: 1}\nc:\n  <<: *b\n",  # a merge key
    "a: !!str 1\n",  # a tag
    "a: |\n  x\n",  # block scalars
    "a: >\n  x\n",
    'a: "x\\ty"\n',  # escapes
    "a: 'it''s'\n",
    "a:\tb\n",  # a tab, a carriage return, a byte-order mark, a no-break space, NEL
    "a: b\r\nc: d\r\n",
    "\ufeffa: b\n",
    "a: \u00a0b\n",
    "a: b\x85c: d\n",
    "a: b\n---\nc: d\n",  # two documents, an end marker, a directive
    "a: b\n...\n",
    "%YAML 1.2\n---\na: b\n",
    "--- a: b\n",
    "---#x\na: b\n",
    "a: [b]#c\n",
    "a: 'b'#c\n",
    "a: b: c\n",  # mapping values PyYAML refuses
    "a : b\n",
    "'a' : b\n",
    "[a, b]: c\n",  # a flow collection as a key
    "a: [b, [c]]\n",  # nested flows, empty flow entries, flow keys without values
    "a: [b,]\n",
    "a: [, b]\n",
    "a: {b}\n",
    "a: {b:1}\n",
    "a: [b:c]\n",
    "a: [b #c]\n",
    "a: - b\n",
    "? a\n: b\n",  # an explicit key
    "",  # empty documents: PyYAML's None or its message
    "# only a comment\n",
    "---\n",
    "# a comment line\n" * (_yaml_subset.MAX_SUBSET_CHARS // 16) + "a: 1\n",  # over the size read here
    "k: " + "x" * 500 + "\n",  # a line over the length read here
)


@pytest.mark.parametrize("text", _STRUCTURES_LEFT_TO_PYYAML, ids=lambda text: repr(text[:24]))
def test_structures_outside_the_subset_are_left_to_pyyaml(text: str) -> None:
    assert subset_data(text) == (False, None)
    assert_same_as_pyyaml(text)


def test_deep_nesting_and_many_values_are_left_to_pyyaml_near_its_bounds() -> None:
    deep = "".join(f"{'  ' * n}k{n}:\n" for n in range(_yaml_subset._MAX_DEPTH + 1)) + "  " * 14 + "v: 1\n"
    assert subset_data(deep) == (False, None)
    assert_same_as_pyyaml(deep)
    too_deep = "".join(f"{' ' * n}k:\n" for n in range(_read.MAX_DEPTH + 2))
    assert subset_data(too_deep) == (False, None)
    assert_same_as_pyyaml(too_deep)
    many = "".join(f"k{n}: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n" for n in range(300))
    assert subset_data(many) == (False, None)
    assert_same_as_pyyaml(many)
    assert _yaml_subset._MAX_DEPTH < _read.MAX_DEPTH // 2
    assert _yaml_subset._MAX_NODES < _yaml.MAX_NODES // 4
    assert _yaml_subset._MAX_INT_DIGITS < _read.MAX_DIGITS


# -- the intent: what the subset reads is refused or accepted as before -------------------------


def _pyyaml_path_error(text: str) -> str:
    """The message the intent gave before the subset reader (PyYAML's path only)."""
    with pytest.raises(IntentError) as err:
        WorkloadIntent.from_dict(_yaml.yaml_data(text, source="intent.yaml"))
    return str(err.value)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("max_hourly_usd: 400", "max_hourly_usd: 1:20", "sexagesimal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 0x10", "hexadecimal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 0400", "octal"),
        ("max_hourly_usd: 400", "max_hourly_usd: 4_00", "underscore"),
        ("max_hourly_usd: 400", "max_hourly_usd: 400\n  max_hourly_usd: 500", "duplicate key"),
        ("{cost: 5,", "{cost: 5, cost: 4,", "duplicate key"),
        ("max_hourly_usd: 400", "max_hourly_usd: yes", "max_hourly_usd"),
        ("ttft_ms: 800", "ttft_ms: On", "ttft_ms"),
        ("max_hourly_usd: 400", "max_hourly_usd: 123456789012345678901", "digits"),
        ("max_hourly_usd: 400", "max_hourly_usd: 2024-01-01", "max_hourly_usd"),
        ("pricing: [on_demand]", "pricing: [on_demand, ~]", "pricing"),
    ],
)
def test_an_intent_the_subset_could_misread_is_refused_with_the_pyyaml_paths_message(
    old: str, new: str, says: str
) -> None:
    assert SUPPORT_CHAT.count(old) == 1
    text = SUPPORT_CHAT.replace(old, new)
    expected = _pyyaml_path_error(text)
    assert says in expected
    with pytest.raises(IntentError) as err:
        WorkloadIntent.from_yaml(text, source="intent.yaml")
    assert str(err.value) == expected


# -- the accounts file: the same reader ----------------------------------------------------------


def test_the_example_accounts_file_is_read_without_pyyaml_to_pyyamls_data() -> None:
    text = ACCOUNTS.read_text()
    read, data = subset_data(text)
    assert read
    assert typed(accounts._document(text)) == typed(data) == typed(_yaml.load_yaml(text))
    assert accounts.load_accounts(ACCOUNTS).providers["aws"].quotas == {"us-east-1": 64, "*": 16}


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
def test_an_accounts_file_the_subset_could_misread_is_refused_with_the_pyyaml_paths_message(
    old: str, new: str, says: str
) -> None:
    text = ACCOUNTS.read_text()
    assert text.count(old) == 1
    text = text.replace(old, new)
    assert subset_data(text) == (False, None)
    with pytest.raises(AccountsError) as err:
        accounts.parse_accounts(text.encode())
    assert says in str(err.value)
    assert "at line" in str(err.value)


# -- JSON text: Terraform's `intent = jsonencode({...})` ------------------------------------------


@pytest.mark.skipif(shutil.which("terraform") is None, reason="needs the terraform CLI on PATH")
def test_terraforms_jsonencode_of_every_example_is_read_without_pyyaml(tmp_path: Path) -> None:
    names = [path.name for path in EXAMPLES]
    for path in EXAMPLES:
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "cli.tfrc").write_text("")
    env = {"HOME": str(tmp_path), "TF_CLI_CONFIG_FILE": str(tmp_path / "cli.tfrc")}
    env |= {"TF_DATA_DIR": str(tmp_path / ".terraform"), "PATH": "/usr/bin:/bin", "CHECKPOINT_DISABLE": "1"}
    expression = f"jsonencode([for f in {json.dumps(names)} : jsonencode(yamldecode(file(f)))])\n"
    done = subprocess.run(
        [str(shutil.which("terraform")), "console"],
        input=expression,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    texts = json.loads(json.loads(done.stdout))
    assert len(texts) == len(EXAMPLES)
    for path, text in zip(EXAMPLES, texts, strict=True):
        read, data = subset_data(text)
        assert read, f"jsonencode of {path.name} fell back to PyYAML: {text}"
        assert typed(data) == typed(_yaml.load_yaml(text))
        assert WorkloadIntent.from_yaml(text) == WorkloadIntent.from_file(path)


_JSON_LEFT_TO_PYYAML = (
    '{"a":"x\\ty"}',  # an escape (JSON's surrogate pairs are one character, YAML's two)
    '{"a":"\\ud83d\\ude00"}',
    '{"a":NaN}',  # not JSON; PyYAML reads text
    '{"a":-Infinity}',
    '{"a":1,"a":2}',  # a key twice
    '{"a":\n1}',  # over two lines
    '{"a":1}\n{"b":2}',
    '{"' + "k" * 300 + '":1}',  # a long key: PyYAML refuses one over 1,024 characters, json does not
    '{"' + "k" * 1100 + '":1}',
    '{"a":123456789012345678901}',  # digits
    '{"a":' + "[" * 40 + "]" * 40 + "}",  # depth
    '{"a":[' + ",".join(["1"] * 3000) + "]}",  # values
    '{"a":1,}',  # not JSON
    "{a: 1, b: [x, y]}",  # a YAML flow mapping at the root
    '{"a":"\t"}',
    '{"a":"x\u00a0y"}',
)


@pytest.mark.parametrize("text", _JSON_LEFT_TO_PYYAML, ids=lambda text: repr(text[:24]))
def test_json_text_outside_what_reads_the_same_is_left_to_pyyaml(text: str) -> None:
    assert subset_data(text) == (False, None)
    assert_same_as_pyyaml(text)


def test_quoted_numbers_and_booleans_stay_text_as_pyyaml_reads_them() -> None:
    text = SUPPORT_CHAT.replace("name: support-chat", "name: 'yes'")
    text = text.replace("precision: fp8", 'precision: "fp8"')
    read, data = subset_data(text)
    assert read and data["name"] == "yes" and data["workload"]["model"]["precision"] == "fp8"
    assert WorkloadIntent.from_yaml(text) == WorkloadIntent.from_dict(_yaml.load_yaml(text))
