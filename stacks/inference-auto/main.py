"""Inference, provider left to the engine: the support-chat intent, wherever it is cheapest per token.

cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(app, "inference-auto", intent=EXAMPLES / "support-chat.yaml")


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
