"""Intent YAML in its plain subset, read without PyYAML; anything else is left to PyYAML.

Why this exists: PyYAML's import and its pure-Python load of examples/support-chat.yaml cost a fresh
process 16.3 ms of CPU (most of the import is ``yaml.reader``'s character-class regex), this module's
import and read 0.6 ms; a cold ``computeops decide`` of that example went from 190.7 to 175.8 ms of
CPU (benchmarks/bench_startup.py --against main; the team's budget for the whole process is ~120 ms).
For the same reason there is no regular expression here.

Intents are written in a small plain subset of YAML; this module reads exactly that subset, and for
anything it is not certain of it gives up and ``_read.yaml_data`` hands the text to PyYAML
(``_yaml``), which stays the reference: every error and every other form of YAML is PyYAML's, by
construction, and every document read here is read to the data PyYAML returns (same values, types
and key order; tests/intent/test_yaml_subset*.py compare the two on generated documents). The one
form beyond the plain block subset is the one-line flow mapping: five of the eight examples write
their preference weights as one (``weights: {cost: 5, ...}``), support-chat.yaml among them. One-line
JSON objects without escapes are read with ``json`` (Terraform's ``intent = jsonencode({...})``:
``from_yaml`` of the example's jsonencode went from 23.7 to 0.9 ms of CPU in a fresh process).

The subset: block mappings and block sequences (``- `` items, compact ``- key: value`` items,
sequences at their key's column), one-line flow sequences and flow mappings of scalars
(``[on_demand, spot]``, ``{cost: 5, performance: 2}``), one-line plain scalars, single- and
double-quoted scalars without escapes, comments, and an optional leading ``---``. Scalars resolve as
``_yaml._Loader`` resolves them: YAML 1.1 booleans and nulls, YAML 1.2 decimal integers and floats;
anything else that could be a number or a timestamp (``1:20``, ``0x10``, ``010``, ``1_000``,
``.inf``, ``2024-01-01``) gives up, so PyYAML refuses it or reads it with its own message. Give-ups
also cover anchors, aliases, tags, merge keys, block scalars, multi-line scalars, escapes, tabs,
carriage returns, duplicate keys, keys that are not text, and documents near a bound (size, depth,
values, integer digits), so the bounds' messages are PyYAML's too.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_SUBSET_CHARS", "subset_data"]

MAX_SUBSET_CHARS = 16_384
"""The longest text read here (an intent is under 1 KiB); longer ones go to PyYAML."""
_MAX_LINE = 400  # PyYAML's simple keys end within 1,024 characters
_MAX_DEPTH = 12  # collections deep; MAX_DEPTH (32) counts every node
_MAX_NODES = 2_000  # values and keys; MAX_NODES is 10,000
_MAX_INT_DIGITS = 15  # MAX_DIGITS is 20

# No regular expressions: compiling one character class like PyYAML's costs ~4.6 ms of import.
_ASCII = frozenset("\n" + "".join(map(chr, range(0x20, 0x7F))))
"""Line feeds and printable ASCII: a text with tabs, carriage returns or control characters goes to
PyYAML (see _other_char_ok for the rest)."""
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("~", "null", "Null", "NULL"), None),
}
"""YAML 1.1's booleans and nulls as SafeLoader resolves them (every case form it accepts)."""
_NUMBER_START = frozenset("+-.0123456789")
_PLAIN_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~+-")
_FLOW_PLAIN = _PLAIN_START | {" "}
"""Characters of a plain scalar inside ``[...]`` or ``{...}`` (and any non-ASCII letter); a flow
scalar with another character (``:``, ``#``, ``?``, quotes, ...) goes to PyYAML."""

_DASH, _KEY, _VALUE = 0, 1, 2
_NOTHING: Any = object()  # a key with nothing after its colon


class _Unsure(Exception):
    """Raised anywhere in this module: the text goes to PyYAML."""


def subset_data(text: object) -> tuple[bool, Any]:
    """``(True, data)`` when ``text`` is in the plain subset (``data`` is what ``_yaml.load_yaml``
    returns for it), else ``(False, None)``: PyYAML must read it."""
    if not isinstance(text, str) or len(text) > MAX_SUBSET_CHARS or not _chars_ok(text):
        return False, None
    try:
        if text.lstrip(" \n").startswith("{"):
            return True, _json_object(text)
        entries = _entries(text.split("\n"))
        if not entries:
            return False, None  # empty or only comments: PyYAML's None, or its message
        return True, _Tree(entries).root()
    except _Unsure:
        return False, None


def _chars_ok(text: str) -> bool:
    chars = set(text)
    return chars <= _ASCII or all(_other_char_ok(char) for char in chars - _ASCII)


def _other_char_ok(char: str) -> bool:
    """A non-ASCII character PyYAML reads as printable and not as a line break or a space: not NEL,
    U+2028, U+2029, the no-break space, the byte-order mark, a surrogate or a non-character."""
    if char < "\ue000":
        return "\u00a1" <= char <= "\ud7ff" and char not in "\u2028\u2029"
    return (char <= "\ufffd" and char != "\ufeff") or char >= "\U00010000"


# -- JSON text ---------------------------------------------------------------------------------
# Terraform's `intent = jsonencode({...})` hands the data source one line of JSON: PyYAML reads it as
# a flow mapping (double-quoted keys and strings, plain numbers, true/false/null) to what json reads,
# as long as there is no escape (JSON's "\ud83d\ude00" is one character, YAML's two surrogates), no
# NaN/Infinity and no key over PyYAML's 1,024-character simple keys.


def _json_object(text: str) -> dict[str, Any]:
    if "\\" in text or "\n" in text.strip(" \n"):
        raise _Unsure
    try:
        data = json.loads(text, object_pairs_hook=_json_pairs, parse_int=_json_int, parse_constant=_json_nan)
    except (ValueError, RecursionError):
        raise _Unsure from None  # not JSON (or nested past the interpreter's recursion limit)
    if not isinstance(data, dict):
        raise _Unsure
    _Tree([]).count_json(data)
    return data


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs) or any(len(key) > 200 for key in result):
        raise _Unsure  # a key twice (PyYAML's error), or a long one
    return result


def _json_int(literal: str) -> int:
    if len(literal.lstrip("-")) > _MAX_INT_DIGITS:
        raise _Unsure
    return int(literal)


def _json_nan(literal: str) -> Any:
    raise _Unsure  # NaN, Infinity, -Infinity: not JSON, and PyYAML reads them as text


# -- lines to entries ---------------------------------------------------------------------------
# An entry is (column, kind, key, value): a `- ` item (_DASH), a `key: value` line (_KEY, value
# _NOTHING when the line ends at the colon) or a scalar or flow collection on its own (_VALUE).
# `- - a: 1` is three entries, each at the column where it starts.

if TYPE_CHECKING:
    Entry = tuple[int, int, Any, Any]


def _entries(lines: list[str]) -> list[Entry]:
    entries: list[Entry] = []
    started = False
    for line in lines:
        if len(line) > _MAX_LINE:
            raise _Unsure
        pos = len(line) - len(line.lstrip(" "))
        if pos == len(line) or line[pos] == "#":
            continue  # blank or a comment
        if pos == 0 and line.startswith(("---", "...")):
            if started or line.startswith("...") or not _rest_is_empty(line, 3):
                raise _Unsure  # a second document, an end marker or content after `---`
            started = True
            continue
        started = True
        while line[pos] == "-" and (pos + 1 == len(line) or line[pos + 1] == " "):
            entries.append((pos, _DASH, None, None))
            pos = _skip_spaces(line, pos + 1)
            if pos == len(line) or line[pos] == "#":
                break
        else:
            entries.append(_content(line, pos))
    return entries


def _skip_spaces(line: str, pos: int) -> int:
    while pos < len(line) and line[pos] == " ":
        pos += 1
    return pos


def _rest_is_empty(line: str, pos: int) -> bool:
    """Only spaces from ``pos`` on, or spaces and a comment (a `#` after a space)."""
    end = _skip_spaces(line, pos)
    return end == len(line) or (line[end] == "#" and line[end - 1] == " ")


def _content(line: str, pos: int) -> Entry:
    """The entry of a line's content at ``pos`` (after its indentation and `- ` items)."""
    first = line[pos]
    if first in "[{":
        value, end = _flow(line, pos)
        if not _rest_is_empty(line, end):
            raise _Unsure
        return pos, _VALUE, None, value
    if first in "'\"":
        key, end = _quoted(line, pos)
    else:
        text, end = _block_plain(line, pos)
        key = _resolved(text)
    if end == len(line) or line[end] != ":":
        if not _rest_is_empty(line, end):
            raise _Unsure
        return pos, _VALUE, None, key
    if not isinstance(key, str) or (end + 1 < len(line) and line[end + 1] != " "):
        raise _Unsure  # `1: x`, `yes: x`, `null: x` (keys that are not text), `'a':b`
    return pos, _KEY, key, _inline_value(line, end + 1)


def _inline_value(line: str, pos: int) -> Any:
    """The value after a key's colon on its line, or _NOTHING."""
    pos = _skip_spaces(line, pos)
    if pos == len(line) or line[pos] == "#":
        return _NOTHING
    first = line[pos]
    if first in "[{":
        value, end = _flow(line, pos)
    elif first in "'\"":
        value, end = _quoted(line, pos)
    else:
        text, end = _block_plain(line, pos)
        value = _resolved(text)
    if not _rest_is_empty(line, end):
        raise _Unsure  # `a: b: c` (PyYAML's error), `a: 'b' c`, `a: [b] c`
    return value


# -- scalars ------------------------------------------------------------------------------------


def _block_plain(line: str, pos: int) -> tuple[str, int]:
    """A plain scalar outside brackets: up to `: `, a colon ending the line, ` #` or the line's end.
    Returns its text and the position where it stopped (at the colon, or after trailing spaces)."""
    first = line[pos]
    if not (first in _PLAIN_START or first >= "\u00a1"):
        raise _Unsure  # an indicator: & * ! | > % @ ` ? : , ] } < = ...
    end = pos + 1
    while end < len(line):
        char = line[end]
        if char == ":" and (end + 1 == len(line) or line[end + 1] == " "):
            break
        if char == "#" and line[end - 1] == " ":
            break
        end += 1
    text = line[pos:end]
    stripped = text.rstrip(" ")
    if end < len(line) and line[end] == ":" and len(stripped) != len(text):
        raise _Unsure  # `a : b`
    return stripped, end


def _quoted(line: str, pos: int) -> tuple[str, int]:
    """A one-line quoted scalar without escapes: its text and the position after its closing quote."""
    quote = line[pos]
    close = line.find(quote, pos + 1)
    if close < 0:
        raise _Unsure  # runs onto the next line (or never ends)
    text = line[pos + 1 : close]
    if (quote == '"' and "\\" in text) or line.startswith(quote, close + 1):
        raise _Unsure  # an escape, or `''` (a quote inside single quotes)
    return text, close + 1


def _flow_scalar(line: str, pos: int) -> tuple[Any, int]:
    """A scalar inside brackets (plain of _FLOW_PLAIN characters, or quoted), after its spaces."""
    pos = _skip_spaces(line, pos)
    if pos < len(line) and line[pos] in "'\"":
        text, end = _quoted(line, pos)
        return text, _skip_spaces(line, end)
    end = pos
    while end < len(line) and line[end] not in ",]}:":
        if not (line[end] in _FLOW_PLAIN or line[end] >= "\u00a1"):
            raise _Unsure
        end += 1
    text = line[pos:end].rstrip(" ")
    if not text:
        raise _Unsure  # an empty entry: `[a,]`, `[, a]`
    return _resolved(text), end


def _flow(line: str, pos: int) -> tuple[Any, int]:
    """A one-line flow sequence or mapping of scalars starting at ``pos``; the position after it."""
    close = "]" if line[pos] == "[" else "}"
    items: list[Any] = []
    mapping: dict[Any, Any] = {}
    end = _skip_spaces(line, pos + 1)
    if line.startswith(close, end):
        return ([] if close == "]" else {}), end + 1
    while True:
        item, end = _flow_scalar(line, end)
        if close == "]":
            items.append(item)
        else:
            if not line.startswith(": ", end) or not isinstance(item, str) or item in mapping:
                raise _Unsure  # `{a:1}`, `{a}`, a key that is not text, a key twice
            mapping[item], end = _flow_scalar(line, end + 2)
        if end >= len(line):
            raise _Unsure  # runs onto the next line
        if line[end] == close:
            return (items if close == "]" else mapping), end + 1
        if line[end] != ",":
            raise _Unsure
        end += 1


def _resolved(text: str) -> Any:
    """A plain scalar's value as ``_yaml._Loader`` resolves it; _Unsure when it might be a YAML 1.1
    number form, a timestamp, a special float, or an integer near MAX_DIGITS."""
    if text[0] in _NUMBER_START:
        body = text[1:] if text[0] in "+-" else text
        if _digits(body):
            if (len(body) > 1 and body[0] == "0") or len(body) > _MAX_INT_DIGITS:
                raise _Unsure  # `010` is YAML 1.1's octal, refused by PyYAML's path
            return int(text)
        if _is_yaml12_float(body):
            value = float(body)
            return -value if text[0] == "-" else value
        raise _Unsure
    return _WORDS.get(text, text)


def _is_yaml12_float(body: str) -> bool:
    """``body`` (a plain scalar without its sign) matches _yaml._FLOAT:
    ``(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?``."""
    mantissa, mark, exponent = body.partition("e")
    if not mark:
        mantissa, mark, exponent = body.partition("E")
    if mark and not _digits(exponent[1:] if exponent[:1] in ("+", "-") else exponent):
        return False
    whole, dot, fraction = mantissa.partition(".")
    if not dot:
        return _digits(whole)
    return (_digits(whole) and (not fraction or _digits(fraction))) or (not whole and _digits(fraction))


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()  # isdigit() alone takes '²' and other scripts' digits


# -- entries to data ----------------------------------------------------------------------------


class _Tree:
    """Block structure over the entries: what PyYAML's parser builds from the same indentation, or
    _Unsure wherever the indentation is one PyYAML refuses or reads another way. After each node,
    its parent checks the next entry's column: deeper than the parent's own is _Unsure (the rest of
    a multi-line scalar, or a column between two blocks'), equal continues the parent, shallower
    ends it."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.at = 0
        self.nodes = 0

    def root(self) -> Any:
        value = self.node(1)
        if self.at < len(self.entries):
            raise _Unsure  # `- a` then `b: 1`, a second root node, a column between two blocks'
        return value

    def _column(self) -> int:
        """The next entry's column (-1 at the end)."""
        return self.entries[self.at][0] if self.at < len(self.entries) else -1

    def _count(self, values: int, depth: int) -> None:
        self.nodes += values
        if self.nodes > _MAX_NODES or depth > _MAX_DEPTH:
            raise _Unsure

    def node(self, depth: int) -> Any:
        """The node starting at the next entry."""
        column, kind, _, value = self.entries[self.at]
        if kind == _DASH:
            return self.sequence(column, depth)
        if kind == _KEY:
            return self.mapping(column, depth)
        self.at += 1
        self._count_value(value, depth)
        return value

    def count_json(self, data: Any) -> None:
        """Count parsed JSON's values and depth as the block structure's are counted."""
        stack = [(data, 1)]
        while stack:
            value, depth = stack.pop()
            self._count(1, depth)
            if isinstance(value, dict):
                self._count(len(value), depth + 1)
                stack.extend((v, depth + 1) for v in value.values())
            elif isinstance(value, list):
                stack.extend((v, depth + 1) for v in value)

    def _count_value(self, value: Any, depth: int) -> None:
        """Count a scalar or a one-line flow collection (its entries one level deeper)."""
        if isinstance(value, dict):
            self._count(1 + 2 * len(value), depth + 1)
        elif isinstance(value, list):
            self._count(1 + len(value), depth + 1)
        else:
            self._count(1, depth)

    def sequence(self, column: int, depth: int) -> list[Any]:
        items: list[Any] = []
        self._count(1, depth)
        while self.at < len(self.entries) and self.entries[self.at][:2] == (column, _DASH):
            self.at += 1
            if self._column() > column:
                items.append(self.node(depth + 1))
            else:
                self._count(1, depth + 1)
                items.append(None)  # `-` with nothing after it
            if self._column() > column:
                raise _Unsure
        return items  # an entry at this column that is not an item: the parent's (or _Unsure)

    def mapping(self, column: int, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        self._count(1, depth)
        while self._column() == column:
            _, kind, key, value = self.entries[self.at]
            if kind != _KEY or key in result:
                raise _Unsure  # an item or scalar at a mapping's column, or a duplicate key
            self.at += 1
            self._count(1, depth + 1)
            if value is not _NOTHING:
                self._count_value(value, depth + 1)
            elif self._column() > column:
                value = self.node(depth + 1)
            elif self._column() == column and self.entries[self.at][1] == _DASH:
                value = self.sequence(column, depth + 1)  # `- ` items at the key's column
            else:
                self._count(1, depth + 1)
                value = None
            result[key] = value
            if self._column() > column:
                raise _Unsure
        return result
