"""checkov policies for the resources the generic targets emit (checkov ships none for them).

checkov 3 has no checks for ``lambdalabs_instance``, ``nebius_compute_v1_instance``,
``crusoe_compute_instance``, ``runpod_pod``, ``vastai_instance`` or a CoreWeave ``NodePool`` in
``kubernetes_manifest``, so "0 failed" on those stacks meant "not checked". These policies (checkov's
Python policy API, ``gpu_machines.py``) check what matters on a rented GPU machine:

    CKV_COPS_1  no public IP address unless one is asked for
    CKV_COPS_2  SSH by key only, or no SSH at all
    CKV_COPS_3  the image is pinned: a tag or digest, never ``latest`` or none
    CKV_COPS_4  a GPU node pool is tainted, so only pods that ask for GPUs land on it
    CKV_COPS_5  disks are encrypted at rest where the provider's Terraform can ask for it

Every synthesized stack gets a ``.checkov.yaml`` and a copy of these policies beside it
(``write_config``), with paths relative to the stack directory only, so the stack directory can be
committed, copied or scanned on another machine with checkov alone (computeops need not be
installed there)::

    cd cdktf.out/stacks/<stack> && checkov            # reads ./.checkov.yaml
    checkov --config-file cdktf.out/stacks/<stack>/.checkov.yaml -d cdktf.out/stacks/<stack> \\
        --external-checks-dir cdktf.out/stacks/<stack>/computeops-checkov-policies
    checkov -d DIR --framework terraform_json \\
        --external-checks-dir "$(python -m computeops_cdk.checkov_policies)"   # any Terraform JSON

checkov resolves a relative ``external-checks-dir`` against the directory it runs in, not the
config file's (checkov 3.3 has no module-name or config-relative form), hence the explicit
``--external-checks-dir`` when running from elsewhere.

Encrypted volumes (CKV_COPS_5): of the six generic targets' resources only Nebius disks have an
encryption argument (``disk_encryption { type = "DISK_ENCRYPTION_MANAGED" }``, for the
NETWORK_SSD_IO_M3 and NETWORK_SSD_NON_REPLICATED types only: nebius/terraform-provider-nebius
docs/resources/compute_v1_instance.md). ``crusoe_storage_disk`` has ``name, size, location,
block_size, project_id, type`` (crusoecloud/terraform-provider-crusoe docs/resources/storage_disk.md),
``lambdalabs_instance``, ``runpod_pod`` and ``vastai_instance`` no encryption argument either (the
arguments in TARGETS.md; RunPod documents encrypted volume disks in its console, with no Terraform
argument in the 2.0 provider's documented ``runpod_pod`` arguments), and the CoreWeave NodePool is a
Kubernetes manifest. The hyperscalers' volumes are checked by checkov's own checks (AWS
``encrypted``, GCP CSEK/CMEK, Azure encryption at host).

This package imports nothing at import time; checkov imports ``gpu_machines`` itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CONFIG_FILE",
    "POLICIES_DIR",
    "POLICY_FILES",
    "POLICY_IDS",
    "VENDORED_DIR",
    "config_text",
    "write_config",
]

POLICIES_DIR = Path(__file__).parent
"""The directory to pass to ``checkov --external-checks-dir``."""

POLICY_IDS: tuple[str, ...] = ("CKV_COPS_1", "CKV_COPS_2", "CKV_COPS_3", "CKV_COPS_4", "CKV_COPS_5")

POLICY_FILES: tuple[str, ...] = ("gpu_machines.py",)
"""The policy modules (they import only checkov and the standard library, so a copy runs anywhere)."""

VENDORED_DIR = "computeops-checkov-policies"
"""The copy of the policies beside each synthesized stack, named relative to the stack directory."""

CONFIG_FILE = ".checkov.yaml"
"""The file written beside every synthesized stack (checkov reads it from the directory it runs in)."""


def config_text(skips: Mapping[str, str]) -> str:
    """The ``.checkov.yaml`` of a stack: terraform_json, the policies copied beside it (a path
    relative to the stack directory, never an absolute one), and ``skips`` (check id -> reason)
    with each reason as a comment above its id. checkov 3 honours no suppression inside Terraform
    JSON, so this file is how a user reproduces the project's result."""
    lines = [
        "# checkov settings for this stack, written by computeops-cdk at synth.",
        "# Run `checkov` in this directory (it reads this file). From another directory:",
        "#   checkov --config-file <this file> -d <this directory> \\",
        f"#     --external-checks-dir <this directory>/{VENDORED_DIR}",
        "# (checkov resolves external-checks-dir against the directory it runs in, not this file's).",
        f"# {VENDORED_DIR}/: computeops's policies (CKV_COPS_*) for the GPU providers checkov has no",
        "# checks for, copied here so that checkov alone reproduces the result.",
        "directory:",
        "  - .",
        "framework:",
        "  - terraform_json",
        "skip-download: true",
        "external-checks-dir:",
        f"  - {VENDORED_DIR}",
    ]
    if skips:
        lines.append("skip-check:  # each check this stack fails on purpose, with why")
        for check, reason in sorted(skips.items()):
            lines += [f"  # {check}: {' '.join(reason.split())}", f"  - {check}"]
    return "\n".join(lines) + "\n"


def write_config(directory: str | Path, skips: Mapping[str, str]) -> None:
    """Write ``.checkov.yaml`` (``config_text``) and the copy of the policies into ``directory``."""
    target = Path(directory)
    vendored = target / VENDORED_DIR
    vendored.mkdir(exist_ok=True)
    (vendored / "__init__.py").write_text(
        '"""computeops-cdk checkov policies (a copy; checkov loads them from external-checks-dir)."""\n',
        encoding="utf-8",
    )
    for name in POLICY_FILES:
        (vendored / name).write_bytes((POLICIES_DIR / name).read_bytes())
    (target / CONFIG_FILE).write_text(config_text(skips), encoding="utf-8")
