"""Inference, provider left to the engine: support chat, wherever it is cheapest per token.

The model is Qwen3 32B (``Qwen/Qwen3-32B``, Apache-2.0, not gated: see examples/README.md), not the
support-chat intent's gated Llama 3.1 70B: the provider is the engine's choice, and not every provider
has a secret store the machines can read a token from (Nebius, today's choice, has none the target can
use), so an example that must boot anywhere serves an ungated model. With a gated model, pin a provider
with a secret store and pass ``options={"hf_token_secret": ...}`` (see stacks/inference-aws).

cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(app, "inference-auto", intent=EXAMPLES / "support-chat-qwen.yaml")


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
