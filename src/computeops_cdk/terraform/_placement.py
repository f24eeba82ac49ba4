"""Data source ``computeops_placement``: the engine's decision as Terraform values.

The attributes below are shared with the lock resource (``_lock``), which keeps the same placement
in state. Attribute names avoid what Terraform reserves (``provider`` is the meta-argument, so the
provider id is ``cloud`` and the pins are ``pin_provider`` / ``pin_region``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._framework import (
    BOOL,
    NUMBER,
    STRING,
    Attr,
    DataSourceSpec,
    Diagnostics,
    list_of,
    map_of,
    object_of,
)
from ._settings import SETTINGS

if TYPE_CHECKING:
    from ..engine import Decision, Pin, Placement
    from ..engine._decision import RejectionListing
    from ..errors import NoFeasiblePlacementError
    from ..intent import WorkloadIntent

__all__ = [
    "INPUTS",
    "PLACEMENT",
    "PLACEMENT_OBJECT",
    "REJECTIONS",
    "UNIT_COST",
    "data_source",
    "decide_config",
    "parse_inputs",
    "placement_values",
    "validate_intent_text",
]

UNIT_COST = object_of(unit=STRING, value=NUMBER)
PLACEMENT_OBJECT = object_of(
    cloud=STRING,
    instance_type=STRING,
    region=STRING,
    pricing=STRING,
    accelerator=STRING,
    instances=NUMBER,
    hourly_usd=NUMBER,
    monthly_usd=NUMBER,
    unit_cost=UNIT_COST,
    score=NUMBER,
)


def _inputs(replace: bool) -> list[Attr]:
    return [
        Attr(
            "intent",
            STRING,
            'The workload intent as YAML or JSON text: `file("intent.yaml")` or `jsonencode({...})` '
            "(the format of `schemas/intent.schema.json`).",
            required=True,
            replace=replace,
        ),
        Attr(
            "pin_provider",
            STRING,
            "Pin the provider (catalog id, e.g. `aws`); still checked against every hard constraint. "
            "Default: the engine chooses.",
            optional=True,
            replace=replace,
        ),
        Attr(
            "pin_region",
            STRING,
            "Pin the region code (e.g. `us-east-1`). Default: the engine chooses.",
            optional=True,
            replace=replace,
        ),
        Attr(
            "cluster",
            BOOL,
            "Place the GPUs as a node pool of an existing Kubernetes cluster (only providers whose "
            "target can add a node pool are candidates). Default: `false`, standalone machines.",
            optional=True,
            replace=replace,
        ),
    ]


INPUTS = _inputs(replace=False)

REJECTIONS = Attr(
    "rejections",
    STRING,
    "Which rejected candidates `decision_json` lists: `summary` (the counts per rule and a few examples "
    "of each, about 30 KB of state for the embedded catalog) or `all` (every rejected candidate with its "
    "reasons, about 2 MB of state, kept in every plan's refresh). Default: `summary`, as "
    "`computeops decide --format json`; `rejected_by_rule` always has every count.",
    optional=True,
)
"""Data-source only: the lock resource keeps no decision document in state."""


def _computed(name: str, type_: Any, description: str) -> Attr:
    return Attr(name, type_, description, computed=True)


PLACEMENT: list[Attr] = [
    _computed("cloud", STRING, "The chosen provider id (e.g. `aws`, `gcp`, `lambda`)."),
    _computed("instance_type", STRING, "The provider's instance type (e.g. `p5.48xlarge`)."),
    _computed("region", STRING, "The provider's region code."),
    _computed("country", STRING, "ISO 3166-1 alpha-2 country of the region (null when unknown)."),
    _computed("accelerator", STRING, "Catalog accelerator id (e.g. `H100-SXM`)."),
    _computed("accelerators_per_instance", NUMBER, "Accelerators on one instance."),
    _computed("instances", NUMBER, "Number of instances of the deployment."),
    _computed("pricing", STRING, "Price model: `on_demand`, `spot` or `reserved`."),
    _computed("hourly_usd", NUMBER, "Whole deployment, USD per hour."),
    _computed("monthly_usd", NUMBER, "Whole deployment, USD per month (hourly x 730)."),
    _computed(
        "unit_cost",
        UNIT_COST,
        "Cost per unit of useful work: `{unit, value}`, unit `usd_per_million_output_tokens` "
        "(inference) or `usd_per_training_step` (training); an estimate (price / modelled throughput).",
    ),
    _computed("total_usd", NUMBER, "Whole job cost (training and fine-tuning; null for inference)."),
    _computed("hours", NUMBER, "Job duration in hours (training and fine-tuning; null for inference)."),
    _computed("score", NUMBER, "Weighted score in [0, 1]."),
    _computed("attestations", list_of(STRING), "Provider-claimed compliance attestations in this region."),
    _computed("catalog_version", STRING, "Version of the catalog decided on."),
    _computed("catalog_sha256", STRING, "sha256 of the catalog decided on."),
    _computed("intent_sha256", STRING, "sha256 of the intent's canonical JSON (defaults filled)."),
    _computed("explanation", list_of(STRING), "Why this placement, in sentences with the numbers."),
]

_DATA_ONLY: list[Attr] = [
    _computed("id", STRING, "`cloud/instance_type/region/pricing` of the chosen placement."),
    _computed(
        "alternatives",
        list_of(PLACEMENT_OBJECT),
        "Ranked runners-up (up to 10), best first: `cloud`, `instance_type`, `region`, `pricing`, "
        "`accelerator`, `instances`, `hourly_usd`, `monthly_usd`, `unit_cost {unit, value}`, `score`.",
    ),
    _computed("rejected_by_rule", map_of(NUMBER), "How many candidates each rule id rejected."),
    _computed(
        "decision_json",
        STRING,
        "The decision document, byte-identical to `computeops decide --format json` with the same pins "
        "(`jsondecode()` it for anything not exposed above).",
    ),
]


# -- inputs -----------------------------------------------------------------------------------


def parse_inputs(diags: Diagnostics, config: dict[str, Any]) -> tuple[WorkloadIntent, Pin] | None:
    """The intent and the pin of a configuration; error diagnostics on their attributes otherwise."""
    from ..errors import IntentError
    from ..intent import WorkloadIntent
    from ..targets import placement_pin

    text = config.get("intent")
    if not isinstance(text, str) or not text.strip():
        diags.error(
            "Invalid intent",
            'intent is empty. To fix: intent = file("intent.yaml") or intent = jsonencode({...})',
            attribute="intent",
        )
        return None
    try:
        intent = WorkloadIntent.from_yaml(text, source="intent")
    except IntentError as err:
        diags.error("Invalid intent", str(err), attribute="intent")
        return None
    try:
        pin = placement_pin(
            provider=config.get("pin_provider"),
            region=config.get("pin_region"),
            cluster=bool(config.get("cluster")),
        )
    except IntentError as err:
        _pin_error(diags, err)
        return None
    return intent, pin


def _pin_error(diags: Diagnostics, err: Exception) -> None:
    path = getattr(err, "path", "")
    attribute = "pin_region" if path == "pin.region" else "pin_provider"
    text = str(err).replace("pin.provider", "pin_provider").replace("pin.region", "pin_region")
    diags.error(f"Invalid {attribute}", text, attribute=attribute)


def decide_config(diags: Diagnostics, config: dict[str, Any]) -> Decision | None:
    """Decide for a configuration; every problem an error diagnostic on the attribute at fault."""
    from ..engine import decide
    from ..errors import IntentError, NoFeasiblePlacementError

    inputs = parse_inputs(diags, config)
    if inputs is None:
        return None
    intent, pin = inputs
    catalog, accounts = SETTINGS.catalog(diags), SETTINGS.accounts(diags)
    if catalog is None or accounts is None:
        return None
    try:
        return decide(intent, catalog=catalog, pin=pin, accounts=accounts[0])
    except IntentError as err:
        if err.path.startswith("pin."):
            _pin_error(diags, err)
        else:
            diags.error("Invalid intent", str(err), attribute="intent")
    except NoFeasiblePlacementError as err:
        _infeasible(diags, err, pin)
    return None


def _infeasible(diags: Diagnostics, err: NoFeasiblePlacementError, pin: Pin) -> None:
    if pin.provider is None and pin.region is None:
        diags.error("No feasible placement", str(err), attribute="intent")
        return
    what = " ".join(f"{k}={v}" for k, v in (("pin_provider", pin.provider), ("pin_region", pin.region)) if v)
    rule, example = _binding_rule(err.rejections)
    head = (
        f"the pinned placement ({what}) breaks the intent's hard constraint {rule}: {example}"
        if rule
        else f"the pinned placement ({what}) has no candidate in the catalog"
    )
    diags.error(
        f"Pinned placement breaks {rule}" if rule else "Pinned placement has no candidate",
        f"{head}.\n\n{err}",
        attribute="pin_region" if pin.provider is None else "pin_provider",
    )


def _binding_rule(rejections: Sequence[Any]) -> tuple[str, str]:
    """The rule that stops most pinned candidates, with one of its messages (the numbers)."""
    counts = Counter(reason.rule for r in rejections for reason in r.reasons)
    if not counts:
        return "", ""
    rule = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    for r in rejections:
        for reason in r.reasons:
            if reason.rule == rule:
                return rule, f"{r.provider} {r.instance_type} in {r.region}: {reason.message}"
    return rule, ""  # pragma: no cover - the rule came from these rejections


# -- outputs ----------------------------------------------------------------------------------


def _unit_cost(p: Placement) -> dict[str, Any]:
    return {"unit": p.unit_cost.unit, "value": p.unit_cost.value}


def placement_values(p: Placement) -> dict[str, Any]:
    """The attributes every placement has (the data source's and the lock's)."""
    return {
        "cloud": p.provider,
        "instance_type": p.instance_type,
        "region": p.region,
        "country": p.country,
        "accelerator": p.accelerator,
        "accelerators_per_instance": p.accelerators_per_instance,
        "instances": p.instances,
        "pricing": p.pricing,
        "hourly_usd": p.hourly_usd,
        "monthly_usd": p.monthly_usd,
        "unit_cost": _unit_cost(p),
        "total_usd": p.total_usd,
        "hours": p.hours,
        "score": p.score,
        "attestations": list(p.attestations),
    }


def decision_values(decision: Decision, rejections: RejectionListing = "summary") -> dict[str, Any]:
    """The data source's computed attributes; ``decision_json`` lists ``rejections``."""
    chosen = decision.chosen
    assert chosen is not None  # decide raises instead of returning a decision without a choice
    return {
        **placement_values(chosen),
        "id": "/".join((chosen.provider, chosen.instance_type, chosen.region, chosen.pricing)),
        "catalog_version": decision.catalog_version,
        "catalog_sha256": decision.catalog_sha256,
        "intent_sha256": decision.intent_sha256,
        "explanation": list(decision.explanation),
        "alternatives": [
            {
                "cloud": a.provider,
                "instance_type": a.instance_type,
                "region": a.region,
                "pricing": a.pricing,
                "accelerator": a.accelerator,
                "instances": a.instances,
                "hourly_usd": a.hourly_usd,
                "monthly_usd": a.monthly_usd,
                "unit_cost": _unit_cost(a),
                "score": a.score,
            }
            for a in decision.alternatives
        ],
        "rejected_by_rule": decision.rejections_by_rule(),
        "decision_json": decision.to_json(rejections=rejections),
    }


def _read(diags: Diagnostics, config: dict[str, Any]) -> dict[str, Any] | None:
    listing = _rejection_listing(diags, config)
    if listing is None:
        return None
    decision = decide_config(diags, config)
    if decision is None:
        return None
    from ..engine._accounts import UNLISTED

    for line in decision.explanation:  # the accounts file names what the catalog does not list
        if line.startswith(UNLISTED):
            diags.warning("Accounts file names what the catalog does not list", line)
    return {**config, **decision_values(decision, listing)}


def _rejection_listing(diags: Diagnostics, config: dict[str, Any]) -> RejectionListing | None:
    """The ``rejections`` argument (default ``summary``), or None after an error diagnostic.

    Spells the engine's ``REJECTION_LISTINGS`` so validation does not import the engine."""
    listings: tuple[RejectionListing, ...] = ("summary", "all")
    value = config.get("rejections")
    if value is None:
        return "summary"
    for listing in listings:
        if value == listing:
            return listing
    diags.error(
        "Invalid rejections",
        f"rejections is {str(value)[:40]!r}; it is one of {', '.join(listings)}. "
        'To fix: rejections = "summary" (the default) or rejections = "all".',
        attribute="rejections",
    )
    return None


def validate_intent_text(diags: Diagnostics, config: dict[str, Any]) -> None:
    """``terraform validate``'s cheap check that the intent is text; the models load only to decide."""
    from ._framework import UNKNOWN

    text = config.get("intent")
    if text is not UNKNOWN and (not isinstance(text, str) or not text.strip()):
        diags.error(
            "Invalid intent",
            'intent is empty. To fix: intent = file("intent.yaml") or intent = jsonencode({...})',
            attribute="intent",
        )
    if config.get("rejections") is not UNKNOWN:
        _rejection_listing(diags, config)


def data_source() -> DataSourceSpec:
    return DataSourceSpec(
        name="placement",
        description=(
            "Decides where a workload runs (provider, instance type, region, price model) from an "
            "intent and the configured catalog, deterministically and with its reasons. A new "
            "catalog changes the answer at the next plan; use `computeops_placement_lock` to keep a "
            "running fleet where it is."
        ),
        attributes=[*INPUTS, REJECTIONS, *PLACEMENT, *_DATA_ONLY],
        read=_read,
        validate=validate_intent_text,
    )
