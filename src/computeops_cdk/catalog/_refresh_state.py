"""The generation's ``state.json``: per provider its last attempt and outcome, and when it was last
refreshed, from what, with how many rows (per part for a provider priced by several feeds; a part or
provider refused keeps what it had)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ._refresh_outcome import REPLACED, ProviderOutcome
from ._sources import Feed

__all__ = ["json_text", "refresh_state"]


def refresh_state(
    name: str,
    moment: datetime,
    doc: dict[str, Any],
    feeds: dict[str, Feed],
    outcomes: dict[str, ProviderOutcome],
    previous: dict[str, Any],
) -> dict[str, Any]:
    when = moment.isoformat(timespec="seconds")
    providers: dict[str, Any] = {}
    for provider in sorted(feeds):
        entry = dict(previous.get(provider) or {})
        outcome = outcomes.get(provider)
        if outcome is not None:
            entry["last_attempt"] = when
            entry["last_outcome"] = outcome.as_json()
            if outcome.status in REPLACED:
                entry["refreshed_at"] = when
                entry["source"] = outcome.source
                entry["rows"] = outcome.rows_after
            if outcome.parts and outcome.status in REPLACED:
                entry["parts"] = _part_states(outcome, entry.get("parts"), when)
            elif outcome.status in REPLACED:
                entry.pop("parts", None)  # priced by one feed again
        providers[provider] = entry
    return {"generation": name, "created_at": when, "catalog_sha256": doc["sha256"], "providers": providers}


def _part_states(outcome: ProviderOutcome, previous: Any, when: str) -> list[dict[str, Any]]:
    """Each part's last refresh, source and rows (a refused part keeps its previous ones)."""
    before = (
        {"+".join(p.get("models", [])): p for p in previous if isinstance(p, dict)}
        if isinstance(previous, list)
        else {}
    )
    out = []
    for part in outcome.parts:
        key = "+".join(part.models)
        entry = dict(before.get(key) or {"models": list(part.models)})
        entry["status"] = part.status
        if part.status in ("updated", "accepted"):
            entry.update(refreshed_at=when, source=part.source, rows=part.rows_after)
        out.append(entry)
    return out


def json_text(doc: Any) -> str:
    import json

    return json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"
