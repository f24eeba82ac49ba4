"""HIPAA inference pinned to Azure: NC/ND VMs with VNet, NSG and NICs, no public IP, an internal LB.

What the stack creates: a resource group, a VNet and subnet behind an NSG that admits SSH from the VNet,
the serving port from the VNet and the load balancer's probes, and denies every other inbound flow; a
NAT gateway for egress; the decided VMs (no public IP), each booting vLLM; a Standard internal load
balancer health-checked on /health (its address is the ``workload_endpoint`` output). The model is
Qwen3 8B (``Qwen/Qwen3-8B``, Apache-2.0, not gated: see examples/README.md), so the VMs download it
without a token; a gated model (the hipaa-us intent's Llama 3.1 8B)
needs ``hf_token_secret`` (a Key Vault secret id) and ``key_vault_id`` (the vault the VMs may read).

cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(app, "inference-azure", intent=EXAMPLES / "hipaa-us-qwen.yaml", provider="azure")


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
