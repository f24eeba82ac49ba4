"""The catalog's value objects: what the market offers, as plain frozen records.

These are the contract between the catalog (which builds and loads them), the engine (which reads
them) and the CLI (which prints them). They hold facts with their provenance; they never compute.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast

__all__ = [
    "COMPLIANCE_SCOPES",
    "HOURS_PER_MONTH",
    "PRICE_MODELS",
    "PROVIDER_IDS",
    "RESERVED_COLUMNS",
    "RESERVED_TERMS_MONTHS",
    "SERVICE_KINDS",
    "Accelerator",
    "Attestation",
    "Catalog",
    "Evidence",
    "InstanceType",
    "Offer",
    "PriceModel",
    "Provider",
    "ProviderKind",
    "Region",
    "ServiceKind",
    "ServiceScope",
    "ServiceStatus",
    "accelerator_key",
]

ProviderKind = Literal["hyperscaler", "neocloud", "marketplace"]
Evidence = Literal["provider_claimed", "third_party", "keyword_only"]
PriceModel = Literal["on_demand", "spot", "reserved"]
ServiceKind = Literal["vm", "kubernetes", "tpu"]
ServiceStatus = Literal["in_scope", "not_in_scope", "not_found"]


SERVICE_KINDS: tuple[ServiceKind, ...] = ("vm", "kubernetes", "tpu")
"""The provider services a placement runs on, as an attestation's service scope names them: the
compute VM service (EC2, Compute Engine, Azure Virtual Machines, OCI Compute), the managed
Kubernetes service (EKS, GKE, AKS, OKE) and the TPU service (Cloud TPU)."""

REGION_CODE = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
"""The catalog schema's ``region_code`` without its anchors, for documents that name catalog records
(an accounts file, a locked intent) and are checked without loading the schema (a test keeps the
three patterns equal to the schema's)."""
INSTANCE_TYPE_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,78}[A-Za-z0-9])?"
"""The catalog schema's ``instance_type_name``, likewise."""
ACCELERATOR_ALIAS = r"[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,62}[A-Za-z0-9])?"
"""The catalog schema's ``accelerator_alias`` (a superset of ``accelerator_id``), likewise."""

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

RESERVED_TERMS_MONTHS: tuple[int, ...] = (12, 36)
"""Reservation terms the catalog carries: 1 and 3 years (AWS LeaseContractLength 1yr/3yr, Azure
reservationTerm "1 Year"/"3 Years"); a term of N months is N x ``HOURS_PER_MONTH`` hours."""

RESERVED_COLUMNS: dict[int, str] = {12: "ReservedPrice1yr", 36: "ReservedPrice3yr"}
"""Raw-file columns holding a reservation's effective hourly price (USD per instance-hour, no
upfront payment) by term in months; a raw file without them has no reserved offers."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceScope:
    """Whether one provider service is inside an attestation's authorisation, and where that was read.

    ``status`` is ``in_scope`` (the provider's list names it), ``not_in_scope`` (the list leaves it
    out) or ``not_found`` (no list naming it was found in the sources read: unknown, not absent).
    """

    service: ServiceKind
    name: str
    """The provider's own name for the service (``Amazon EKS``, ``Cloud TPU``)."""
    status: ServiceStatus
    source: str
    read: str
    """Date the source was read, ISO 8601 (``2026-12-01``)."""
    note: str = ""
    requires: str = ""
    """What the user must set up for the authorisation to cover a placement on this service, as the
    source says (GCP FedRAMP High: an Assured Workloads folder with the FedRAMP High control
    package); "" when the source names none. The explanation quotes it; the stack does not create it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Attestation:
    """A compliance attestation a provider holds, with how strong the evidence is.

    Only ``evidence == "provider_claimed"`` satisfies a hard compliance constraint. ``regions`` is
    None when the claim covers every region of the provider, else the region codes in scope (FedRAMP
    High only in AWS GovCloud). ``services`` is None when the claim is not authorised service by
    service (SOC 2, ISO 27001, ...), else one entry per service kind (FedRAMP), and a placement
    satisfies the attestation only if every service it runs on is ``in_scope``.
    """

    scope: str
    evidence: Evidence
    source: str
    regions: tuple[str, ...] | None = None
    note: str = ""
    services: tuple[ServiceScope, ...] | None = None

    def service(self, kind: str) -> ServiceScope | None:
        """The entry for service ``kind``, None when the attestation has none for it."""
        return next((s for s in self.services or () if s.service == kind), None)


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
    fp32_tflops: float | None = None
    """Non-tensor FP32 TFLOPs; None when not sourced."""
    int8_tops: float | None = None
    """Dense INT8 tensor TOPs; None when not sourced."""
    tdp_w: float | None = None
    """Board/module power in watts (TPUs: documented max power); None when not sourced."""
    form_factor: str = ""
    """The variant the numbers describe (e.g. "SXM5 80GB", "PCIe"), "" when unknown."""

    @property
    def is_tpu(self) -> bool:
        """True for Google TPUs: counted in chips, scaled by slice size, placed by TPU resources (the
        one definition the engine and the performance model share)."""
        return self.vendor.lower() == "google" or self.id.upper().startswith("TPU")


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
    source: str = ""
    """Where the shape (and its interconnect claim) comes from."""
    notes: str = ""
    """Corrections applied to the source and caveats, "" when none."""


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
    """USD per instance-hour; for a reserved offer the effective hourly price of the commitment
    (what the term costs, spread over its hours)."""
    source: str
    as_of: str
    capacity: str | None = None
    """A live feed's capacity signal when the catalog was refreshed (``CAPACITY_LEVELS``); None: the
    source gives none (every snapshot offer). Default: None."""
    term_months: int | None = None
    """Reserved offers only: the commitment's length in months (12 or 36); None otherwise."""
    upfront: str | None = None
    """Reserved offers only: the upfront payment option ("none": paid monthly, nothing upfront)."""

    @property
    def term_hours(self) -> int | None:
        """Hours a reserved offer commits to (term_months x 730); None for other offers."""
        return None if self.term_months is None else self.term_months * HOURS_PER_MONTH


CAPACITY_LEVELS = ("high", "medium", "low", "available", "none")
"""Offer capacity signals: RunPod's stock status (high/medium/low, none when out of stock) and
Lambda's regions with capacity (available/none)."""


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
    # Not an init field: ``dataclasses.replace`` gives a copy its own empty cache. As an init field the
    # copy shared it, so a copy with other providers or accelerators was decided on the old records.
    _index: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getstate__(self) -> list[object]:
        # Pickled and copied without the caches: the engine's (bit columns, sizings kept per sizer in
        # a weak mapping) cannot be pickled, and a copy rebuilds what it needs.
        return [{} if f.name == "_index" else getattr(self, f.name) for f in fields(self)]

    def __setstate__(self, state: list[object]) -> None:
        for f, value in zip(fields(self), state, strict=True):
            object.__setattr__(self, f.name, value)

    def provider(self, provider_id: str) -> Provider:
        """The provider with this id; KeyError when unknown."""
        return cast(Provider, self._by("providers", lambda p: p.id)[provider_id])

    def region(self, provider_id: str, code: str) -> Region:
        """The region ``code`` of ``provider_id``; KeyError when unknown."""
        return cast(Region, self._by("regions", lambda r: (r.provider, r.code))[(provider_id, code)])

    def accelerator(self, accelerator_id: str) -> Accelerator:
        """The accelerator with this catalog id; KeyError when unknown."""
        return cast(Accelerator, self._by("accelerators", lambda a: a.id)[accelerator_id])

    def instance_type(self, provider_id: str, name: str) -> InstanceType:
        """The instance type ``name`` of ``provider_id``; KeyError when unknown."""
        key = (provider_id, name)
        return cast(InstanceType, self._by("instance_types", lambda t: (t.provider, t.name))[key])

    def find_accelerator(self, name: str) -> Accelerator | None:
        """The accelerator whose id or alias matches ``name``, None when none does.

        Matching ignores case, spaces, ``-`` and ``_``: "h100", "H100 SXM" and "H100-SXM" all
        return the ``H100-SXM`` record; "A100" returns ``A100-40GB``; "v5litepod" returns ``TPU-v5e``.
        """
        table = cast("dict[str, Accelerator] | None", self._index.get("accelerator_keys"))
        if table is None:
            table = {}
            for acc in self.accelerators:
                for alias in (acc.id, *acc.aliases):
                    table.setdefault(accelerator_key(alias), acc)
            self._index["accelerator_keys"] = table
        return table.get(accelerator_key(name))

    def accelerator_names(self) -> list[str]:
        """Every accelerator id and alias, sorted (the choices for "did you mean")."""
        return sorted({n for a in self.accelerators for n in (a.id, *a.aliases)})

    def find_provider(self, provider_id: str) -> Provider | None:
        """The provider with this id (case-insensitive), None when unknown."""
        found = self._by("providers", lambda p: p.id).get(provider_id.lower())
        return found if isinstance(found, Provider) else None

    def find_region(self, provider_id: str, code: str) -> Region | None:
        """The region ``code`` of ``provider_id``, None when unknown. Codes match case-insensitively."""
        table = cast("dict[tuple[str, str], Region] | None", self._index.get("regions_ci"))
        if table is None:
            table = {(r.provider, r.code.lower()): r for r in self.regions}
            self._index["regions_ci"] = table
        return table.get((provider_id.lower(), code.lower()))

    def find_instance_type(self, name: str, provider_id: str | None = None) -> list[InstanceType]:
        """Instance types named ``name`` (case-insensitive), optionally of one provider only."""
        wanted = name.lower()
        return [
            t
            for t in self.instance_types
            if t.name.lower() == wanted and (provider_id is None or t.provider == provider_id)
        ]

    def offers_of(self, provider_id: str, instance_type: str) -> list[Offer]:
        """Every offer of one instance type, in catalog order."""
        key = (provider_id, instance_type)
        return [o for o in self.offers if (o.provider, o.instance_type) == key]

    def _by(self, attr: str, key: Callable[[Any], object]) -> dict[object, object]:
        # Lookups are built once per catalog on first use: catalogs are immutable.
        cached = cast("dict[object, object] | None", self._index.get(attr))
        if cached is None:
            cached = {key(item): item for item in getattr(self, attr)}
            self._index[attr] = cached
        return cached


def accelerator_key(name: str) -> str:
    """The lookup key of an accelerator name: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", name.lower())
