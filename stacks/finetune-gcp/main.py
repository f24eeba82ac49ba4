"""LoRA fine-tuning pinned to GCP (spot allowed by the intent): a GPU VM without external IP.

cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    # The project is the generated Terraform variable gcp_project (set it with -var or TF_VAR_gcp_project),
    # or options={"project": ...}.
    return WorkloadStack(app, "finetune-gcp", intent=EXAMPLES / "lora-finetune.yaml", provider="gcp")


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
