"""Hard constraints (filters, never weighted) and soft preferences (weights, ranking only).

The two are different types on purpose: a constraint has no weight and rejects a candidate that
breaks it; a preference always has a weight and only moves candidates up or down.
"""

from __future__ import annotations

import re

from .._lazy_typing import literal_aliases
from ..catalog._types import COMPLIANCE_SCOPES, PRICE_MODELS, PROVIDER_IDS
from ..errors import did_you_mean, shown
from ._fields import (
    CONTINENTS,
    REGION_ID,
    IntentModel,
    Refusal,
    check_names,
    choices,
    flag,
    integer,
    nested,
    number,
    texts,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name too)
if TYPE_CHECKING:
    from typing import Literal

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

if TYPE_CHECKING:  # the alias mypy reads; at run time made by __getattr__ from the same values
    PriceModel = Literal["on_demand", "spot", "reserved"]

_PRICE_MODELS = ("on_demand", "spot", "reserved")
__getattr__ = literal_aliases(globals(), {"PriceModel": _PRICE_MODELS})
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
            raise Refusal(
                f"{shown(value)} is not a region id. To fix: write provider:region, e.g. 'aws:us-east-1'",
                field=f"{field}[{index}]",
            )
        provider, code = match["provider"], match["code"]
        if provider not in PROVIDER_IDS:
            raise Refusal(
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

    countries: tuple[str, ...] | None = texts(default=None, min_length=1, max_length=MAX_COUNTRIES)
    continents: tuple[str, ...] | None = texts(default=None, min_length=1, max_length=len(CONTINENTS))
    regions: tuple[str, ...] | None = texts(default=None, min_length=1, max_length=MAX_REGION_IDS)

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

    def _check(self) -> None:
        given = [n for n in ("countries", "continents", "regions") if getattr(self, n) is not None]
        if len(given) != 1:
            raise Refusal(
                f"give exactly one of countries, continents or regions (got {len(given)}: "
                f"{', '.join(given) or 'none'})"
            )
        for index, code in enumerate(self.countries or ()):
            if not _COUNTRY.match(code):
                raise Refusal(
                    f"{shown(code)} is not an ISO 3166-1 alpha-2 code (two upper-case letters, e.g. 'DE')",
                    field=f"countries[{index}]",
                    # 'fr' is almost certainly 'FR': codes are case-sensitive, say which one is meant
                    suggestions=[code.upper()] if _COUNTRY.match(code.upper()) else [],
                )
        check_names(self.continents or (), CONTINENTS, what="continent", field="continents")
        _check_region_ids(self.regions or (), field="regions")


class ProviderFilter(IntentModel):
    """Which providers may be used: ``allow`` (only these) or ``exclude`` (all but these), not both."""

    allow: tuple[str, ...] | None = texts(default=None, min_length=1, max_length=len(PROVIDER_IDS))
    exclude: tuple[str, ...] | None = texts(default=None, min_length=1, max_length=len(PROVIDER_IDS))

    def _check(self) -> None:
        if (self.allow is None) == (self.exclude is None):
            raise Refusal("give exactly one of allow or exclude")
        check_names(self.allow or (), PROVIDER_IDS, what="provider", field="allow")
        check_names(self.exclude or (), PROVIDER_IDS, what="provider", field="exclude")


class AcceleratorFilter(IntentModel):
    """Which accelerators may be used: catalog ids (``H100-SXM``) or plain aliases (``H100``).

    Names are checked against the catalog when deciding (``computeops catalog accelerators``).
    """

    allow: tuple[str, ...] = texts(min_length=1, max_length=MAX_ACCELERATORS)


def _known_scopes(value: tuple[str, ...]) -> None:
    check_names(value, COMPLIANCE_SCOPES, what="compliance scope", field="")


def _known_pricing(value: tuple[str, ...]) -> None:
    check_names(value, PRICE_MODELS, what="price model", field="")


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

    compliance: tuple[str, ...] = texts(default=(), max_length=len(COMPLIANCE_SCOPES), check=_known_scopes)
    residency: Residency | None = nested(Residency, default=None)
    providers: ProviderFilter | None = nested(ProviderFilter, default=None)
    accelerators: AcceleratorFilter | None = nested(AcceleratorFilter, default=None)
    pricing: tuple[PriceModel, ...] = choices(
        _PRICE_MODELS,
        default=DEFAULT_PRICING,
        min_length=1,
        max_length=len(PRICE_MODELS),
        check=_known_pricing,
    )
    max_hourly_usd: float | None = number(default=None, gt=0)
    max_monthly_usd: float | None = number(default=None, gt=0)
    max_total_usd: float | None = number(default=None, gt=0)
    max_price_age_days: int | None = integer(default=None, ge=0, le=3650)
    accept_suspect_prices: bool = flag(default=False)


class Weights(IntentModel):
    """Relative weights of the six score dimensions (each >= 0, at least one > 0).

    Defaults: cost 5, performance 2, availability 1, reliability 1, compliance 1, residency 1.
    """

    cost: float = number(default=DEFAULT_WEIGHTS["cost"], ge=0, le=1000)
    performance: float = number(default=DEFAULT_WEIGHTS["performance"], ge=0, le=1000)
    availability: float = number(default=DEFAULT_WEIGHTS["availability"], ge=0, le=1000)
    reliability: float = number(default=DEFAULT_WEIGHTS["reliability"], ge=0, le=1000)
    compliance: float = number(default=DEFAULT_WEIGHTS["compliance"], ge=0, le=1000)
    residency: float = number(default=DEFAULT_WEIGHTS["residency"], ge=0, le=1000)

    def _check(self) -> None:
        if sum(float(getattr(self, name)) for name in DEFAULT_WEIGHTS) <= 0:
            raise Refusal("at least one weight must be > 0 (got all 0)")

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

    weights: Weights = nested(Weights, default_factory=Weights)
    regions: tuple[str, ...] = texts(default=(), max_length=MAX_REGION_IDS, check=_check_region_ids)
    capacity_headroom: float = number(default=0.1, ge=0, le=4)
