"""The Terraform/OpenTofu provider ``computeops``: the decision as a value in Terraform's graph.

- data source ``computeops_placement``: decide at plan time (``decision_json`` is byte-identical to
  ``computeops decide --format json`` with the same pins);
- resource ``computeops_placement_lock``: the decision kept in state, re-examined with the engine's
  drift rules on every refresh, never moved without the user's consent;
- functions ``provider::computeops::usd_per_million_tokens`` and ``usd_per_training_step``.

It runs as the console script ``terraform-provider-computeops`` (plugin protocol 6), installed from
a filesystem mirror (``computeops provider install``). Only ``_framework`` knows the plugin
framework (PyPI ``tf``); it never imports cdktn, and the engine and catalog load on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._address import ADDRESS, HOST, NAMESPACE, TYPE

__all__ = ["ADDRESS", "HOST", "NAMESPACE", "TYPE", "main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the provider (Terraform starts it; run by hand it explains itself)."""
    import os
    import sys

    if os.environ.get("TF_PLUGIN_MAGIC_COOKIE") is None and "--dev" not in (argv or sys.argv):
        sys.stderr.write(
            "terraform-provider-computeops is a Terraform/OpenTofu provider plugin: Terraform starts it.\n"
            "To use it: `computeops provider install` writes a filesystem mirror and prints the CLI\n"
            "configuration and the required_providers block to paste.\n"
        )
        sys.exit(1)
    from ._framework import serve
    from ._provider import provider_spec

    serve(provider_spec(), argv)
