"""The one module that imports a CDK-for-Terraform core: CDK Terrain (``cdktn``) and/or ``cdktf`` 0.21.

Everything else takes the core classes from here, so a team still on cdktf can use the constructs
unchanged. A construct builds with its scope's core (``framework_of``) under
``framework_for(scope)``; the names below (``TerraformStack``, ``Fn``, ...) resolve to the active
core on each read. Outside any construct the default core is ``COMPUTEOPS_CDK_FRAMEWORK`` when set,
else the one the app already imported, else cdktn (``FRAMEWORK``). Subclasses of a core class use
the ``FrameworkBound`` metaclass.

Importing this module checks once that jsii's ``node`` is Node.js >= 22 (cdktn's requirement).
Prebuilt provider bindings are imported through :func:`import_binding` only (``MissingExtraError``).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType
from typing import Any, TypeVar

from .errors import MissingExtraError

__all__ = [
    "CORES",
    "FRAMEWORK",
    "FrameworkBound",
    "active_framework",
    "core_module",
    "framework_for",
    "framework_of",
    "import_binding",
    "in_scope_framework",
]
# Also read through this module (``__getattr__``, the active core's): ``core`` and ``_NAMES``.

NODE_MAJOR = 22
"""The oldest Node.js major version cdktn 0.24 runs on."""


def _check_node() -> None:
    """Fail once, clearly, when the Node.js jsii would start is missing or older than ``NODE_MAJOR``."""
    node = os.environ.get("JSII_NODE") or shutil.which("node")
    fix = (
        f"To fix: install Node.js >= {NODE_MAJOR}, e.g. `npm install node@{NODE_MAJOR}` (what the Makefile "
        "does, pinned in package.json) and put node_modules/.bin first on PATH, or set JSII_NODE to a Node "
        f"{NODE_MAJOR} binary."
    )
    if node is None:
        raise MissingExtraError(
            f"the CDK runtime needs Node.js >= {NODE_MAJOR} and no `node` is on PATH. {fix}", extra=""
        )
    try:
        version = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = ""
    match = re.match(r"v(\d+)\.", version)
    if match is None or int(match.group(1)) < NODE_MAJOR:
        found = version or "a node that does not run"
        raise MissingExtraError(
            f"the CDK runtime needs Node.js >= {NODE_MAJOR}; {node} is {found} "
            f"(older ones crash in jsii with 'markAsUncloneable is not a function'). {fix}",
            extra="",
        )


def _load_core() -> tuple[str, ModuleType]:
    wanted = os.environ.get("COMPUTEOPS_CDK_FRAMEWORK", "").strip().lower()
    if not wanted and "cdktf" in sys.modules and "cdktn" not in sys.modules:
        wanted = "cdktf"  # the app is built on cdktf (imported before the constructs)
    order = ["cdktf", "cdktn"] if wanted == "cdktf" else ["cdktn", "cdktf"]
    if wanted not in ("", "cdktn", "cdktf"):
        raise MissingExtraError(
            f"COMPUTEOPS_CDK_FRAMEWORK={wanted!r} is not a CDK framework. "
            "To fix: set it to 'cdktn' or 'cdktf'.",
            extra="",
        )
    for name in order:
        try:
            return name, importlib.import_module(name)
        except ImportError:
            continue
    raise MissingExtraError(
        "neither cdktn nor cdktf is installed. To fix: pip install computeops-cdk (which installs cdktn).",
        extra="",
    )


_check_node()
FRAMEWORK, _default = _load_core()
"""The default core (see the module docstring); a construct uses its scope's core instead."""
CORES = ("cdktn", "cdktf")
_loaded: dict[str, ModuleType] = {FRAMEWORK: _default}
_active: ContextVar[str | None] = ContextVar("computeops_cdk_framework", default=None)

# The core classes and helpers read through this module: each read resolves to the active core.
_NAMES = frozenset(
    {
        "Annotations",
        "App",
        "Aspects",
        "Fn",
        "IAspect",
        "IStackSynthesizer",
        "TerraformCount",
        "TerraformDataSource",
        "TerraformOutput",
        "TerraformProvider",
        "TerraformResource",
        "TerraformStack",
        "Testing",
        "Token",
    }
)


def _core_name(cls: type) -> str | None:
    for klass in cls.__mro__:
        name = klass.__module__.split(".")[0]
        if name in CORES:
            return name
    return None


def framework_of(scope: Any) -> str:
    """The core of ``scope``'s root (the app), else of its own class, else the active core."""
    node = getattr(scope, "node", None)
    root = getattr(node, "root", None) if node is not None else None
    for item in (root, scope):
        if item is not None and (name := _core_name(type(item))) is not None:
            return name
    return active_framework()


def active_framework() -> str:
    """The core constructs are being built with now (``framework_for``), else ``FRAMEWORK``."""
    return _active.get() or FRAMEWORK


def core_module(framework: str | None = None) -> ModuleType:
    """The module of core ``framework`` (default: the active one), imported on first use."""
    name = framework or active_framework()
    module = _loaded.get(name)
    if module is None:
        try:
            module = _loaded[name] = importlib.import_module(name)
        except ImportError:
            raise MissingExtraError(
                f"the app is built on {name}, which is not importable here. To fix: pip install {name}",
                extra="",
            ) from None
    return module


@contextmanager
def framework_for(scope: Any) -> Iterator[str]:
    """Build with ``scope``'s core inside the block (nested blocks restore the outer core)."""
    name = framework_of(scope)
    core_module(name)
    token = _active.set(name)
    try:
        yield name
    finally:
        _active.reset(token)


_F = TypeVar("_F", bound=Callable[..., Any])


def in_scope_framework(method: _F) -> _F:
    """Run ``method(self, scope, ...)`` (a construct's ``__init__``, an aspect's ``visit``) under
    ``framework_for(scope)``."""

    @functools.wraps(method)
    def wrapper(self: Any, scope: Any, *args: Any, **kwargs: Any) -> Any:
        with framework_for(scope):
            return method(self, scope, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def __getattr__(name: str) -> Any:
    # `from computeops_cdk._compat import TerraformStack` inside a function reads this each call.
    if name == "core":
        return core_module()
    if name in _NAMES:
        return getattr(core_module(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class FrameworkBound(type):
    """Metaclass of a class whose jsii base is a core class named by its ``__core_base__``.

    ``Cls(scope, ...)`` instantiates ``Cls`` built (once, cached) on that base of ``scope``'s core;
    ``isinstance(obj, Cls)`` holds for either core.
    """

    def __call__(cls, scope: Any, *args: Any, **kwargs: Any) -> Any:
        if "__core_framework__" in cls.__dict__:  # a class already built on a core: create it
            return super().__call__(scope, *args, **kwargs)
        return _bound(cls, framework_of(scope))(scope, *args, **kwargs)


_BUILT: dict[tuple[type, str], type] = {}


def _bound(cls: type, framework: str) -> type:
    built = _BUILT.get((cls, framework))
    if built is None:
        base = getattr(core_module(framework), cls.__core_base__)  # type: ignore[attr-defined]
        attrs = {"__core_framework__": framework, "__module__": cls.__module__, "__doc__": cls.__doc__}
        built = _BUILT[(cls, framework)] = _bound_meta(type(base))(cls.__name__, (cls, base), attrs)
        built.__qualname__ = cls.__qualname__
    return built


_METAS: dict[type, type] = {}


def _bound_meta(base_meta: type) -> type:
    # The built class's metaclass must derive from both FrameworkBound and the core's (jsii) metaclass.
    if base_meta not in _METAS:
        _METAS[base_meta] = type(f"FrameworkBound{base_meta.__name__}", (FrameworkBound, base_meta), {})
    return _METAS[base_meta]


# binding -> (cdktn package, cdktf package, pip extra of computeops-cdk)
_BINDINGS: dict[str, tuple[str, str, str]] = {
    "aws": ("cdktn_provider_aws", "cdktf_cdktf_provider_aws", "aws"),
    "google": ("cdktn_provider_google", "cdktf_cdktf_provider_google", "gcp"),
    "google_beta": ("cdktn_provider_google_beta", "cdktf_cdktf_provider_google_beta", "gcp"),
    "azurerm": ("cdktn_provider_azurerm", "cdktf_cdktf_provider_azurerm", "azure"),
    "kubernetes": ("cdktn_provider_kubernetes", "cdktf_cdktf_provider_kubernetes", "k8s"),
    "helm": ("cdktn_provider_helm", "cdktf_cdktf_provider_helm", "k8s"),
}


def import_binding(
    binding: str, submodule: str = "", *, chosen_by: str = "the engine", provider: str | None = None
) -> ModuleType:
    """Import a prebuilt binding (or one of its submodules) for the active framework.

    Args:
        binding: one of ``aws``, ``google``, ``google_beta``, ``azurerm``, ``kubernetes``, ``helm``.
        submodule: e.g. ``instance`` for ``cdktn_provider_aws.instance``; default the package.
        chosen_by: who picked this provider, for the error message ("the engine", "you pinned").
        provider: the catalog provider, for the error message; default the extra's name.

    Raises:
        MissingExtraError: the binding package is not installed; names the extra that installs it.
    """
    cdktn_pkg, cdktf_pkg, extra = _BINDINGS[binding]
    package = cdktn_pkg if active_framework() == "cdktn" else cdktf_pkg
    name = f"{package}.{submodule}" if submodule else package
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is None or not package.startswith(err.name.split(".")[0]):
            raise
        raise MissingExtraError(
            _missing_message(binding, package, extra, chosen_by, provider), extra=extra
        ) from None


def _missing_message(binding: str, package: str, extra: str, chosen_by: str, provider: str | None) -> str:
    distribution = package.replace("_", "-")
    if active_framework() == "cdktn":
        install = f"computeops-cdk[{extra}]"
        fix = f"pip install '{install}'"
    else:
        # cdktf users bring the legacy prebuilt bindings themselves; our extras pull cdktn ones.
        install = distribution
        fix = f"pip install {install}"
    # Nobody chose the Kubernetes/Helm layer: `cluster=` runs through it on whichever cloud.
    who = (
        "cluster= runs the workload through the Kubernetes and Helm providers"
        if extra == "k8s"
        else f"{chosen_by} chose {provider or extra}"
    )
    return (
        f"{who}; install {install} (the {binding} binding, {distribution}, is not installed). To fix: {fix}."
    )
