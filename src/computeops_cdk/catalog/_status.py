"""``computeops catalog status``: per provider, where its prices come from and how old they are."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._load import load_catalog
from ._store import Store
from ._types import PROVIDER_IDS, Catalog

__all__ = ["FEED_KEYS", "FEED_KIND", "ProviderStatus", "age_tier", "catalog_status"]

FRESH_HOURS = 24.0
AGING_HOURS = 7 * 24.0

FEED_KIND: dict[str, str] = {
    "aws": "live from two feeds: on-demand + reserved from the AWS Price List bulk offer files "
    "(per-region CSV), spot from gpuhunt's published catalog (the bulk files have no spot); each "
    "refused on its own keeps its last good prices",
    "gcp": "live: Cloud Billing Catalog API (skipped without its key)",
    "azure": "live: Azure Retail Prices API (paged; no key), gpuhunt's published catalog as fallback",
    "oci": "live: OCI public price list (no key; global prices), gpuhunt's published catalog as fallback",
    "lambda": "live: Lambda instance-types API with $LAMBDA_API_KEY, else the SkyPilot catalog feed",
    "nebius": "live via SkyPilot catalog (Nebius itself has only a gRPC SDK with a service account)",
    "runpod": "live: RunPod GraphQL API (no key; secure cloud, stock status as capacity)",
    "vast": "live: Vast.ai offer search (no key; median of reliable rentable listings)",
    "crusoe": "hand-kept: no price feed; Shadeform marketplace listing snapshot",
    "coreweave": "hand-kept: no price feed; public pricing page, dated (data/market/coreweave.csv)",
}
"""How each provider's prices are kept, as `catalog status` says it."""
FEED_KEYS: dict[str, tuple[str, ...]] = {"gcp": ("GOOGLE_BILLING_API_KEY",), "lambda": ("LAMBDA_API_KEY",)}
"""API keys the providers' live feeds read (gcp has no other feed; lambda falls back to SkyPilot's)."""


def age_tier(hours: float) -> str:
    """fresh (<= 24 h), aging (<= 7 days) or stale."""
    if hours <= FRESH_HOURS:
        return "fresh"
    return "aging" if hours <= AGING_HOURS else "stale"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderStatus:
    """One provider's line of `catalog status`."""

    provider: str
    kind: str
    source: str
    as_of: str
    last_refresh: str | None
    age_hours: float
    tier: str
    offers: int
    rows: int | None
    refusals: tuple[dict[str, str], ...]
    last_attempt: str | None
    keys: tuple[tuple[str, bool], ...] = ()
    """(environment variable, set?) for each API key the provider's live feed needs."""
    sources: tuple[tuple[str, str, str, int], ...] = ()
    """(price model, source, as_of, offers) for each price model's prices, when the provider's
    models come from more than one source; () when one source prices them all."""
    parts: tuple[dict[str, Any], ...] = ()
    """A provider priced by several feeds: each part's last refresh (``models``, ``status``,
    ``refreshed_at``, ``source``, ``rows``, ``age_hours``, ``tier``); the provider's age is its
    oldest part's."""

    def source_lines(self) -> list[str]:
        """``on_demand: <source> (as_of 2026-12-01, 120 offers)`` per price model, when they differ."""
        return [f"{m}: {src} (as_of {day}, {n} offers)" for m, src, day, n in self.sources]

    def key_note(self) -> str:
        """``needs $GOOGLE_BILLING_API_KEY (not set)``, or "" when the feed needs no key."""
        return "; ".join(f"needs ${name} ({'set' if ok else 'not set'})" for name, ok in self.keys)

    def as_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "kind": self.kind,
            "source": self.source,
            "as_of": self.as_of,
            "last_refresh": self.last_refresh,
            "age_hours": round(self.age_hours, 1),
            "tier": self.tier,
            "offers": self.offers,
            "rows": self.rows,
            "refusals": list(self.refusals),
            "last_attempt": self.last_attempt,
            "needs_key": [{"variable": name, "set": ok} for name, ok in self.keys],
            "sources": [
                {"pricing": m, "source": src, "as_of": day, "offers": n} for m, src, day, n in self.sources
            ],
            "parts": [dict(p) for p in self.parts],
        }


def catalog_status(
    *, data_dir: str | Path | None = None, now: datetime | None = None, env: Mapping[str, str] | None = None
) -> tuple[Path | None, Catalog, list[ProviderStatus]]:
    """The catalog a refresh produced (or the embedded one) and every provider's status.

    ``env`` is where the API keys are looked for (only whether they are set). Default: os.environ.

    Returns:
        ``(path of the refreshed catalog or None when there is none yet, that catalog, statuses)``.
    """
    store = Store(data_dir)
    moment = now or datetime.now(UTC)
    environ = os.environ if env is None else env
    current = store.current()
    catalog = load_catalog(current / "catalog.json") if current is not None else load_catalog()
    state = store.state().get("providers", {})
    sources: dict[str, Counter[str]] = {p: Counter() for p in PROVIDER_IDS}
    by_model: dict[tuple[str, str], Counter[str]] = {}
    as_of: dict[str, str] = {}
    model_as_of: dict[tuple[str, str], str] = {}
    for offer in catalog.offers:
        source = offer.source.split(" (")[0]
        sources[offer.provider][source] += 1
        by_model.setdefault((offer.provider, offer.pricing), Counter())[source] += 1
        as_of[offer.provider] = max(as_of.get(offer.provider, ""), offer.as_of)
        key = (offer.provider, offer.pricing)
        model_as_of[key] = max(model_as_of.get(key, ""), offer.as_of)
    out = []
    for provider in PROVIDER_IDS:
        entry = state.get(provider) if isinstance(state, dict) else None
        entry = entry if isinstance(entry, dict) else {}
        refreshed = entry.get("refreshed_at")
        dated = as_of.get(provider) or catalog.as_of
        since = _parse(refreshed) if refreshed else datetime.fromisoformat(dated).replace(tzinfo=UTC)
        hours = max(0.0, (moment - since).total_seconds() / 3600)
        days = {m: day for (p, m), day in model_as_of.items() if p == provider}
        parts = _parts(entry.get("parts"), moment, days)
        if parts:  # priced by several feeds: as old as its oldest part
            hours = max(hours, *(p["age_hours"] for p in parts))
        models = sorted(
            (pricing, *counts.most_common(1)[0], model_as_of[(p, pricing)])
            for (p, pricing), counts in by_model.items()
            if p == provider
        )
        split = len({source for _, source, _, _ in models}) > 1
        outcome = entry.get("last_outcome") or {}
        common = sources[provider].most_common(1)
        out.append(
            ProviderStatus(
                provider=provider,
                kind=FEED_KIND.get(provider, ""),
                source=common[0][0] if common else "",
                as_of=dated,
                last_refresh=refreshed,
                age_hours=hours,
                tier=age_tier(hours),
                offers=sum(sources[provider].values()),
                rows=entry.get("rows"),
                refusals=tuple(outcome.get("refusals") or ()),
                last_attempt=entry.get("last_attempt"),
                keys=tuple((name, bool(environ.get(name))) for name in FEED_KEYS.get(provider, ())),
                sources=tuple(
                    (m, src, day, sum(by_model[(provider, m)].values())) for m, src, _n, day in models
                )
                if split
                else (),
                parts=parts,
            )
        )
    return (store.catalog_path if current is not None else None), catalog, out


def _parts(state: Any, moment: datetime, days: Mapping[str, str]) -> tuple[dict[str, Any], ...]:
    """The state's parts of a provider priced by several feeds, each with its age and tier (a part
    never refreshed is as old as its models' prices: the latest as_of of their offers, ``days``)."""
    if not isinstance(state, list):
        return ()
    out = []
    for part in state:
        if not isinstance(part, dict) or not isinstance(part.get("models"), list):
            continue
        refreshed = part.get("refreshed_at")
        day = max((days.get(str(m), "") for m in part["models"]), default="")
        if isinstance(refreshed, str):
            since = _parse(refreshed)
        elif day:
            since = datetime.fromisoformat(day).replace(tzinfo=UTC)
        else:
            continue
        hours = max(0.0, (moment - since).total_seconds() / 3600)
        out.append({**part, "age_hours": round(hours, 1), "tier": age_tier(hours)})
    return tuple(out)


def _parse(text: str) -> datetime:
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
