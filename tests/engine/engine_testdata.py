"""Small hand-built catalogs and intents for the engine tests.

Accelerator specs are the vendors' datasheet figures (dense BF16/FP8 TFLOPs, HBM size and
bandwidth) for H100 SXM, A100 80GB and L4; prices are round test numbers, not market data.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from computeops_cdk.catalog import Accelerator, Attestation, Catalog, InstanceType, Offer, Provider, Region
from computeops_cdk.intent import WorkloadIntent

H100 = Accelerator(
    id="H100-SXM",
    vendor="NVIDIA",
    architecture="Hopper",
    memory_gb=80,
    memory_bw_gbps=3350,
    bf16_tflops=989,
    fp8_tflops=1979,
    interconnect="NVLink 4",
    interconnect_gbps=900,
    aliases=("H100",),
)
A100 = Accelerator(
    id="A100-80GB",
    vendor="NVIDIA",
    architecture="Ampere",
    memory_gb=80,
    memory_bw_gbps=2039,
    bf16_tflops=312,
    interconnect="NVLink 3",
    interconnect_gbps=600,
    aliases=("A100",),
)
L4 = Accelerator(
    id="L4",
    vendor="NVIDIA",
    architecture="Ada",
    memory_gb=24,
    memory_bw_gbps=300,
    bf16_tflops=121,
    fp8_tflops=242,
)
MYSTERY = Accelerator(
    id="X9", vendor="Acme", architecture="?", memory_gb=None, memory_bw_gbps=None, bf16_tflops=None
)

PROVIDERS = (
    Provider(
        id="aws",
        display_name="AWS",
        kind="hyperscaler",
        sla_percent=99.5,
        attestations=(
            Attestation(scope="hipaa", evidence="provider_claimed", source="test"),
            Attestation(scope="soc2", evidence="provider_claimed", source="test"),
            Attestation(
                scope="fedramp_high", evidence="provider_claimed", source="test", regions=("us-gov-west-1",)
            ),
        ),
    ),
    Provider(
        id="lambda",
        display_name="Lambda",
        kind="neocloud",
        attestations=(Attestation(scope="soc2", evidence="keyword_only", source="test"),),
    ),
    Provider(
        id="vast",
        display_name="Vast.ai",
        kind="marketplace",
        attestations=(Attestation(scope="gdpr", evidence="provider_claimed", source="test"),),
    ),
)
REGIONS = (
    Region(provider="aws", code="us-east-1", country="US", continent="NA"),
    Region(provider="aws", code="eu-central-1", country="DE", continent="EU"),
    Region(provider="aws", code="us-gov-west-1", country="US", continent="NA", government=True),
    Region(provider="lambda", code="us-east-1", country="US", continent="NA"),
    Region(provider="lambda", code="europe-central-1", country="DE", continent="EU"),
    Region(provider="vast", code="us", country="US", continent="NA"),
    Region(provider="vast", code="nowhere", country=None, continent="EU"),
)
ITYPES = (
    InstanceType(
        provider="aws", name="p5.48xlarge", accelerator="H100-SXM", accelerator_count=8, multi_node=True
    ),
    InstanceType(provider="aws", name="g6.xlarge", accelerator="L4", accelerator_count=1),
    InstanceType(provider="lambda", name="gpu_8x_h100", accelerator="H100-SXM", accelerator_count=8),
    InstanceType(provider="lambda", name="gpu_1x_a100", accelerator="A100-80GB", accelerator_count=1),
    InstanceType(provider="vast", name="1x-h100", accelerator="H100-SXM", accelerator_count=1),
    InstanceType(provider="vast", name="1x-x9", accelerator="X9", accelerator_count=1),
)


def offer(provider: str, itype: str, region: str, price: float | None, pricing: str = "on_demand") -> Offer:
    return Offer(
        provider=provider,
        instance_type=itype,
        region=region,
        pricing=pricing,  # type: ignore[arg-type]
        hourly_usd=price,
        source="test",
        as_of="2026-11-01",
    )


OFFERS = (
    offer("aws", "p5.48xlarge", "us-east-1", 55.04),
    offer("aws", "p5.48xlarge", "us-east-1", 20.0, "spot"),
    offer("aws", "p5.48xlarge", "eu-central-1", 60.0),
    offer("aws", "p5.48xlarge", "us-gov-west-1", 70.0),
    offer("aws", "g6.xlarge", "us-east-1", 0.80),
    offer("aws", "g6.xlarge", "eu-central-1", 0.95),
    offer("lambda", "gpu_8x_h100", "us-east-1", 23.92),
    offer("lambda", "gpu_8x_h100", "europe-central-1", 25.0),
    offer("lambda", "gpu_1x_a100", "us-east-1", 1.79),
    offer("lambda", "gpu_1x_a100", "europe-central-1", None),
    offer("vast", "1x-h100", "us", 1.90),
    offer("vast", "1x-h100", "nowhere", 1.50),
    offer("vast", "1x-x9", "us", 0.10),
)


def make_catalog(*, offers: tuple[Offer, ...] = OFFERS, **changes: Any) -> Catalog:
    """The test catalog; pass ``offers=`` or any Catalog field to change it."""
    base = Catalog(
        version="test.1",
        as_of="2026-11-29",
        sha256="0" * 64,
        providers=PROVIDERS,
        regions=REGIONS,
        accelerators=(H100, A100, L4, MYSTERY),
        instance_types=ITYPES,
        offers=offers,
    )
    return replace(base, **changes)


def inference(**constraints: Any) -> WorkloadIntent:
    """Llama 3.1 8B at bf16, 2,000 output tok/s, with the given constraints."""
    return intent_of(
        {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "serving": {"output_tokens_per_s": 2000},
        },
        constraints,
    )


def training(**training_fields: Any) -> WorkloadIntent:
    """Llama 3.1 8B full training on 1e10 tokens; override any training field."""
    block = {"tokens": 1e10, "seq_len": 4096, **training_fields}
    constraints = block.pop("constraints", {})
    return intent_of(
        {"type": "training", "model": {"name": "llama-3.1-8b", "precision": "bf16"}, "training": block},
        constraints,
    )


def intent_of(workload: dict[str, Any], constraints: dict[str, Any], **rest: Any) -> WorkloadIntent:
    return WorkloadIntent.from_dict({"name": "t", "workload": workload, "constraints": constraints, **rest})


def reasons_of(
    decision_or_error: Any, provider: str, itype: str, region: str, pricing: str = "on_demand"
) -> list[str]:
    """Rule ids of one rejected candidate (empty when it was not rejected)."""
    for rejection in (
        decision_or_error.rejected if hasattr(decision_or_error, "rejected") else decision_or_error.rejections
    ):
        if (rejection.provider, rejection.instance_type, rejection.region, rejection.pricing) == (
            provider,
            itype,
            region,
            pricing,
        ):
            return [r.rule for r in rejection.reasons]
    return []
