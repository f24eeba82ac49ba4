"""Inference on an existing EKS cluster: a GPU managed node group plus the vLLM production-stack release.

The node group is labelled computeops.io/gpu and tainted nvidia.com/gpu; the Helm release selects
that label, tolerates the taint and takes replicas and GPUs per replica from the decision. The model
is Qwen3 32B (``Qwen/Qwen3-32B``, Apache-2.0, not gated: see examples/README.md): the release passes no
Hugging Face token (the Kubernetes layer has no token option), so a gated model would fail its download
with 401.

    cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(
        app, "inference-eks", intent=EXAMPLES / "support-chat-qwen.yaml", provider="aws", cluster="gpu-prod"
    )


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
