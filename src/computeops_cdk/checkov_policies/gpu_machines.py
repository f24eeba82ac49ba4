"""The computeops checkov policies (loaded by checkov from ``--external-checks-dir``; see ``__init__``).

checkov hands each resource's attributes as HCL-style lists (``{"image": ["vllm/...:v0.10.0"]}``),
at every depth; ``_plain`` unwraps them. A value that is a reference (``${var.x}``) is decided at
plan time: a policy that needs a literal to judge treats a reference as given (it must be set to plan).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

__all__ = ["DiskEncrypted", "GpuNodePoolTainted", "ImagePinned", "NoPublicAddress", "SshByKeyOnly"]


def _plain(value: Any) -> Any:
    """checkov's parsed form made plain: every value comes wrapped in a one-element list (at every
    depth) and mappings carry ``__startline__`` markers. A real one-element list becomes its item;
    ``_items`` reads either form as a list."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list):
        return _plain(value[0]) if len(value) == 1 else [_plain(v) for v in value]
    return value


def _get(conf: Any, key: str) -> Any:
    """The plain value of attribute ``key`` of a resource's checkov conf; None when absent."""
    plain = _plain(conf)
    return plain.get(key) if isinstance(plain, dict) else None


def _items(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        flat: list[Any] = []
        for item in value:
            flat.extend(_items(item) if isinstance(item, list) else [item])
        return flat
    return [value]


class _Policy(BaseResourceCheck):  # type: ignore[misc]  # checkov ships no type information
    def __init__(self, *, name: str, id: str, resources: Iterable[str], category: Any) -> None:
        super().__init__(name=name, id=id, categories=[category], supported_resources=list(resources))


class NoPublicAddress(_Policy):
    """CKV_COPS_1: the GPU machine has no public IP address unless one is asked for.

    - nebius_compute_v1_instance: no ``public_ip_address`` on any network interface;
    - crusoe_compute_instance: explicit network interfaces, none with ``public_ipv4`` (without
      them the provider's default networking decides);
    - runpod_pod: no ``ports`` exposed through RunPod's public proxy;
    - vastai_instance: no public Jupyter (``use_jupyter_lab``);
    - lambdalabs_instance: fails: Lambda gives every instance a public IP (no argument avoids it),
      which a stack's ``.checkov.yaml`` skips with that reason.
    """

    def __init__(self) -> None:
        super().__init__(
            name="GPU machine has no public IP address unless one is asked for",
            id="CKV_COPS_1",
            resources=(
                "nebius_compute_v1_instance",
                "crusoe_compute_instance",
                "runpod_pod",
                "vastai_instance",
                "lambdalabs_instance",
            ),
            category=CheckCategories.NETWORKING,
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        kind = self.entity_type
        if kind == "lambdalabs_instance":
            return CheckResult.FAILED
        if kind == "nebius_compute_v1_instance":
            nics = _items(_get(conf, "network_interfaces"))
            public = any(isinstance(n, dict) and n.get("public_ip_address") is not None for n in nics)
            return CheckResult.FAILED if public or not nics else CheckResult.PASSED
        if kind == "crusoe_compute_instance":
            nics = _items(_get(conf, "network_interfaces"))
            public = any(isinstance(n, dict) and n.get("public_ipv4") is not None for n in nics)
            return CheckResult.FAILED if public or not nics else CheckResult.PASSED
        if kind == "runpod_pod":
            return CheckResult.FAILED if _items(_get(conf, "ports")) else CheckResult.PASSED
        return CheckResult.FAILED if _get(conf, "use_jupyter_lab") is True else CheckResult.PASSED


_PASSWORD_KEY = re.compile(r"(?i)password|passwd")


class SshByKeyOnly(_Policy):
    """CKV_COPS_2: SSH by key only, or no SSH.

    - lambdalabs_instance: ``ssh_key_names`` is not empty;
    - crusoe_compute_instance: ``ssh_key`` is set;
    - vastai_instance: ``use_ssh`` only with ``ssh_key_ids``;
    - runpod_pod: no password in ``env`` (RunPod's images read ``PUBLIC_KEY`` for SSH);
    - nebius_compute_v1_instance: cloud-init does not turn on password logins (``ssh_pwauth``).
    """

    def __init__(self) -> None:
        super().__init__(
            name="SSH by key only, or no SSH",
            id="CKV_COPS_2",
            resources=(
                "lambdalabs_instance",
                "crusoe_compute_instance",
                "vastai_instance",
                "runpod_pod",
                "nebius_compute_v1_instance",
            ),
            category=CheckCategories.IAM,
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        kind = self.entity_type
        if kind == "lambdalabs_instance":
            return CheckResult.PASSED if _items(_get(conf, "ssh_key_names")) else CheckResult.FAILED
        if kind == "crusoe_compute_instance":
            return CheckResult.PASSED if _get(conf, "ssh_key") else CheckResult.FAILED
        if kind == "vastai_instance":
            ssh = _get(conf, "use_ssh") is True
            return CheckResult.FAILED if ssh and not _items(_get(conf, "ssh_key_ids")) else CheckResult.PASSED
        if kind == "runpod_pod":
            env = _get(conf, "env")
            keys = env.keys() if isinstance(env, dict) else ()
            return CheckResult.FAILED if any(_PASSWORD_KEY.search(k) for k in keys) else CheckResult.PASSED
        init = _get(conf, "cloud_init_user_data")
        text = init if isinstance(init, str) else ""
        return CheckResult.FAILED if re.search(r"ssh_pwauth:\s*(true|yes|1)", text) else CheckResult.PASSED


_REFERENCE = re.compile(r"^\$\{.*\}$")


def image_is_pinned(image: Any) -> bool:
    """A digest (``@sha256:...``) or a tag other than ``latest``; a Terraform reference counts as set."""
    if not isinstance(image, str) or not image:
        return False
    if _REFERENCE.match(image):
        return True
    if "@sha256:" in image:
        return True
    name, _, tag = image.rpartition(":")
    return bool(name) and "/" not in tag and bool(tag) and tag != "latest"


class ImagePinned(_Policy):
    """CKV_COPS_3: the image is pinned (a tag or digest, not ``latest``): a re-apply runs the same software.

    Container images of runpod_pod and vastai_instance, Crusoe's OS image (``image``).
    """

    def __init__(self) -> None:
        super().__init__(
            name="Image is pinned to a tag or digest (not latest)",
            id="CKV_COPS_3",
            resources=("runpod_pod", "vastai_instance", "crusoe_compute_instance"),
            category=CheckCategories.SUPPLY_CHAIN,
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        return CheckResult.PASSED if image_is_pinned(_get(conf, "image")) else CheckResult.FAILED


class GpuNodePoolTainted(_Policy):
    """CKV_COPS_4: a CoreWeave NodePool (``kubernetes_manifest``) taints its GPU nodes ``NoSchedule``,
    so only pods that tolerate the GPU taint (our workloads) are scheduled on them."""

    def __init__(self) -> None:
        super().__init__(
            name="GPU node pool is tainted NoSchedule",
            id="CKV_COPS_4",
            resources=("kubernetes_manifest",),
            category=CheckCategories.KUBERNETES,
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        manifest = _get(conf, "manifest")
        if not isinstance(manifest, dict) or manifest.get("kind") != "NodePool":
            return CheckResult.UNKNOWN
        spec = manifest.get("spec")
        taints = _items(spec.get("nodeTaints") if isinstance(spec, dict) else None)
        tainted = any(isinstance(t, dict) and t.get("effect") == "NoSchedule" for t in taints)
        return CheckResult.PASSED if tainted else CheckResult.FAILED


def nebius_disk_encrypted(spec: Any) -> bool:
    """A Nebius disk spec asks for managed encryption (``disk_encryption.type``)."""
    if not isinstance(spec, dict):
        return False
    encryption = spec.get("disk_encryption")
    return isinstance(encryption, dict) and encryption.get("type") == "DISK_ENCRYPTION_MANAGED"


class DiskEncrypted(_Policy):
    """CKV_COPS_5: disks are encrypted at rest where the provider's Terraform can ask for it.

    Of the generic providers' resources only Nebius disks have an encryption argument
    (``disk_encryption``); Crusoe's ``crusoe_storage_disk``, ``lambdalabs_instance``, ``runpod_pod``
    and ``vastai_instance`` have none (TARGETS.md). Checked: the managed boot disk and managed
    secondary disks of ``nebius_compute_v1_instance``, and ``nebius_compute_v1_disk``. An attached
    existing disk is checked as its own ``nebius_compute_v1_disk``.
    """

    def __init__(self) -> None:
        super().__init__(
            name="Disk is encrypted at rest (provider-managed key)",
            id="CKV_COPS_5",
            resources=("nebius_compute_v1_instance", "nebius_compute_v1_disk"),
            category=CheckCategories.ENCRYPTION,
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        plain = _plain(conf)
        if self.entity_type == "nebius_compute_v1_disk":
            return CheckResult.PASSED if nebius_disk_encrypted(plain) else CheckResult.FAILED
        disks = [plain.get("boot_disk"), *_items(plain.get("secondary_disks"))]
        specs = [
            d["managed_disk"].get("spec")
            for d in disks
            if isinstance(d, dict) and isinstance(d.get("managed_disk"), dict)
        ]
        return CheckResult.PASSED if all(nebius_disk_encrypted(s) for s in specs) else CheckResult.FAILED


CHECKS = (NoPublicAddress(), SshByKeyOnly(), ImagePinned(), GpuNodePoolTainted(), DiskEncrypted())
