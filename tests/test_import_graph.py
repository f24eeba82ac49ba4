"""The package's import graph, read from the source with ``ast``: one way, no circle, no upward arrow.

An edge is every ``import``/``from ... import`` of one of our modules, at module level or inside a
function, absolute or relative; imports under ``if TYPE_CHECKING:`` are left out (they never run).
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, otherwise to ``pkg``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = "computeops_cdk"
SRC = Path(__file__).resolve().parents[1] / "src" / PACKAGE

# Lowest first: a module may import its own layer and the ones before it, never a later one. The
# data flows intent -> catalog -> perf -> engine -> Decision -> targets -> constructs/terraform -> cli
# over the base every layer may import; ``intent`` sits above ``catalog`` and ``perf`` because it
# takes their vocabularies (provider ids, precisions, model names). A name is a top-level module or
# package (all of it).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "_limits", "_files", "_version"),
    ("catalog",),
    ("perf",),
    ("intent",),  # checks an intent against the catalog's and the performance model's vocabularies
    ("accounts",),
    ("engine",),
    ("lockfile",),  # a Decision on disk
    ("observe",),
    ("targets", "_compat", "checkov_policies"),
    ("constructs", "terraform"),
    ("cli", "schemas"),
)

# What the engine must never import: the CDK runtime, the provider framework, a clock.
ENGINE_FORBIDDEN_MODULES = ("cdktn", "cdktf", "jsii", "constructs", "tf", "time")
ENGINE_FORBIDDEN_CALLS = ("now", "utcnow", "today", "time", "monotonic", "perf_counter")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` but the bodies of ``if TYPE_CHECKING:`` (their ``else`` runs)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _package_of(module: str) -> str:
    return module if _modules()[module].name == "__init__.py" else module.rpartition(".")[0]


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The names ``node`` imports: our modules under their dotted names, others as written."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    base = node.module or ""
    if node.level:
        package = _package_of(module).split(".")
        anchor = ".".join(package[: len(package) - node.level + 1])
        base = f"{anchor}.{base}" if base else anchor
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if submodule in _modules() else base


@cache
def _imports(module: str) -> tuple[str, ...]:
    tree = ast.parse(_modules()[module].read_text(encoding="utf-8"), filename=str(_modules()[module]))
    found = {
        name
        for node in _run_time_nodes(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in _imported(module, node)
    }
    return tuple(sorted(found))


def _graph() -> dict[str, tuple[str, ...]]:
    """Our module -> the modules of ours it imports (itself left out: a package's own names)."""
    return {
        module: tuple(name for name in _imports(module) if name in _modules() and name != module)
        for module in _modules()
    }


def _cycle(graph: dict[str, tuple[str, ...]]) -> list[str] | None:
    """One import circle of ``graph`` as its modules in order (first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in graph[module]:
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        path.pop()
        state[module] = 2
        return None

    for module in graph:
        if module not in state and (found := visit(module)) is not None:
            return found
    return None


def _layer(module: str) -> int:
    top = module.removeprefix(f"{PACKAGE}.").split(".")[0]
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module} is in no layer: add {top!r} to LAYERS in {Path(__file__).name}")


def test_every_module_parses_and_sits_in_a_layer() -> None:
    assert len(_modules()) > 100
    for module in _modules():
        if module != PACKAGE:
            _layer(module)


def test_the_import_graph_has_no_circle() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    # The test above could not fail if this found nothing.
    graph = {"a": ("b",), "b": ("c",), "c": ("a",), "d": ("a",)}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": ("b",), "b": ()}) is None


def test_no_subpackage_module_imports_the_package_root() -> None:
    # The root's lazy names import every layer; a subpackage takes what it needs from the module
    # that defines it (``_version.__version__``, ``errors``, ...).
    upward = sorted(
        module for module, targets in _graph().items() if PACKAGE in targets and module != PACKAGE
    )
    assert not upward, "imports the package root: " + ", ".join(upward)


def test_a_lower_layer_never_imports_a_higher_one() -> None:
    upward = sorted(
        f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})"
        for module, targets in _graph().items()
        if module != PACKAGE
        for target in targets
        if target != PACKAGE and _layer(target) > _layer(module)
    )
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_engine_imports_no_cdk_runtime_no_provider_framework_and_no_clock() -> None:
    engine = [module for module in _modules() if module.startswith(f"{PACKAGE}.engine")]
    assert len(engine) > 10
    found = []
    for module in engine:
        for name in _imports(module):
            if name.split(".")[0] in ENGINE_FORBIDDEN_MODULES:
                found.append(f"{module} imports {name}")
        tree = ast.parse(_modules()[module].read_text(encoding="utf-8"))
        for node in _run_time_nodes(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ENGINE_FORBIDDEN_CALLS
                and isinstance(node.func.value, ast.Name | ast.Attribute)
                and (getattr(node.func.value, "id", None) or getattr(node.func.value, "attr", None))
                in ("datetime", "date", "time")
            ):
                found.append(f"{module}:{node.lineno} reads a clock ({ast.unparse(node.func)})")
    assert not found, "\n".join(found)
