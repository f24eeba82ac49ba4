"""``python -m computeops_cdk.terraform``: the provider plugin (what the mirror's wrapper runs)."""

from . import main

main()
