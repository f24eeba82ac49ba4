"""``computeops provider install``: the Terraform/OpenTofu provider as a filesystem mirror.

Writes the packed mirror (``terraform-provider-computeops_VERSION_OS_ARCH.zip``) and prints the CLI
configuration block and the ``required_providers`` block to paste; ``--cli-config FILE`` also writes
the CLI configuration to FILE (``export TF_CLI_CONFIG_FILE=FILE``, or ``TOFU_CLI_CONFIG_FILE``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._parser import HelpFormatter

__all__ = ["register"]

_EPILOG = """\
examples:
  computeops provider install --dir ~/.terraform-mirror
  computeops provider install --dir "$RUNNER_TEMP/tf-mirror" --cli-config "$RUNNER_TEMP/tf-mirror/terraformrc"
  export TF_CLI_CONFIG_FILE="$RUNNER_TEMP/tf-mirror/terraformrc"   # OpenTofu: TOFU_CLI_CONFIG_FILE

The plugin runs this Python interpreter (%s): the mirror works as long as this
environment keeps computeops-cdk[terraform] installed; another environment needs its own mirror.
"""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "provider",
        help="install the Terraform/OpenTofu provider 'computeops' as a local filesystem mirror",
        description="The Terraform/OpenTofu provider 'computeops' (data source computeops_placement, "
        "resource computeops_placement_lock, provider functions), installed without a registry.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    install = actions.add_parser(
        "install",
        help="write the provider's filesystem mirror and print the configuration to paste",
        description="Write a filesystem mirror holding the provider for this machine's platform, then print "
        "the CLI configuration (provider_installation) and the required_providers block, so "
        "`terraform init` installs it and writes .terraform.lock.hcl.",
        epilog=_EPILOG % sys.executable,
        formatter_class=HelpFormatter,
    )
    install.add_argument(
        "--dir",
        metavar="DIR",
        default="terraform-mirror",
        help="the mirror's root directory, created when missing (default: ./terraform-mirror)",
    )
    install.add_argument(
        "--cli-config",
        metavar="FILE",
        default=None,
        help="also write the CLI configuration to FILE (default: only print it)",
    )
    install.set_defaults(handler=run_install)


def run_install(args: argparse.Namespace) -> int:
    from ..catalog._build import write_text_atomic
    from ..errors import ComputeOpsError
    from ..terraform._install import install_mirror

    try:
        mirror = install_mirror(args.dir)
    except OSError as err:
        raise ComputeOpsError(
            f"cannot write the mirror in {args.dir!r} ({err.strerror or err}). "
            "To fix: pass --dir a directory you can write"
        ) from None
    if args.cli_config:
        try:
            target = Path(args.cli_config).expanduser()
            target.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(target, mirror.cli_config)
        except OSError as err:
            raise ComputeOpsError(
                f"cannot write the CLI configuration {args.cli_config!r} ({err.strerror or err}). "
                "To fix: pass --cli-config a file you can write"
            ) from None
    out = sys.stdout
    out.write(f"Installed terraform-provider-computeops {mirror.version} at {mirror.archive}\n")
    out.write(f"It runs {sys.executable}: keep computeops-cdk[terraform] installed there.\n\n")
    where = f"(written to {args.cli_config}) " if args.cli_config else ""
    out.write(
        f"# 1. Terraform CLI configuration {where}(TF_CLI_CONFIG_FILE; OpenTofu: TOFU_CLI_CONFIG_FILE):\n"
    )
    out.write(mirror.cli_config)
    out.write("\n# 2. In your configuration (or in a child module that declares only computeops):\n")
    out.write(mirror.required_providers)
    out.write("\n# Then: terraform init (writes .terraform.lock.hcl), terraform plan.\n")
    return 0
