"""Public inference pinned to GCP: HTTPS for a domain, weights from the team's own bucket.

What the stack creates: a new VPC network with Cloud NAT and IAP-only SSH, the decided GPU VMs without
external IPs, each booting vLLM with the decided model, tensor-parallel degree and batch limit, and
copying the weights from ``gs://`` at boot with the VMs' service account (granted
``roles/storage.objectViewer`` on that bucket; no key anywhere). In front of them, because this example
opts in with ``expose='public'`` and a ``domain``: a global external Application Load Balancer with a
Google-managed certificate for the domain (TLS 1.2+), health-checked on ``/health``; the firewall admits
the serving port from Google's front ends only. Point the domain's DNS A record at the
``workload_address`` output; the service answers at ``workload_endpoint``. vLLM requires an API key on
every ``/v1`` request (``Authorization: Bearer <key>``): the VMs read it at boot from Secret Manager
(``API_KEY_SECRET``, their service account may access that one secret) and pass it as ``VLLM_API_KEY``;
the key is never in Terraform. Synth warns that the service is public.

    cdktn synth        # from this directory, with the repository's .venv and node_modules/.bin on PATH
"""

from __future__ import annotations

from pathlib import Path

from cdktn import App

from computeops_cdk import WorkloadStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DOMAIN = "llm.example.com"
"""An example name: use a domain you control (the certificate is issued once its A record resolves)."""
WEIGHTS_URI = "gs://example-models/llama-3.1-8b-instruct"
"""An example bucket prefix: copy the model's files there (config, tokenizer, safetensors)."""
API_KEY_SECRET = "projects/my-project/secrets/vllm-api-key"
"""An example Secret Manager id: create the secret in your project with the key your clients send."""


def build(app: App) -> WorkloadStack:
    """The stack this example synthesizes (tests call it with their own app)."""
    return WorkloadStack(
        app,
        "inference-gcp-public",
        intent=EXAMPLES / "hipaa-us.yaml",
        provider="gcp",
        options={
            "expose": "public",
            "domain": DOMAIN,
            "weights_uri": WEIGHTS_URI,
            "api_key_secret": API_KEY_SECRET,
        },
    )


if __name__ == "__main__":
    app = App()
    build(app)
    app.synth()
