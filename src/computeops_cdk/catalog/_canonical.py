"""The catalog's canonical form: record order, JSON text and content digest (the builder writes a
document in this form, the validator checks a loaded one against it)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ._types import PROVIDER_IDS

__all__ = ["canonical_json", "canonical_order", "content_sha256", "ordered_sha256"]


def canonical_json(doc: dict[str, Any]) -> str:
    """Sorted keys, one list item per line (readable diffs), trailing newline."""
    lines = ["{"]
    keys = sorted(doc)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = doc[key]
        if isinstance(value, list):
            items = [_compact(item) for item in value]
            body = ",\n".join(items)
            lines.append(
                f"{json.dumps(key)}:[\n{body}\n]{comma}" if items else f"{json.dumps(key)}:[]{comma}"
            )
        else:
            lines.append(f"{json.dumps(key)}:{_compact(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


_compact = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
"""One record as canonical JSON: ``json.dumps`` with these options, without an encoder per call."""


def content_sha256(doc: dict[str, Any]) -> str:
    """Digest of the canonical JSON of ``doc`` without its ``sha256`` field, records in canonical
    order: the same records in another order have the same digest (and load as the same catalog)."""
    return ordered_sha256(canonical_order(doc))


def ordered_sha256(ordered: dict[str, Any]) -> str:
    """``content_sha256`` of a document whose records are already in canonical order."""
    body = {k: v for k, v in ordered.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def canonical_order(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every record list in the builder's order (a valid document: keys are unique).

    Providers in ``PROVIDER_IDS`` order, their attestations by (scope, evidence), regions by
    (provider, code), accelerators by id, instance types by (provider, name), offers by
    (provider, instance type, region, pricing, term); attestation regions and aliases sorted.
    """
    rank = {pid: i for i, pid in enumerate(PROVIDER_IDS)}
    providers = [
        {
            **p,
            "attestations": sorted(
                (_ordered_attestation(a) for a in p["attestations"]), key=_attestation_key
            ),
        }
        for p in doc["providers"]
    ]
    return {
        **doc,
        "providers": sorted(providers, key=lambda p: (rank.get(p["id"], len(rank)), p["id"])),
        "regions": sorted(doc["regions"], key=lambda r: (r["provider"], r["code"])),
        "accelerators": sorted(
            (
                {**a, "aliases": sorted(a["aliases"], key=lambda s: (s.lower(), s))}
                for a in doc["accelerators"]
            ),
            key=lambda a: a["id"],
        ),
        "instance_types": sorted(doc["instance_types"], key=lambda t: (t["provider"], t["name"])),
        "offers": sorted(
            doc["offers"],
            key=lambda o: (
                o["provider"],
                o["instance_type"],
                o["region"],
                o["pricing"],
                o.get("term_months", 0),
            ),
        ),
    }


def _ordered_attestation(att: dict[str, Any]) -> dict[str, Any]:
    return att if att["regions"] is None else {**att, "regions": sorted(att["regions"])}


def _attestation_key(att: dict[str, Any]) -> tuple[str, str, str]:
    return att["scope"], att["evidence"], _compact(att)
