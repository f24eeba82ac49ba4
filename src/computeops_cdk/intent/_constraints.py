"""Hard constraints (filters, never weighted) and soft preferences (weights, ranking only).

The two are different types on purpose: a constraint has no weight and rejects a candidate that
breaks it; a preference always has a weight and only moves candidates up or down.
"""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from ..catalog._types import COMPLIANCE_SCOPES, PRICE_MODELS, PROVIDER_IDS
from ..errors import did_you_mean, shown
from ._base import CONTINENTS, REGION_ID, IntentModel, check_names, fail

__all__ = [
    "DEFAULT_PRICING",
    "DEFAULT_WEIGHTS",
    "AcceleratorFilter",
    "Constraints",
    "Preferences",
    "ProviderFilter",
    "Residency",
    "Weights",
]

PriceModel = Literal["on_demand", "spot", "reserved"]
DEFAULT_PRICING: tuple[PriceModel, ...] = ("on_demand",)
"""Interruptible (spot) and committed (reserved) capacity must be asked for explicitly."""

DEFAULT_WEIGHTS: dict[str, float] = {
    "cost": 5.0,
    "performance": 2.0,
    "availability": 1.0,
    "reliability": 1.0,
    "compliance": 1.0,
    "residency": 1.0,
}
"""Cost per unit of useful work dominates; the other dimensions break near-ties."""

_COUNTRY = re.compile(r"^[A-Z]{2}$")

# Caps on every list (ISO 3166-1 has 249 countries; the catalog about 160 regions): an intent stays
# small, and no message or rejection ever repeats a list of 100,000 entries.
MAX_COUNTRIES = 250
MAX_REGION_IDS = 500
MAX_ACCELERATORS = 100


def _check_region_ids(values: tuple[str, ...], *, field: str = "") -> None:
    for index, value in enumerate(values):
        match = REGION_ID.match(value)
        if match is None:
            raise fail(
                f"{shown(value)} is not a region id. To fix: write provider:region, e.g. 'aws:us-east-1'",
                field=f"{field}[{index}]",
            )
        provider, code = match["provider"], match["code"]
        if provider not in PROVIDER_IDS:
            raise fail(
                f"unknown provider {shown(provider)} in region id {shown(value)} "
                f"(known: {', '.join(PROVIDER_IDS)})",
                field=f"{field}[{index}]",
                suggestions=[f"{p}:{code}" for p in did_you_mean(provider, PROVIDER_IDS)],
            )


class Residency(IntentModel):
    """Where the workload may run: exactly one of countries, continents or regions.

    Build one with ``Residency.in_countries("DE", "FR")``, ``Residency.in_continents("EU")`` or
    ``Residency.in_regions("aws:eu-central-1")``.

    Attributes:
        countries: ISO 3166-1 alpha-2 codes; a region whose country is unknown never matches.
        continents: continent codes (AF, AN, AS, EU, NA, OC, SA).
        regions: region ids ``provider:code``; checked against the catalog when deciding.
    """

    countries: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=MAX_COUNTRIES)
    continents: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=len(CONTINENTS))
    regions: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=MAX_REGION_IDS)

    @classmethod
    def in_countries(cls, *codes: str) -> Residency:
        """Only regions located in these countries."""
        return cls(countries=codes)

    @classmethod
    def in_continents(cls, *codes: str) -> Residency:
        """Only regions located on these continents."""
        return cls(continents=codes)

    @classmethod
    def in_regions(cls, *region_ids: str) -> Residency:
        """Only these regions (``provider:code``)."""
        return cls(regions=region_ids)

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        given = [n for n in ("countries", "continents", "regions") if getattr(self, n) is not None]
        if len(given) != 1:
            raise fail(
                f"give exactly one of countries, continents or regions (got {len(given)}: "
                f"{', '.join(given) or 'none'})"
            )
        for index, code in enumerate(self.countries or ()):
            if not _COUNTRY.match(code):
                raise fail(
                    f"{shown(code)} is not an ISO 3166-1 alpha-2 code (two upper-case letters, e.g. 'DE')",
                    field=f"countries[{index}]",
                    # 'fr' is almost certainly 'FR': codes are case-sensitive, say which one is meant
                    suggestions=[code.upper()] if _COUNTRY.match(code.upper()) else [],
                )
        check_names(self.continents or (), CONTINENTS, what="continent", field="continents")
        _check_region_ids(self.regions or (), field="regions")
        return self


class ProviderFilter(IntentModel):
    """Which providers may be used: ``allow`` (only these) or ``exclude`` (all but these), not both."""

    allow: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=len(PROVIDER_IDS))
    exclude: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=len(PROVIDER_IDS))

    @model_validator(mode="after")
    def _allow_xor_exclude(self) -> Self:
        if (self.allow is None) == (self.exclude is None):
            raise fail("give exactly one of allow or exclude")
        check_names(self.allow or (), PROVIDER_IDS, what="provider", field="allow")
        check_names(self.exclude or (), PROVIDER_IDS, what="provider", field="exclude")
        return self


class AcceleratorFilter(IntentModel):
    """Which accelerators may be used: catalog ids (``H100-SXM``) or plain aliases (``H100``).

    Names are checked against the catalog when deciding (``computeops catalog accelerators``).
    """

    allow: tuple[str, ...] = Field(min_length=1, max_length=MAX_ACCELERATORS)


class Constraints(IntentModel):
    """Hard constraints: a candidate breaking any of them is rejected, never traded off.

    Attributes:
        compliance: scopes the provider must attest with its own (provider_claimed) evidence in the
            candidate's region. Default: none required.
        residency: where it may run. Default: anywhere.
        providers: allowed or excluded providers. Default: every provider.
        accelerators: allowed accelerators. Default: every accelerator.
        pricing: allowed price models. Default: ``[on_demand]`` (spot and reserved are opt-in).
        max_hourly_usd: cap on the deployment's hourly price (all instances). Default: no cap.
        max_monthly_usd: cap on hourly x 730. Default: no cap.
        max_total_usd: cap on the whole job's cost (training and fine_tuning only). Default: no cap.
        max_price_age_days: reject offers whose price is more than this many days older than the
            catalog's as_of (rule ``price.stale``). Default: no limit (a stale chosen price is warned about).
        accept_suspect_prices: admit offers whose price contradicts the rest of the market data
            (rule ``price.suspect``). Default: false (they are rejected with the numbers).
    """

    compliance: tuple[str, ...] = Field(default=(), max_length=len(COMPLIANCE_SCOPES))
    residency: Residency | None = None
    providers: ProviderFilter | None = None
    accelerators: AcceleratorFilter | None = None
    pricing: tuple[PriceModel, ...] = Field(
        default=DEFAULT_PRICING, min_length=1, max_length=len(PRICE_MODELS)
    )
    max_hourly_usd: float | None = Field(default=None, gt=0)
    max_monthly_usd: float | None = Field(default=None, gt=0)
    max_total_usd: float | None = Field(default=None, gt=0)
    max_price_age_days: int | None = Field(default=None, ge=0, le=3650)
    accept_suspect_prices: bool = Field(default=False, strict=True)

    @field_validator("compliance")
    @classmethod
    def _known_scopes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        check_names(value, COMPLIANCE_SCOPES, what="compliance scope", field="")
        return value

    @field_validator("pricing")
    @classmethod
    def _known_pricing(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        check_names(value, PRICE_MODELS, what="price model", field="")
        return value


class Weights(IntentModel):
    """Relative weights of the six score dimensions (each >= 0, at least one > 0).

    Defaults: cost 5, performance 2, availability 1, reliability 1, compliance 1, residency 1.
    """

    cost: float = Field(default=DEFAULT_WEIGHTS["cost"], ge=0, le=1000)
    performance: float = Field(default=DEFAULT_WEIGHTS["performance"], ge=0, le=1000)
    availability: float = Field(default=DEFAULT_WEIGHTS["availability"], ge=0, le=1000)
    reliability: float = Field(default=DEFAULT_WEIGHTS["reliability"], ge=0, le=1000)
    compliance: float = Field(default=DEFAULT_WEIGHTS["compliance"], ge=0, le=1000)
    residency: float = Field(default=DEFAULT_WEIGHTS["residency"], ge=0, le=1000)

    @model_validator(mode="after")
    def _some_weight(self) -> Self:
        if sum(self.as_dict().values()) <= 0:
            raise fail("at least one weight must be > 0 (got all 0)")
        return self

    def as_dict(self) -> dict[str, float]:
        """The weights by dimension, in SCORE_DIMENSIONS order."""
        return {name: float(getattr(self, name)) for name in DEFAULT_WEIGHTS}


class Preferences(IntentModel):
    """Soft preferences: they only rank feasible candidates.

    Attributes:
        weights: score weights. Default: see Weights.
        regions: preferred region ids (``provider:code``), best first. Default: none; the residency
            score is then neutral (1.0 for every candidate).
        capacity_headroom: spare capacity the sizing adds on top of the estimate's conservative
            (p10) point, as a fraction: inference serves ``output_tokens_per_s x (1 + headroom)``,
            training finishes within ``deadline_hours / (1 + headroom)``. Default: 0.1
            (DEFAULT_CAPACITY_HEADROOM); 0 sizes exactly at the p10 point.
    """

    weights: Weights = Field(default_factory=Weights)
    regions: tuple[str, ...] = Field(default=(), max_length=MAX_REGION_IDS)
    capacity_headroom: float = Field(default=0.1, ge=0, le=4)

    @field_validator("regions")
    @classmethod
    def _region_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        _check_region_ids(value)
        return value
