"""Inference pinned to AWS, standalone: the support-chat intent on EC2 GPU instances in a new VPC.

What the stack creates: a VPC with private subnets in two zones and a NAT gateway, the instances spread
over those subnets (no public IP), each booting vLLM with the decided model, tensor-parallel degree and
batch limit, and an internal network load balancer health-checked on /health (its address is the
``workload_endpoint`` output). The Hugging Face token is read at boot from Secrets Manager: replace the
example ARN with your secret's (the instance role may read that one secret only).

    cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HF_TOKEN_SECRET = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf"
"""An example ARN: put your Hugging Face token in Secrets Manager and use its ARN."""


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(
        app,
        "inference-aws",
        intent=EXAMPLES / "support-chat.yaml",
        provider="aws",
        options={"hf_token_secret": HF_TOKEN_SECRET, "expose": "internal"},
    )


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
