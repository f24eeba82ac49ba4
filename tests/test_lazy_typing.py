"""The public ``Literal`` aliases made on first read (``_lazy_typing``) are the aliases mypy reads.

Each module keeps its aliases for mypy under ``if TYPE_CHECKING:`` and makes them at run time from
a tuple of the same values, so a cold start does not import ``typing``. These tests read each
module's ``TYPE_CHECKING`` block and compare it with what the module gives at run time.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from typing import Literal, get_args

import pytest

import computeops_cdk.perf as perf
from computeops_cdk import _lazy_typing
from computeops_cdk.perf import _types as perf_types

_MODULES = [
    "computeops_cdk.catalog._types",
    "computeops_cdk.engine._decision",
    "computeops_cdk.perf._types",
]


def _aliases_mypy_reads(module_name: str) -> dict[str, tuple[str, ...]]:
    """``{name: values}`` of each ``name = Literal[...]`` in the module's ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(inspect.getsource(importlib.import_module(module_name)))
    found: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.Assign)
                    and isinstance(stmt.value, ast.Subscript)
                    and isinstance(stmt.value.value, ast.Name)
                    and stmt.value.value.id == "Literal"
                ):
                    values = ast.literal_eval(stmt.value.slice)
                    found[stmt.targets[0].id] = values if isinstance(values, tuple) else (values,)  # type: ignore[attr-defined]
    return found


@pytest.mark.parametrize("module_name", _MODULES)
def test_each_alias_at_run_time_is_the_one_mypy_reads(module_name: str) -> None:
    module = importlib.import_module(module_name)
    aliases = _aliases_mypy_reads(module_name)
    assert aliases  # the block is found
    for name, values in aliases.items():
        alias = getattr(module, name)
        assert get_args(alias) == values, name
        assert alias == Literal[values]  # type: ignore[valid-type]
        assert getattr(module, name) is alias  # made once, then kept
        assert name in vars(module)


def test_the_re_exported_aliases_are_the_defining_modules_own() -> None:
    for name in ("Bound", "Evidence", "Precision", "WorkloadKind"):
        assert getattr(perf, name) is getattr(perf_types, name)
        assert name in perf.__all__
    assert get_args(perf.Precision) == perf.PRECISIONS


@pytest.mark.parametrize("module_name", [*_MODULES, "computeops_cdk.perf"])
def test_other_names_are_attribute_errors_as_python_words_them(module_name: str) -> None:
    module = importlib.import_module(module_name)
    with pytest.raises(AttributeError, match=rf"^module '{module_name}' has no attribute 'NoSuchAlias'$"):
        module.NoSuchAlias  # noqa: B018
    assert not hasattr(module, "NoSuchAlias")


def test_the_stand_ins_do_what_typings_do_at_run_time() -> None:
    marker = object()
    assert _lazy_typing.cast(int, marker) is marker
    assert _lazy_typing.Generic["K"] is _lazy_typing.Generic
    assert _lazy_typing.Generic[int, str] is _lazy_typing.Generic
