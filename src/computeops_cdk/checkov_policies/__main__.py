"""``python -m computeops_cdk.checkov_policies``: print the directory for ``--external-checks-dir``."""

from __future__ import annotations

from computeops_cdk.checkov_policies import POLICIES_DIR

if __name__ == "__main__":  # checkov imports every file of the directory: print only when run
    print(POLICIES_DIR)
