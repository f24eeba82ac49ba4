"""The one module that imports a CDK-for-Terraform core: CDK Terrain (``cdktn``), else ``cdktf`` 0.21.

Everything else (targets, constructs, stacks, tests) takes the core classes from here, so a
platform team still on cdktf can use the constructs unchanged. The framework is the one the app
already imported (``import cdktf`` before the constructs: cdktf), else cdktn when importable; set
``COMPUTEOPS_CDK_FRAMEWORK`` to ``cdktf`` or ``cdktn`` to force one. A construct given a scope of the
other framework fails at once with the fix (``check_scope``), before anything is written.

Importing this module checks, once, that the ``node`` jsii will start is Node.js >= 22 (cdktn's
requirement): an older one fails with one message saying how to get Node 22, instead of jsii's
``markAsUncloneable is not a function`` crash and its end-of-life warnings.

Prebuilt provider bindings are imported through :func:`import_binding` only, which maps a binding
to the package of the active framework and turns a missing package into a ``MissingExtraError``.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from types import ModuleType
from typing import Any

from .errors import MissingExtraError, TargetError

__all__ = [
    "FRAMEWORK",
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
    "check_scope",
    "core",
    "import_binding",
]

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
FRAMEWORK, core = _load_core()


def check_scope(scope: Any, what: str) -> None:
    """Raise ``TargetError`` when ``scope`` belongs to an app of the other CDK framework.

    Args:
        what: the construct being built, for the message (e.g. ``WorkloadStack 'serve'``).
    """
    node = getattr(scope, "node", None)
    root = getattr(node, "root", None)
    module = type(root).__module__.split(".")[0] if root is not None else ""
    if module in ("cdktn", "cdktf") and module != FRAMEWORK:
        raise TargetError(
            f"{what}: its scope belongs to a {module} App, but computeops_cdk loaded {FRAMEWORK} (the two "
            f"cores cannot share a tree). To fix: import {module} before computeops_cdk's constructs, or set "
            f"COMPUTEOPS_CDK_FRAMEWORK={module}."
        )


App: Any = core.App
TerraformStack: Any = core.TerraformStack
TerraformOutput: Any = core.TerraformOutput
TerraformResource: Any = core.TerraformResource
TerraformProvider: Any = core.TerraformProvider
TerraformDataSource: Any = core.TerraformDataSource
Testing: Any = core.Testing
Token: Any = core.Token
Fn: Any = core.Fn
Annotations: Any = core.Annotations
Aspects: Any = core.Aspects
IAspect: Any = core.IAspect
IStackSynthesizer: Any = core.IStackSynthesizer
TerraformCount: Any = core.TerraformCount

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
        submodule: e.g. ``instance`` for ``cdktn_provider_aws.instance``. Default: the package itself.
        chosen_by: who picked this provider, for the error message ("the engine", "you pinned").
            Default: "the engine".
        provider: the catalog provider the binding serves, for the error message. Default: the
            extra's name (``gcp`` for the google bindings).

    Raises:
        MissingExtraError: the binding package is not installed, naming the extra that installs it:
            "the engine chose gcp; install computeops-cdk[gcp] ...".
    """
    cdktn_pkg, cdktf_pkg, extra = _BINDINGS[binding]
    package = cdktn_pkg if FRAMEWORK == "cdktn" else cdktf_pkg
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
    if FRAMEWORK == "cdktn":
        install = f"computeops-cdk[{extra}]"
        fix = f"pip install '{install}'"
    else:
        # cdktf users bring the legacy prebuilt bindings themselves; our extras pull cdktn ones.
        install = package.replace("_", "-")
        fix = f"pip install {install}"
    # The Kubernetes/Helm layer is no provider anyone chose: it is what `cluster=` runs the workload
    # with, whichever cloud holds the cluster; say that, and which extra brings it.
    who = (
        "cluster= runs the workload through the Kubernetes and Helm providers"
        if extra == "k8s"
        else f"{chosen_by} chose {provider or extra}"
    )
    return f"{who}; install {install} (the {binding} binding, {package}, is not installed). To fix: {fix}."
