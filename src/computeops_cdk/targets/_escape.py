"""No string reaches Terraform as a template: ``${`` becomes ``$${`` and ``%{`` becomes ``%%{``.

Terraform reads ``${ ... }`` (interpolation) and ``%{ ... }`` (directives) inside every JSON string
of a configuration, and cdktn copies strings verbatim: a region code ``us-east-1${file("/etc/passwd")}``
would make ``terraform plan`` read that file. Options, tags and names come from user code, so every
string a target writes is escaped once, at synthesis, by the ``EscapeTemplates`` aspect (registered
through ``Target``; see ``_base``). cdktn tokens (``${TfToken[TOKEN.12]}``), the references targets
build on purpose, are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import jsii

from .. import _compat
from .._compat import IAspect, in_scope_framework

__all__ = ["EscapeTemplates", "escape_templates", "protect_stack", "raw_expression"]

_TOKEN = re.compile(r"\$\{TfToken\[[A-Za-z0-9_.\-]+\]\}")
"""A cdktn token in a string (cdktn's ``Tokenization`` encoding): resolved by cdktn, never escaped."""


def escape_templates(value: Any) -> Any:
    """``value`` with ``${`` -> ``$${`` and ``%{`` -> ``%%{`` in every string (recursively in lists and
    mappings; keys too), cdktn tokens left intact. Anything else is returned unchanged."""
    if isinstance(value, str):
        if "{" not in value:
            return value
        pieces = _TOKEN.split(value)
        tokens = _TOKEN.findall(value)
        out = [_escape_literal(pieces[0])]
        for token, piece in zip(tokens, pieces[1:], strict=True):
            out += [token, _escape_literal(piece)]
        return "".join(out)
    if isinstance(value, Mapping):
        return {escape_templates(k): escape_templates(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [escape_templates(v) for v in value]
    return value


def _escape_literal(text: str) -> str:
    return text.replace("${", "$${").replace("%{", "%%{")


@jsii.implements(_compat.core.IStringProducer)  # either core's: jsii checks by shape
class _Raw:
    def __init__(self, text: str) -> None:
        self._text = text

    def produce(self, context: Any) -> str:
        return self._text


def raw_expression(text: str) -> str:
    """A Terraform expression a target writes on purpose (``${element(x[*].id, count.index)}``), as a
    cdktn token: the escape leaves tokens alone, so this is the one way to emit a literal ``${``."""
    return str(_compat.core.Lazy.string_value(_Raw(text)))


# Where each kind of element keeps its attributes in its own ``to_terraform()`` fragment.
_DEPTH = {"resource": 2, "data": 2, "output": 1, "variable": 1, "provider": 1}


@jsii.implements(IAspect)  # the default core's: jsii matches by shape (either core's app)
class EscapeTemplates:
    """Escape every literal ``${`` / ``%{`` in the attributes of every Terraform element it visits.

    Registered once per stack by ``protect_stack`` (every target does it; see ``Target``). Only a
    string that escaping changes is rewritten, as an override of that one value (a dotted path,
    so other overrides on the element stay), and a stack without template text synthesizes
    byte-identically.
    """

    @in_scope_framework
    def visit(self, node: Any) -> None:
        """Override each string of ``node`` whose escaped form differs from what it holds."""
        core = _compat.core
        if not isinstance(node, core.TerraformElement) or core.TerraformStack.is_stack(node):
            return
        fragment = node.to_terraform()
        if not isinstance(fragment, Mapping):
            return
        for kind, depth in _DEPTH.items():
            for attributes in _blocks(fragment.get(kind), depth):
                for key, held in attributes.items():
                    if key == "//":
                        continue
                    for path, value in _overrides(held, escape_templates(held), (str(key),)):
                        node.add_override(".".join(path), value)


def _overrides(held: Any, escaped: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """(path, value) overrides that turn ``held`` into ``escaped``, parents before children.

    An override path is split on dots, so a child under a key holding a dot (``computeops.io/gpu``)
    is set through its parent, as a partial object (cdktn merges objects key by key, and list
    elements by index when given as an object keyed by index).
    """
    if held == escaped:
        return []
    if isinstance(held, Mapping) and isinstance(escaped, Mapping) and list(held) == list(escaped):
        children = [(str(k), held[k], escaped[k]) for k in held]
    elif isinstance(held, list) and isinstance(escaped, list) and len(held) == len(escaped):
        children = [(str(i), h, e) for i, (h, e) in enumerate(zip(held, escaped, strict=True))]
    else:
        return [(path, escaped)]
    changed = [(part, h, e) for part, h, e in children if h != e]
    dotted = {part: _partial(h, e) for part, h, e in changed if "." in part}
    out: list[tuple[tuple[str, ...], Any]] = [(path, dotted)] if dotted else []
    for part, h, e in changed:
        if "." not in part:
            out += _overrides(h, e, (*path, part))
    return out


def _partial(held: Any, escaped: Any) -> Any:
    """Only what changed between ``held`` and ``escaped``, lists as objects keyed by index."""
    if isinstance(held, Mapping) and isinstance(escaped, Mapping) and list(held) == list(escaped):
        return {str(k): _partial(held[k], escaped[k]) for k in held if held[k] != escaped[k]}
    if isinstance(held, list) and isinstance(escaped, list) and len(held) == len(escaped):
        return {str(i): _partial(h, e) for i, (h, e) in enumerate(zip(held, escaped, strict=True)) if h != e}
    return escaped


def _blocks(section: Any, depth: int) -> list[Mapping[str, Any]]:
    """The attribute mappings ``depth`` levels under ``section`` (provider blocks are lists)."""
    level = [section]
    for _ in range(depth):
        level = [v for s in level if isinstance(s, Mapping) for v in s.values()]
    flat: list[Any] = []
    for item in level:
        flat.extend(item if isinstance(item, list) else [item])
    return [b for b in flat if isinstance(b, Mapping)]


def protect_stack(scope: Any) -> None:
    """Register ``EscapeTemplates`` on ``scope``'s stack, once (idempotent). A ``scope`` that is not
    a construct has no stack to protect (the target fails on it by itself)."""
    from constructs import Construct

    if not isinstance(scope, Construct):
        return
    stack = _compat.TerraformStack.of(scope)
    aspects = _compat.Aspects.of(stack)
    if not any(isinstance(a, EscapeTemplates) for a in aspects.all):
        aspects.add(EscapeTemplates())
