"""Intent YAML read with PyYAML's safe loader, as YAML 1.2 and in bounded work (accounts files too)."""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError

from ..errors import IntentError, shown
from ._bounds import MAX_DEPTH, MAX_DIGITS, MAX_NODES

try:
    from yaml import CSafeLoader as SafeLoader  # libyaml's parser, where PyYAML was built with it
except ImportError:  # pragma: no cover - PyYAML without libyaml: its pure-Python parser
    from yaml import SafeLoader  # type: ignore[assignment]

__all__ = ["load_yaml", "yaml_data"]

_NESTING = "nested deeper than {} levels (an intent is 5 levels deep)"


class _Loader(SafeLoader, Composer):
    """PyYAML's safe loader read as YAML 1.2, in bounded work.

    - Numbers are YAML 1.2's: ``1e12`` is a number; YAML 1.1's sexagesimal (``1:20`` = 80),
      hexadecimal, octal, binary and ``1_000`` forms are refused, not converted, and so are the
      1.1-only types ``!!binary``, ``!!set``, ``!!omap`` and ``!!pairs``.
    - Nesting deeper than ``MAX_DEPTH``, more than ``MAX_NODES`` values (counted while composing,
      then with aliases followed), integers of more than ``MAX_DIGITS`` digits, duplicate keys and
      unhashable keys are errors with their line and column.

    The nodes are composed by PyYAML's own composer (Python) from the parser's events, so the
    bounds are counted as the document is composed: libyaml's composer (C) offers no hook.
    """

    get_single_node = Composer.get_single_node

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.anchors = {}  # Composer's state (CSafeLoader's __init__ skips it)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            self._nodes += 1
            if self._nodes > MAX_NODES:
                raise self._refused(f"more than {MAX_NODES:,} values (an intent has about 50)")
            if self._depth > MAX_DEPTH:
                raise self._refused(_NESTING.format(MAX_DEPTH))
            return Composer.compose_node(self, parent, index)
        finally:
            self._depth -= 1

    def _refused(self, problem: str) -> ComposerError:
        """An error at the node about to be composed."""
        event: Any = self.peek_event()
        return ComposerError(None, None, problem, event.start_mark)


def _expanded_size(root: yaml.Node) -> int:
    """How many values ``root`` expands to with aliases followed, counted without expanding them
    (each node once: an aliased node's size is reused). Raises for a node that contains itself."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    open_nodes: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        if children_done:
            open_nodes.discard(id(node))
            sizes[id(node)] = min(1 + sum(sizes[id(c)] for c in children), MAX_NODES + 1)
            continue
        if id(node) in open_nodes:
            raise ComposerError(None, None, "an alias refers to the value that contains it", node.start_mark)
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(root)]


def _mapping_without_duplicates(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    # PyYAML keeps the last of two equal keys silently; in an intent that hides a typo or a bad merge.
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *anchor` may be overridden on purpose
            continue
        key = loader.construct_object(key_node)
        try:
            duplicate = key in seen
        except TypeError:  # a list or mapping as a key: `{[1, 2]: 3}`
            raise yaml.constructor.ConstructorError(
                None, None, "a key must be a name or a number, not a list or mapping", key_node.start_mark
            ) from None
        if duplicate:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {shown(key)} (each field may appear once)", mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


def _bounded_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    text = str(node.value)
    digits = len(text.lstrip("+-"))
    if digits > MAX_DIGITS:
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"an integer of {digits:,} digits is out of range for every intent field",
            node.start_mark,
        )
    try:
        return int(text)  # `!!int 0x10` arrives here too: YAML 1.2 decimal only
    except ValueError:
        raise yaml.constructor.ConstructorError(
            None, None, f"{shown(text)} is not a decimal integer. To fix: write e.g. 16", node.start_mark
        ) from None


def _bounded_float(loader: _Loader, node: yaml.ScalarNode) -> float:
    text = str(node.value)
    if not (_FLOAT.match(text) or _INT.match(text) or _SPECIAL_FLOAT.match(text)):  # `!!float 1:20`
        raise yaml.constructor.ConstructorError(
            None, None, f"{shown(text)} is not a YAML 1.2 number. To fix: write e.g. 80.0", node.start_mark
        )
    value: float = loader.construct_yaml_float(node)
    return value


_YAML11_NUMBERS = {
    # tag suffix -> (pattern, words for the message); matched before YAML 1.2's int and float
    "sexagesimal": (
        r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$",
        "a YAML 1.1 sexagesimal (base 60) number",
    ),
    "hexadecimal": (r"^[-+]?0x[0-9a-fA-F_]+$", "a YAML 1.1 hexadecimal number"),
    "octal": (r"^[-+]?0(?:o[0-7_]+|[0-9_]+)$", "a YAML 1.1 octal number (a leading zero)"),
    "binary": (r"^[-+]?0b[01_]+$", "a YAML 1.1 binary number"),
    "underscore": (
        r"^[-+]?[0-9][0-9]*_[0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?$",
        "a YAML 1.1 number with an underscore",
    ),
}
_QUIRK_TAG = "tag:computeops.dev,2026:yaml11-"
_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_SPECIAL_FLOAT = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


def _refuse_yaml11_number(loader: _Loader, node: yaml.ScalarNode) -> None:
    kind = node.tag.removeprefix(_QUIRK_TAG)
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"{shown(node.value)} is {_YAML11_NUMBERS[kind][1]}, which YAML 1.2 reads as text: computeops "
        "does not guess. To fix: write the number in plain decimal (e.g. 80, 16, 1000), or quote it "
        "if you mean the text",
        node.start_mark,
    )


def _refuse_yaml11_type(loader: _Loader, node: yaml.Node) -> None:
    name = node.tag.removeprefix("tag:yaml.org,2002:")
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"!!{name} is a YAML 1.1 type that no intent field takes. To fix: write plain text, "
        "numbers, lists and mappings",
        node.start_mark,
    )


def _yaml12_resolvers() -> dict[Any, list[tuple[str, re.Pattern[str]]]]:
    """SafeLoader's implicit resolvers with YAML 1.1's int and float replaced by YAML 1.2's, and the
    1.1-only number forms resolved to a tag that refuses them."""
    numbers = [(f"{_QUIRK_TAG}{kind}", re.compile(pattern)) for kind, (pattern, _) in _YAML11_NUMBERS.items()]
    numbers += [
        ("tag:yaml.org,2002:int", _INT),
        ("tag:yaml.org,2002:float", _FLOAT),
        ("tag:yaml.org,2002:float", _SPECIAL_FLOAT),
    ]
    table: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = [r for r in resolvers if r[0] not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
        table[first] = ([*numbers, *kept] if first in "+-.0123456789" else kept) if first else kept
    return table


_Loader.yaml_implicit_resolvers = _yaml12_resolvers()
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
_Loader.add_constructor("tag:yaml.org,2002:int", _bounded_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _bounded_float)
for _kind in _YAML11_NUMBERS:
    _Loader.add_constructor(f"{_QUIRK_TAG}{_kind}", _refuse_yaml11_number)
for _tag in ("binary", "set", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse_yaml11_type)


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper resolving plain scalars as ``_Loader`` reads them, so a string the loader
    would read as a number (``1e3`` is a YAML 1.2 float, not a 1.1 one) is written quoted."""


_Dumper.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers
_LINE_BREAKS = ("\x85", "\u2028", "\u2029")


def _string(dumper: _Dumper, value: str) -> yaml.ScalarNode:
    # A single-quoted or plain scalar writes NEL (U+0085) raw, and the reader folds it into a space:
    # double quotes escape it (and the other Unicode line breaks)
    style = '"' if any(b in value for b in _LINE_BREAKS) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _string)


def dump_yaml(data: Any) -> str:
    """YAML text of plain ``data`` that ``load_yaml`` reads back equal (keys in their order)."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def load_yaml(text: str) -> Any:
    """Parse intent YAML (``_Loader``'s rules); a YAMLError names the line and column."""
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as err:
            # libyaml looks ahead and stops at its own nesting limit (1,000) first: say ours
            if str(err.problem).startswith("exceeded maximum nesting depth"):
                raise ComposerError(None, None, _NESTING.format(MAX_DEPTH), err.problem_mark) from None
            raise
        if node is None:
            return None
        if _expanded_size(node) > MAX_NODES:
            raise ComposerError(
                None,
                None,
                f"the document expands to more than {MAX_NODES:,} values once its aliases are followed "
                "(an alias bomb?). To fix: write the values out, or use fewer aliases",
                node.start_mark,
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def yaml_data(text: str, *, source: str) -> Any:
    """The plain data of intent YAML ``text``; an IntentError names the line and column."""
    try:
        return load_yaml(text)  # a SafeLoader subclass: plain data only
    except (yaml.YAMLError, UnicodeEncodeError) as err:
        raise IntentError(f"{source}: invalid YAML{yaml_problem(err, text)}") from None


_C_READER = issubclass(_Loader, getattr(getattr(yaml, "cyaml", None), "CParser", ()))
"""libyaml's reader gives a ReaderError's position in UTF-8 bytes, PyYAML's in characters."""


def yaml_problem(err: yaml.YAMLError | UnicodeEncodeError, text: str) -> str:
    """`` at line L, column C: what is wrong. To fix: ...`` for an error reading ``text``."""
    if isinstance(err, UnicodeEncodeError):  # a str from the API holding a lone surrogate
        line, column = _line_column(text, err.start)
        return (
            f" at line {line}, column {column}: U+{ord(text[err.start]):04X} is a lone surrogate, not a "
            "character. To fix: pass text that encodes as UTF-8"
        )
    if isinstance(err, yaml.reader.ReaderError):  # no mark: an offset into the text ("<unicode string>")
        at = err.position
        if _C_READER:
            at = len(text.encode("utf-8")[:at].decode("utf-8", errors="ignore"))
        line, column = _line_column(text, at)
        character = err.character if isinstance(err.character, int) else ord(err.character)
        return (
            f" at line {line}, column {column}: unacceptable character #x{character:04x} ({err.reason}). "
            "To fix: remove it; the file is plain UTF-8 text"
        )
    mark = getattr(err, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = str(getattr(err, "problem", None) or err)[:400]
    if problem == _NO_TOKEN and mark is not None:  # libyaml's words leave out the character
        found = _character_at(text, mark.line, mark.column)
        problem = f"found character {found!r} that cannot start any token"
    fix = next((fix for words, fix in _FIXES if words in problem), None)
    return f"{where}: {problem}" + (f". To fix: {fix}" if fix else "")


_NO_TOKEN = "found character that cannot start any token"
_FIXES = (
    ("expected key", "indent this line like the other keys of its mapping, or add the ':' after its key"),
    (
        "expected <block end>",
        "indent this line like the other keys of its mapping, or add the ':' after its key",
    ),
    ("expected ',' or ']'", "close the list with ']', or separate its items with ','"),
    ("expected ',' or '}'", "close the mapping with '}', or separate its entries with ','"),
    (
        "mapping values are not allowed",
        "quote a value that holds ': ', or start a nested mapping on a new line",
    ),
)
"""Words of libyaml's (and PyYAML's) commonest syntax errors -> how to fix them."""


def _line_column(text: str, at: int) -> tuple[int, int]:
    """Line and column (from 1) of character ``at`` of ``text``."""
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _character_at(text: str, line: int, column: int) -> str:
    lines = text.splitlines()
    return lines[line][column] if line < len(lines) and column < len(lines[line]) else ""
