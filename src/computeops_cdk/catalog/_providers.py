"""Providers (kind, SLA, attestations) and regions (country, continent, government flag)."""

from __future__ import annotations

from typing import Any

from ..errors import CatalogError
from ._offers import vast_region_code
from ._sources import MarketData, Row, number
from ._types import COMPLIANCE_SCOPES, PROVIDER_IDS, SERVICE_KINDS

__all__ = ["build_providers", "build_regions"]

_GOVERNMENT = {("oci", "us-langley-1"), ("oci", "us-luke-1")}
"""Government-only regions besides AWS ``us-gov-*`` (OCI US Government Cloud realm, compliance.csv)."""


def build_regions(data: MarketData) -> list[dict[str, Any]]:
    """Every region of regions.csv and regions-extra.csv, one record per (provider, code)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for row in data.rows("regions.csv"):
        record = _region(row)
        key = (record["provider"], record["code"])
        if key in merged and merged[key]["country"] != record["country"]:
            # RunPod EU-SE-1 is listed under both NO and SE upstream: keep the continent, drop the country.
            merged[key]["country"] = None
            merged[key]["source"] += f"; conflicting countries in the source ({row['notes']})"
            continue
        merged.setdefault(key, record)
    for row in data.rows("regions-extra.csv"):
        record = _region(row)
        record["government"] = row["government"] == "true"
        merged[(record["provider"], record["code"])] = record
    return [merged[key] for key in sorted(merged)]


def _region(row: Row) -> dict[str, Any]:
    provider, code = row["provider"], row["region_code"]
    if provider == "vast":
        code = vast_region_code(code)
    return {
        "provider": provider,
        "code": code,
        "country": row["country_iso2"] or None,
        "continent": row["continent"],
        "government": code.startswith("us-gov-") or (provider, code) in _GOVERNMENT,
        "display_name": row["display_name"],
        "source": row["source"],
    }


def build_providers(data: MarketData, regions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ten providers in display order, with their attestations."""
    rows = {row["id"]: row for row in data.rows("providers.csv")}
    missing = [p for p in PROVIDER_IDS if p not in rows]
    if missing:
        raise CatalogError(f"providers.csv lacks {', '.join(missing)}. To fix: add a row per provider.")
    attestations: dict[str, list[dict[str, Any]]] = {p: [] for p in PROVIDER_IDS}
    services = _services(data)
    for row in data.rows("attestations.csv"):
        record = _attestation(row, regions)
        scoped = services.pop((row["provider"], row["scope"]), None)
        if scoped is not None:
            record["services"] = scoped
        elif record["scope"].startswith("fedramp") and record["evidence"] == "provider_claimed":
            raise CatalogError(
                f"attestations.csv: {row['provider']} {row['scope']} has no service scope. To fix: add "
                f"one attestation-services.csv row per service ({', '.join(SERVICE_KINDS)}) the "
                "provider offers, with status not_found where no source names it."
            )
        attestations[row["provider"]].append(record)
    if services:
        orphans = ", ".join(f"{p} {s}" for p, s in sorted(services))
        raise CatalogError(
            f"attestation-services.csv: {orphans} match no attestations.csv row. To fix: correct the "
            "provider/scope or add the attestation."
        )
    return [
        {
            "id": pid,
            "display_name": rows[pid]["display_name"],
            "kind": rows[pid]["kind"],
            "sla_percent": number(rows[pid]["sla_percent"]),
            "sla_source": rows[pid]["sla_source"],
            "attestations": sorted(attestations[pid], key=lambda a: (a["scope"], a["evidence"])),
        }
        for pid in PROVIDER_IDS
    ]


def _attestation(row: Row, regions: list[dict[str, Any]]) -> dict[str, Any]:
    if row["scope"] not in COMPLIANCE_SCOPES:
        raise CatalogError(
            f"attestations.csv: scope {row['scope']!r} is not one of {', '.join(COMPLIANCE_SCOPES)}."
        )
    return {
        "scope": row["scope"],
        "evidence": row["evidence"],
        "source": row["source"],
        "regions": _scope_regions(row["provider"], row["regions"], regions),
        "note": row["note"],
    }


_STATUSES = ("in_scope", "not_in_scope", "not_found")


def _services(data: MarketData) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """attestation-services.csv by (provider, scope): FedRAMP authorises service by service."""
    scoped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in data.rows("attestation-services.csv"):
        where = f"attestation-services.csv: {row['provider']} {row['scope']} {row['service']}"
        if row["service"] not in SERVICE_KINDS:
            raise CatalogError(f"{where}: service is not one of {', '.join(SERVICE_KINDS)}.")
        if row["status"] not in _STATUSES:
            raise CatalogError(f"{where}: status {row['status']!r} is not one of {', '.join(_STATUSES)}.")
        if not row["source"] or not row["read"]:
            raise CatalogError(
                f"{where}: source and read date are required. To fix: cite what was read, and when."
            )
        entries = scoped.setdefault((row["provider"], row["scope"]), [])
        if any(e["service"] == row["service"] for e in entries):
            raise CatalogError(f"{where}: listed twice. To fix: keep one row per service.")
        entry = {k: row[k] for k in ("service", "name", "status", "source", "read", "note")}
        # ServiceScope.requires (a market folder older than the column has none)
        entry["requires"] = row.get("requires", "")
        entries.append(entry)
    return {key: sorted(v, key=lambda e: SERVICE_KINDS.index(e["service"])) for key, v in scoped.items()}


def _scope_regions(provider: str, spec: str, regions: list[dict[str, Any]]) -> list[str] | None:
    """Empty = every region; ``@country:US`` = the provider's regions in that country; else codes."""
    if not spec:
        return None
    if spec.startswith("@country:"):
        country = spec.removeprefix("@country:")
        return sorted(r["code"] for r in regions if r["provider"] == provider and r["country"] == country)
    return sorted(code.strip() for code in spec.split(";"))
