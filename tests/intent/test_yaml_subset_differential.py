"""The subset reader against PyYAML, on generated documents: whatever ``_yaml_subset`` reads, PyYAML
(``_yaml``, the reference) reads to the same data of the same types, and ``yaml_data`` answers every
text exactly as the PyYAML path does (data, or the same IntentError text).

Three sources of text: documents of the plain subset rendered in every style the reader knows (which
it must read), the same renderer over hostile scalars (YAML 1.1 numbers, booleans in odd cases,
indicators, timestamps, quotes), and random mutations of the examples, of the YAML texts in the tests
and of generated documents (near-misses: a character inserted, deleted or replaced, a line duplicated,
dropped, swapped or re-indented).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from computeops_cdk.errors import IntentError
from computeops_cdk.intent import _yaml
from computeops_cdk.intent._read import yaml_data
from computeops_cdk.intent._yaml_subset import subset_data

ROOT = Path(__file__).resolve().parents[2]
_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def typed(value: Any) -> Any:
    """``value`` with every type and the key order spelled out (``1 == 1.0 == True`` in Python)."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "data", typed(read(text, source="intent.yaml"))
    except IntentError as err:
        return "error", str(err)


def assert_same_as_pyyaml(text: str) -> bool:
    """Assert the subset reader agrees with PyYAML on ``text``; whether it read ``text`` itself."""
    reference = _outcome(_yaml.yaml_data, text)
    read, data = subset_data(text)
    if read:
        assert reference == ("data", typed(data)), text
    assert _outcome(yaml_data, text) == reference, text
    return read


# -- documents ----------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


_SAFE_WORDS = _words("on_demand spot H100 A100-80GB llama-3.1-70b Qwen/Qwen3-8B US gdpr computeops.dev/v1")
_SAFE_WORDS += ["WorkloadIntent", "a b", "x_1", "a-b.c/d", "Zoë", "名前"]
_SAFE_NUMBERS = _words("0 7 -3 +12 20000 400 1.5 -0.5 .5 1e5 1.0e11 2.0e8 0.0 -0.0")
_SAFE_NUMBERS += _words("123456789012345 1E-3 5. 00.5 0e0")
_WORDS_11 = _words("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF")
_WORDS_11 += _words("null Null NULL ~")
_HOSTILE = _words("yEs tRue nuLL y n 007 0x1F 0o17 0b101 1_000 1:20 190:20:30 .inf -.Inf .NaN nan inf")
_HOSTILE += _words("2024-01-01 2024-1-1 2001-12-14t21:59:43.10-05:00 1.5.2 1.2e e5 12345678901234567890")
_HOSTILE += _words("123456789012345678901 111111111111111111111111111111 - -- << = a#b a:b a:")
_HOSTILE += _words("http://x -a -1a")
_HOSTILE += _words("? !x & &a *a | > %x @a `a 'a \"a a'b a\"b it''s a\\b [a] a,b a] a} ٣ 1² # :")
_HOSTILE += _words("aws:us-east-1")
_HOSTILE += _words("a:b:c --- ... + . +.5 -.5e3 0. 1e 1e+ +-1 0x 1__0 1:2:3.5")
_HOSTILE += ["", "a  b", "a #b", "a: b", "? a", "!!str a", "{a: 1}", "\u00a0x", "\u2028", "\ufeff"]
_HOSTILE += ["a\tb", "a\rb", " a", "a ", "- a"]

_TEXT = st.text(alphabet="ab yY01:-#'\"[]{},.&*!|>%@`?\\~_+eE", max_size=8)
_safe_scalar = st.sampled_from(_SAFE_WORDS + _SAFE_NUMBERS + _WORDS_11)
_any_scalar = st.one_of(st.sampled_from(_SAFE_WORDS + _SAFE_NUMBERS + _WORDS_11 + _HOSTILE), _TEXT)
_safe_key = st.sampled_from(["name", "type", "model", "serving", "pricing", "cost", "x", "a b", "k-1"])
_any_key = st.one_of(_safe_key, _any_scalar)


def _trees(scalar: st.SearchStrategy[str], key: st.SearchStrategy[str], unique: bool) -> Any:
    """Nested ("map", [(key, node)]) / ("seq", [node]) / ("scalar", text) trees."""
    leaves = scalar.map(lambda text: ("scalar", text))

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        pairs = st.lists(st.tuples(key, children), max_size=4, unique_by=(lambda p: p[0]) if unique else None)
        return st.one_of(
            st.lists(children, max_size=4).map(lambda items: ("seq", items)),
            pairs.map(lambda items: ("map", items)),
        )

    return st.recursive(extend(leaves), extend, max_leaves=14)


def _scalar(draw: Any, text: str, safe: bool) -> str:
    style = draw(st.sampled_from(["plain", "plain", "single", "double"]))
    if safe and text in _SAFE_WORDS and style != "plain":
        return f"'{text}'" if style == "single" else f'"{text}"'
    if safe or style == "plain":
        return text
    return f"'{text}'" if style == "single" else f'"{text}"'


def _comment(draw: Any) -> str:
    return draw(st.sampled_from(["", "", "", "  # a comment", " #", " # x: [1, 2] 'q"]))


def _flowable(node: Any) -> bool:
    return node[0] != "scalar" and all(
        child[0] == "scalar" for child in (node[1] if node[0] == "seq" else [v for _, v in node[1]])
    )


def _flow(draw: Any, node: Any, safe: bool) -> str:
    gap = draw(st.sampled_from([", ", ",", " , ", ",  "]))
    inner = draw(st.sampled_from(["", "", " "]))
    if node[0] == "seq":
        body = gap.join(_scalar(draw, text, safe) for _, text in node[1])
        return f"[{inner}{body}{inner}]"
    colon = ": " if safe else draw(st.sampled_from([": ", ":  ", ":", " : "]))
    body = gap.join(f"{_scalar(draw, k, safe)}{colon}{_scalar(draw, v[1], safe)}" for k, v in node[1])
    return f"{{{inner}{body}{inner}}}"


def _block(draw: Any, node: Any, indent: int, safe: bool) -> list[str]:
    """The lines of ``node`` as a block node at column ``indent``."""
    kind, payload = node
    pad = " " * indent
    if kind == "scalar":
        return [pad + _scalar(draw, payload, safe) + _comment(draw)]
    if not payload or (_flowable(node) and draw(st.booleans())):
        return [pad + _flow(draw, node, safe) + _comment(draw)]
    lines: list[str] = []
    if kind == "map":
        step = draw(st.integers(1, 4))
        for key, value in payload:
            head = pad + _scalar(draw, key, safe) + ":"
            lines += _value(draw, head, value, indent, step, safe)
    else:
        for item in payload:
            lines += _item(draw, item, indent, safe)
    return lines


def _value(draw: Any, head: str, value: Any, indent: int, step: int, safe: bool) -> list[str]:
    if value[0] == "scalar":
        return [head + draw(st.sampled_from([" ", "  "])) + _scalar(draw, value[1], safe) + _comment(draw)]
    if not value[1] or (_flowable(value) and draw(st.booleans())):
        return [head + " " + _flow(draw, value, safe) + _comment(draw)]
    if value[0] == "seq" and draw(st.booleans()):
        items = [line for item in value[1] for line in _item(draw, item, indent, safe)]
        return [head + _comment(draw), *items]  # `- ` items at the key's column
    return [head + _comment(draw), *_block(draw, value, indent + step, safe)]


def _item(draw: Any, item: Any, indent: int, safe: bool) -> list[str]:
    prefix = " " * indent + "-" + " " * draw(st.integers(1, 3))
    if item[0] == "scalar" or (item[1] and draw(st.booleans())):  # `- a`, `- k: v` / `- - a` compact
        lines = _block(draw, item, len(prefix), safe)
        return [prefix + lines[0][len(prefix) :], *lines[1:]]
    return [prefix.rstrip() + _comment(draw), *_block(draw, item, indent + draw(st.integers(1, 4)), safe)]


@st.composite
def documents(draw: Any, safe: bool = False) -> str:
    tree = draw(_trees(_safe_scalar, _safe_key, True) if safe else _trees(_any_scalar, _any_key, False))
    if safe:
        tree = ("map", [(draw(_safe_key), tree)])
    lines = _block(draw, tree, draw(st.sampled_from([0, 0, 2])), safe)
    extras = st.sampled_from(["", "# comment", "   ", "  # indented comment"])
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(extras))
    if draw(st.booleans()):
        lines.insert(0, draw(st.sampled_from(["---", "--- # doc", "---  "])))
    if draw(st.booleans()):
        lines = [line + " " * draw(st.integers(0, 2)) for line in lines]
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


# -- mutations ----------------------------------------------------------------------------------


def _seed_texts() -> list[str]:
    """The examples and the YAML-looking strings of the test suite (intents, accounts files, ...)."""
    texts = {path.read_text() for path in sorted((ROOT / "examples").rglob("*.yaml"))}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and "\n" in text and ": " in text and len(text) < 4000:
                texts.add(text)
    return sorted(texts)


SEEDS = _seed_texts()
_SIGNIFICANT = st.sampled_from([*" -:#'\"[]{},&*!|>?%@`\t\r\n0x_.e+~yYnN\\", "\u2028", "\u00a0", "é"])


@st.composite
def mutated(draw: Any, text: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        at = draw(st.integers(0, max(len(text) - 1, 0)))
        row = draw(st.integers(0, len(lines) - 1))
        match draw(st.integers(0, 6)):
            case 0:
                text = text[:at] + draw(_SIGNIFICANT) + text[at:]
            case 1:
                text = text[:at] + text[at + 1 :]
            case 2:
                text = text[:at] + draw(_SIGNIFICANT) + text[at + 1 :]
            case 3:
                lines.insert(row, lines[row])
                text = "\n".join(lines)
            case 4:
                del lines[row]
                text = "\n".join(lines)
            case 5:
                lines[row - 1], lines[row] = lines[row], lines[row - 1]
                text = "\n".join(lines)
            case _:
                shift = draw(st.integers(-2, 2))
                lines[row] = " " * max(shift, 0) + lines[row][max(-shift, 0) :]
                text = "\n".join(lines)
    return text


# -- tests --------------------------------------------------------------------------------------


@_SETTINGS
@given(documents(safe=True))
def test_documents_of_the_subset_are_read_without_pyyaml_to_pyyamls_data(text: str) -> None:
    assert assert_same_as_pyyaml(text), f"the subset reader gave up on:\n{text}"


@_SETTINGS
@given(documents())
def test_documents_with_hostile_scalars_and_styles_read_as_pyyaml_reads_them(text: str) -> None:
    assert_same_as_pyyaml(text)


@settings(_SETTINGS, max_examples=600)
@given(st.sampled_from(SEEDS).flatmap(mutated))
def test_mutated_examples_and_test_texts_read_as_pyyaml_reads_them(text: str) -> None:
    assert_same_as_pyyaml(text)


@_SETTINGS
@given(documents(safe=True).flatmap(mutated))
def test_near_misses_of_subset_documents_read_as_pyyaml_reads_them(text: str) -> None:
    assert_same_as_pyyaml(text)


# -- JSON text (Terraform's jsonencode) ---------------------------------------------------------

_NOT_SAFE = '"\\\x7f' + "".join(map(chr, range(0x80, 0xA1)))  # quotes, backslashes, DEL, C1, NBSP
_SAFE_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x2FF, exclude_characters=_NOT_SAFE)
)
_JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**15) + 1, 10**15 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
)
_HOSTILE_JSON_SCALARS = st.one_of(
    _JSON_SCALARS, st.integers(), st.floats(), st.text(), st.sampled_from(_HOSTILE)
)


def _json_documents(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    tree = st.recursive(
        scalars, lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4)
    )
    return st.tuples(
        st.dictionaries(keys, tree, max_size=5),
        st.booleans(),
        st.sampled_from([(",", ":"), (", ", ": ")]),
        st.sampled_from(["", "\n", "  \n", " "]),
    ).map(lambda t: json.dumps(t[0], ensure_ascii=t[1], separators=t[2]) + t[3])


@_SETTINGS
@given(_json_documents(st.one_of(_JSON_SCALARS, _SAFE_TEXT), _SAFE_TEXT))
def test_one_line_json_without_escapes_is_read_without_pyyaml_to_pyyamls_data(text: str) -> None:
    assert assert_same_as_pyyaml(text) or "\\" in text, f"the subset reader gave up on:\n{text}"


@_SETTINGS
@given(_json_documents(_HOSTILE_JSON_SCALARS, st.one_of(st.text(), st.sampled_from(_HOSTILE))))
def test_json_with_escapes_big_numbers_and_odd_strings_reads_as_pyyaml_reads_it(text: str) -> None:
    assert_same_as_pyyaml(text)


@_SETTINGS
@given(_json_documents(st.one_of(_JSON_SCALARS, _SAFE_TEXT), _SAFE_TEXT).flatmap(mutated))
def test_near_misses_of_json_documents_read_as_pyyaml_reads_them(text: str) -> None:
    assert_same_as_pyyaml(text)
