"""The real tools over generated boot scripts: ``shellcheck`` (bash) and ``cloud-init schema``.

Both come from Debian packages the Makefile installs (``shellcheck``, ``cloud-init``). A script is checked
as the machine receives it: Terraform's own references (``${count.index}``, the first node's address) are
replaced by a value, and Terraform's escapes (``$${`` -> ``${``, ``%%{`` -> ``%{``) are undone.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

_REFERENCE = re.compile(r"(?<!\$)\$\{[^}]*\}")


def as_booted(text: str, *, terraform: bool = True) -> str:
    """``text`` as Terraform hands it to the machine (references replaced by ``10.0.0.2``).

    ``terraform=False``: ``text`` is what the machine gets already (a script from ``boot_script``, or
    Azure's base64 ``custom_data`` decoded): nothing to undo."""
    if not terraform:
        return text
    return _REFERENCE.sub("10.0.0.2", text).replace("$${", "${").replace("%%{", "%{")


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is not installed: `make test` installs it (apt-get install {name})"
    return path


def shellcheck(script: str) -> None:
    """Fail with shellcheck's findings (every severity) unless the bash script is clean."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "boot.sh"
        path.write_text(script)
        result = subprocess.run(
            [_tool("shellcheck"), "--shell=bash", str(path)], capture_output=True, text=True, check=False
        )
    assert result.returncode == 0, result.stdout + result.stderr


def cloud_init_schema(config: str) -> None:
    """Fail unless ``cloud-init schema`` accepts the cloud-config."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "user-data"
        path.write_text(config)
        result = subprocess.run(
            [_tool("cloud-init"), "schema", "--config-file", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
    assert result.returncode == 0 and "Valid" in result.stdout, result.stdout + result.stderr


def check_boot(text: str, *, terraform: bool = True) -> str:
    """Run the tools over one generated boot text (a cloud-config or a bash script); return the script.
    ``terraform``: ``text`` is a Terraform string (see ``as_booted``)."""
    booted = as_booted(text, terraform=terraform)
    if booted.startswith("#cloud-config"):
        cloud_init_schema(booted)
        (entry,) = [
            f for f in yaml.safe_load(booted)["write_files"] if f["path"] == "/opt/computeops/boot.sh"
        ]
        script: str = entry["content"]
    else:
        script = booted
    shellcheck(script)
    return script


def boot_texts(doc: dict[str, Any]) -> list[str]:
    """Every boot script / cloud-config in a synthesized stack, decoded where base64."""
    resources = doc.get("resource", {})
    found: list[str] = []
    for kind, attribute, encoded in (
        ("aws_instance", "user_data", False),
        ("azurerm_linux_virtual_machine", "custom_data", True),
        ("nebius_compute_v1_instance", "cloud_init_user_data", False),
        ("crusoe_compute_instance", "startup_script", False),
    ):
        for resource in resources.get(kind, {}).values():
            if resource.get(attribute):
                value = resource[attribute]
                found.append(base64.b64decode(value).decode() if encoded else value)
    for kind in ("google_compute_instance", "google_tpu_v2_vm"):
        for resource in resources.get(kind, {}).values():
            if "startup-script" in (resource.get("metadata") or {}):
                found.append(resource["metadata"]["startup-script"])
    for resource in resources.get("oci_core_instance", {}).values():
        if "user_data" in resource.get("metadata", {}):
            found.append(base64.b64decode(resource["metadata"]["user_data"]).decode())
    return found
