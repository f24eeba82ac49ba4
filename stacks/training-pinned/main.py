"""Training pinned to AWS: continued pre-training of Llama 3.1 8B; the engine sizes the job on AWS.

The pin is still checked against the intent's hard constraints (deadline, total budget): a pinned
provider that cannot meet them is a synth error naming the rule and the numbers.

    cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(app, "training-pinned", intent=EXAMPLES / "llama-8b-pretrain.yaml", provider="aws")


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
