"""Every option a target reads is declared in ``Target.options`` (the construct refuses undeclared keys).

The reads are found in the module source, so an option added to a target without declaring it (which
the construct would then refuse) fails here, and so does a declared option nothing reads.
"""

from __future__ import annotations

import inspect
import re
import sys

import pytest
from conftest import ROOT

from computeops_cdk.targets import INTERNAL_OPTIONS, TARGETS
from computeops_cdk.targets.k8s import KubernetesLayer

# options.get("x") / options["x"] / opts.get("x") / opts["x"], and the helpers that take the key.
_READS = (
    re.compile(r"""\b(?:options|opts)(?:\.get\(|\[)\s*["'](\w+)["']"""),
    re.compile(r"""(?:whole|flag)_option\(\s*props,\s*["'](\w+)["']"""),
    re.compile(r"""option_or_variable\(\s*scope,\s*[\w.]+,\s*["'](\w+)["']"""),
    re.compile(r"""\bneed\(\s*["'](\w+)["']"""),
)


def _reads(source: str) -> set[str]:
    # Docstrings mention options too (``options["kubernetes_provider"]``): only count code lines.
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("#", "``")))
    return {key for pattern in _READS for key in pattern.findall(code)}


@pytest.mark.parametrize("provider", sorted(TARGETS))
def test_a_target_declares_exactly_the_options_it_reads(provider: str) -> None:
    target = TARGETS[provider]
    source = inspect.getsource(sys.modules[type(target).__module__])
    # Shared option readers a target delegates to (boot script, expose, its network and EFA helpers).
    helpers = re.findall(r"^from \.(_boot|_expose|_\w+_network|_aws_efa) import", source, re.M)
    for helper in sorted(set(helpers)):
        source += inspect.getsource(sys.modules[f"computeops_cdk.targets.{helper}"])
    read = _reads(source) - INTERNAL_OPTIONS
    assert read == set(target.options), f"{provider}: read but undeclared / declared but unread"
    assert not set(target.options) & INTERNAL_OPTIONS
    assert all(doc.strip() and "Default" in doc for doc in target.options.values())


def test_the_kubernetes_layer_declares_what_the_construct_reads_for_it() -> None:
    source = (ROOT / "src" / "computeops_cdk" / "constructs" / "_workload.py").read_text()
    assert _reads(source) == set(KubernetesLayer.options)
    assert all("Default" in doc for doc in KubernetesLayer.options.values())
