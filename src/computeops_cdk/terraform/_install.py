"""A filesystem mirror of the provider, so ``terraform init`` installs it without a registry.

Packed layout: ``DIR/HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`` holding one
``/bin/sh`` wrapper that runs this interpreter's ``-m computeops_cdk.terraform``, so the mirror serves
that Python environment only. The zip's bytes depend only on the interpreter path and the version, so
installing again keeps ``.terraform.lock.hcl`` valid.
"""

from __future__ import annotations

import os
import platform
import shlex
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ._address import ADDRESS, HOST, NAMESPACE, TYPE

__all__ = ["Mirror", "install_mirror", "package_version", "terraform_platform"]

_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386"}


def package_version() -> str:
    """The installed computeops-cdk version (the provider's version)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("computeops-cdk")
    except PackageNotFoundError:  # a source tree that was never installed
        from .._version import __version__

        return __version__


def terraform_platform() -> str:
    """This machine as Terraform names platforms (``linux_amd64``)."""
    machine = platform.machine().lower()
    return f"{platform.system().lower()}_{_ARCH.get(machine, machine)}"


@dataclass(frozen=True, slots=True)
class Mirror:
    """An installed mirror and the snippets that use it."""

    directory: Path
    archive: Path
    version: str

    @property
    def cli_config(self) -> str:
        """The ``provider_installation`` block of a Terraform (or OpenTofu) CLI configuration."""
        pattern = f"{HOST}/{NAMESPACE}/*"
        return (
            "provider_installation {\n"
            "  filesystem_mirror {\n"
            f"    path    = {_hcl(str(self.directory))}\n"
            f'    include = ["{pattern}"]\n'
            "  }\n"
            "  direct {\n"
            f'    exclude = ["{pattern}"]\n'
            "  }\n"
            "}\n"
        )

    @property
    def required_providers(self) -> str:
        """The block a configuration (or a child module) declares."""
        return (
            "terraform {\n"
            '  required_version = ">= 1.8"  # provider functions; OpenTofu >= 1.7\n'
            "  required_providers {\n"
            "    computeops = {\n"
            f'      source  = "{ADDRESS}"\n'
            f'      version = "{self.version}"\n'
            "    }\n"
            "  }\n"
            "}\n"
        )


def _hcl(text: str) -> str:
    return (
        '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("${", "$${").replace("%{", "%%{") + '"'
    )


def _wrapper(python: str) -> bytes:
    # -P: never put the working directory (Terraform's) on sys.path ahead of the installed package.
    return f'#!/bin/sh\nexec {shlex.quote(python)} -P -m computeops_cdk.terraform "$@"\n'.encode()


def install_mirror(directory: str | os.PathLike[str], *, python: str | None = None) -> Mirror:
    """Write (atomically) the provider's packed mirror into ``directory``; returns what was written.

    Args:
        directory: the mirror's root (``filesystem_mirror { path = ... }``); created when missing.
        python: the interpreter the plugin runs with. Default: this one (``sys.executable``).
    """
    version = package_version()
    root = Path(directory).expanduser().resolve()
    folder = root / HOST / NAMESPACE / TYPE
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"terraform-provider-{TYPE}_{version}_{terraform_platform()}.zip"
    entry = zipfile.ZipInfo(f"terraform-provider-{TYPE}_v{version}", date_time=(2020, 1, 1, 0, 0, 0))
    entry.external_attr = (0o100755 & 0xFFFF) << 16  # a regular, executable file
    entry.create_system = 3  # unix, so the mode bits are read
    fd, staged = tempfile.mkstemp(dir=folder, prefix=".staged-", suffix=".zip")
    try:
        with os.fdopen(fd, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(entry, _wrapper(python or sys.executable))
        os.replace(staged, archive)
    except BaseException:
        Path(staged).unlink(missing_ok=True)
        raise
    return Mirror(directory=root, archive=archive, version=version)
