"""Helpers shared by the provider's in-process and end-to-end tests: catalogs that differ from the
embedded one in one price or one offer, with a valid digest (a user catalog is always validated)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from computeops_cdk import WorkloadIntent, decide
from computeops_cdk.catalog._build import content_sha256
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = ROOT / "examples" / "support-chat.yaml"

Key = tuple[str, str, str, str]


def catalog_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    return doc


def write_catalog(path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """The embedded catalog with ``change`` applied and its sha256 recomputed, written to ``path``."""
    doc = catalog_doc()
    change(doc)
    doc["sha256"] = content_sha256(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def offer_key(offer: dict[str, Any]) -> Key:
    return (offer["provider"], offer["instance_type"], offer["region"], offer["pricing"])


@functools.cache
def chosen_and_runner_up() -> tuple[Any, Any]:
    """The support-chat decision's chosen placement and its runner-up on the embedded catalog."""
    decision = decide(WorkloadIntent.from_file(SUPPORT_CHAT), pin=placement_pin())
    return decision.chosen, decision.alternatives[0]


def runner_up_cheaper_by(percent: float) -> Callable[[dict[str, Any]], None]:
    """A change making the runner-up ``percent`` % cheaper per unit of work than the chosen one."""
    chosen, runner_up = chosen_and_runner_up()
    factor = chosen.unit_cost.value * (1 - percent / 100) / runner_up.unit_cost.value
    key = (runner_up.provider, runner_up.instance_type, runner_up.region, runner_up.pricing)

    def change(doc: dict[str, Any]) -> None:
        for offer in doc["offers"]:
            if offer_key(offer) == key:
                offer["hourly_usd"] = round(offer["hourly_usd"] * factor, 4)

    return change


def without_chosen_offer() -> Callable[[dict[str, Any]], None]:
    """A change removing the chosen offer from the catalog."""
    chosen, _ = chosen_and_runner_up()
    key = (chosen.provider, chosen.instance_type, chosen.region, chosen.pricing)

    def change(doc: dict[str, Any]) -> None:
        doc["offers"] = [o for o in doc["offers"] if offer_key(o) != key]

    return change
