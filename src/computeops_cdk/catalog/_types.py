"""The catalog's value objects: what the market offers, as plain frozen records.

These are the contract between the catalog (which builds and loads them), the engine (which reads
them) and the CLI (which prints them). They hold facts with their provenance; they never compute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ProviderKind = Literal["hyperscaler", "neocloud", "marketplace"]
Evidence = Literal["provider_claimed", "third_party", "keyword_only"]
PriceModel = Literal["on_demand", "spot", "reserved"]

PROVIDER_IDS: tuple[str, ...] = (
    "aws",
    "gcp",
    "azure",
    "oci",
    "coreweave",
    "lambda",
    "nebius",
    "crusoe",
    "runpod",
    "vast",
)
"""Every provider the catalog covers, in a fixed display order."""

COMPLIANCE_SCOPES: tuple[str, ...] = (
    "soc2",
    "iso27001",
    "hipaa",
    "fedramp_moderate",
    "fedramp_high",
    "pci_dss",
    "gdpr",
)
"""The compliance vocabulary shared by intents, attestations and decisions."""

PRICE_MODELS: tuple[PriceModel, ...] = ("on_demand", "spot", "reserved")

HOURS_PER_MONTH = 730
"""Monthly cost = hourly cost x 730 (the 8760 h / 12 convention cloud price pages use)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Attestation:
    """A compliance attestation a provider holds, with how strong the evidence is.

    Only ``evidence == "provider_claimed"`` satisfies a hard compliance constraint.
    ``regions`` is None when the claim covers every region of the provider; otherwise the region
    codes in scope (for example FedRAMP High only in AWS GovCloud).
    """

    scope: str
    evidence: Evidence
    source: str
    regions: tuple[str, ...] | None = None
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Provider:
    """A cloud or marketplace, with its kind, attestations and documented availability SLA."""

    id: str
    display_name: str
    kind: ProviderKind
    attestations: tuple[Attestation, ...] = ()
    sla_percent: float | None = None
    """Published monthly uptime SLA for single GPU instances, None when none is published."""
    sla_source: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """A provider region. ``country`` is ISO 3166-1 alpha-2, None where no source gives it."""

    provider: str
    code: str
    country: str | None
    continent: str
    government: bool = False
    display_name: str = ""
    source: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Accelerator:
    """A GPU/TPU model with its published specs (None where no source states the number)."""

    id: str
    vendor: str
    architecture: str
    memory_gb: float | None
    memory_bw_gbps: float | None
    bf16_tflops: float | None
    """Dense (no sparsity) BF16 tensor TFLOPs, FP16 where the part has no BF16."""
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None
    interconnect: str | None = None
    interconnect_gbps: float | None = None
    aliases: tuple[str, ...] = ()
    source: str = ""
    notes: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceType:
    """A purchasable machine shape of one provider, with its accelerators."""

    provider: str
    name: str
    accelerator: str
    accelerator_count: int
    vcpus: float | None = None
    ram_gb: float | None = None
    multi_node: bool = False
    """True when several instances can be joined by a fast fabric (NVLink domain, InfiniBand, EFA, ICI)."""
    interconnect: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    """One instance type in one region under one price model.

    ``hourly_usd`` is None when no source gives a price: the engine rejects such offers with
    rule ``price.unknown``; a missing price is never treated as zero.
    """

    provider: str
    instance_type: str
    region: str
    pricing: PriceModel
    hourly_usd: float | None
    source: str
    as_of: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Catalog:
    """A versioned, schema-validated market snapshot.

    ``sha256`` is the digest of the catalog's canonical content (everything except the digest).
    """

    version: str
    as_of: str
    sha256: str
    providers: tuple[Provider, ...]
    regions: tuple[Region, ...]
    accelerators: tuple[Accelerator, ...]
    instance_types: tuple[InstanceType, ...]
    offers: tuple[Offer, ...]
    _index: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    def provider(self, provider_id: str) -> Provider:
        """The provider with this id; KeyError when unknown."""
        return self._by("providers", lambda p: p.id)[provider_id]  # type: ignore[no-any-return]

    def region(self, provider_id: str, code: str) -> Region:
        """The region ``code`` of ``provider_id``; KeyError when unknown."""
        return self._by("regions", lambda r: (r.provider, r.code))[(provider_id, code)]  # type: ignore[no-any-return]

    def accelerator(self, accelerator_id: str) -> Accelerator:
        """The accelerator with this catalog id; KeyError when unknown."""
        return self._by("accelerators", lambda a: a.id)[accelerator_id]  # type: ignore[no-any-return]

    def instance_type(self, provider_id: str, name: str) -> InstanceType:
        """The instance type ``name`` of ``provider_id``; KeyError when unknown."""
        return self._by("instance_types", lambda t: (t.provider, t.name))[(provider_id, name)]  # type: ignore[no-any-return]

    def _by(self, attr: str, key: object) -> dict[object, object]:
        # Lookups are built once per catalog on first use: catalogs are immutable.
        cached = self._index.get(attr)
        if cached is None:
            cached = {key(item): item for item in getattr(self, attr)}  # type: ignore[operator]
            self._index[attr] = cached
        return cached  # type: ignore[return-value]
