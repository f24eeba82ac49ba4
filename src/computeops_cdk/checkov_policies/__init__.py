"""checkov policies for the resources the generic targets emit (checkov ships none for them).

checkov 3 has no checks for ``lambdalabs_instance``, ``nebius_compute_v1_instance``,
``crusoe_compute_instance``, ``runpod_pod``, ``vastai_instance`` or a CoreWeave ``NodePool`` in
``kubernetes_manifest``, so "0 failed" on those stacks meant "not checked". These policies (checkov's
Python policy API, ``gpu_machines.py``) check what matters on a rented GPU machine:

    CKV_COPS_1  no public IP address unless one is asked for
    CKV_COPS_2  SSH by key only, or no SSH at all
    CKV_COPS_3  the image is pinned: a tag or digest, never ``latest`` or none
    CKV_COPS_4  a GPU node pool is tainted, so only pods that ask for GPUs land on it

Run them with ``--external-checks-dir`` (the ``.checkov.yaml`` written beside every synthesized
stack does it for you)::

    checkov --config-file cdktf.out/stacks/<stack>/.checkov.yaml
    checkov -d DIR --framework terraform_json \\
        --external-checks-dir "$(python -m computeops_cdk.checkov_policies)"

Why no "encrypted volumes" policy: none of these six resources has an encryption argument in its
provider's schema (TARGETS.md lists the attributes read); the providers encrypt at rest or not on
their side, and nothing in the Terraform says which. The hyperscalers' volumes are checked by checkov's
own checks (AWS ``encrypted``, GCP CSEK/CMEK, Azure encryption at host).

This package imports nothing at import time; checkov imports ``gpu_machines`` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = ["CONFIG_FILE", "POLICIES_DIR", "POLICY_IDS", "config_text"]

POLICIES_DIR = Path(__file__).parent
"""The directory to pass to ``checkov --external-checks-dir``."""

POLICY_IDS: tuple[str, ...] = ("CKV_COPS_1", "CKV_COPS_2", "CKV_COPS_3", "CKV_COPS_4")

CONFIG_FILE = ".checkov.yaml"
"""The file written beside every synthesized stack (checkov reads it from the directory it runs in)."""


def config_text(skips: Mapping[str, str]) -> str:
    """The ``.checkov.yaml`` of a stack: terraform_json, these policies, and ``skips`` (check id ->
    reason) with each reason as a comment above its id. checkov 3 honours no suppression inside
    Terraform JSON, so this file is how a user reproduces the project's result."""
    lines = [
        "# checkov settings for this stack, written by computeops-cdk at synth.",
        "# Run `checkov` in this directory (it reads this file), or from anywhere:",
        "#   checkov --config-file <this file> -d <this directory>",
        "# external-checks-dir: computeops's policies (CKV_COPS_*) for the GPU providers checkov has no",
        "# checks for (computeops_cdk/checkov_policies; `python -m computeops_cdk.checkov_policies`).",
        "directory:",
        "  - .",
        "framework:",
        "  - terraform_json",
        "skip-download: true",
        "external-checks-dir:",
        f"  - {_yaml_string(str(POLICIES_DIR))}",
    ]
    if skips:
        lines.append("skip-check:  # each check this stack fails on purpose, with why")
        for check, reason in sorted(skips.items()):
            lines += [f"  # {check}: {' '.join(reason.split())}", f"  - {check}"]
    return "\n".join(lines) + "\n"


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
