"""The intent's JSON Schema, as committed in ``schemas/intent.schema.json`` and shipped in the wheel.

Generated from the pydantic models, then annotated with what the models check in validators
(so a plain JSON Schema validator knows it too): the vocabularies as enums (compliance scopes,
providers, continents) and patterns (countries, region ids), and the unit of every number in its
description. Regenerate after changing an intent model::

    make schemas     # or: python -m computeops_cdk.schemas
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..catalog._types import COMPLIANCE_SCOPES, PROVIDER_IDS
from ._base import CONTINENTS
from ._intent import WorkloadIntent

__all__ = ["intent_json_schema", "schema_text"]

_REGION_ID = {"type": "string", "pattern": "^[a-z0-9]+:[A-Za-z0-9._-]+$"}
_ITEMS: dict[tuple[str, str], dict[str, Any]] = {
    ("Constraints", "compliance"): {"type": "string", "enum": list(COMPLIANCE_SCOPES)},
    ("ProviderFilter", "allow"): {"type": "string", "enum": list(PROVIDER_IDS)},
    ("ProviderFilter", "exclude"): {"type": "string", "enum": list(PROVIDER_IDS)},
    ("Residency", "continents"): {"type": "string", "enum": list(CONTINENTS)},
    ("Residency", "countries"): {"type": "string", "pattern": "^[A-Z]{2}$"},
    ("Residency", "regions"): _REGION_ID,
    ("Preferences", "regions"): _REGION_ID,
}
"""(model, field) -> the schema of one item: what the field's validator accepts, case-sensitively."""

_DESCRIPTIONS: dict[tuple[str, str], str] = {
    ("Constraints", "compliance"): "Compliance scopes the provider must attest itself (provider_claimed) "
    "in the region: lower-case ids.",
    ("Constraints", "max_hourly_usd"): "Cap in USD per hour on the whole deployment (all instances).",
    ("Constraints", "max_monthly_usd"): "Cap in USD per month (hourly x 730 hours).",
    ("Constraints", "max_total_usd"): "Cap in USD on the whole job (training and fine_tuning only).",
    ("Constraints", "pricing"): "Allowed price models.",
    ("Residency", "countries"): "ISO 3166-1 alpha-2 country codes, upper case (DE, FR).",
    ("Residency", "continents"): "Continent codes.",
    ("Residency", "regions"): "Region ids provider:code (aws:us-east-1).",
    ("ProviderFilter", "allow"): "Only these providers.",
    ("ProviderFilter", "exclude"): "Every provider but these.",
    ("AcceleratorFilter", "allow"): "Catalog accelerator ids or aliases (H100 -> H100-SXM).",
    ("ModelRef", "params_b"): "Total parameters, in billions.",
    ("ModelRef", "active_params_b"): "Parameters active per token (MoE), in billions. Default: params_b.",
    ("Serving", "output_tokens_per_s"): "Sustained aggregate output tokens per second.",
    ("Serving", "input_tokens"): "Mean prompt length, tokens per request.",
    ("Serving", "output_tokens"): "Mean completion length, tokens per request.",
    ("Serving", "ttft_ms"): "Time-to-first-token target, milliseconds.",
    ("Serving", "tpot_ms"): "Time-per-output-token target, milliseconds.",
    ("Training", "tokens"): "Total training tokens to process.",
    ("Training", "seq_len"): "Tokens per sequence.",
    ("Training", "global_batch_tokens"): "Tokens per optimizer step (>= seq_len).",
    ("Training", "deadline_hours"): "Wall-clock deadline for the whole job, hours.",
    ("Preferences", "regions"): "Preferred region ids provider:code, best first.",
    **{
        ("Weights", name): f"Relative weight of the {name} score (unitless, >= 0)."
        for name in ("cost", "performance", "availability", "reliability", "compliance", "residency")
    },
}
"""(model, field) -> its description: what it means and in which unit."""


def _annotate(schema: dict[str, Any]) -> None:
    for (model, name), items in _ITEMS.items():
        field = schema["$defs"][model]["properties"][name]
        for form in field.get("anyOf", [field]):  # `X | None` fields are anyOf [array, null]
            if form.get("type") == "array":
                form["items"] = dict(items)
    for (model, name), text in _DESCRIPTIONS.items():
        schema["$defs"][model]["properties"][name]["description"] = text


def intent_json_schema() -> dict[str, Any]:
    """JSON Schema of a workload intent (field names as users write them, e.g. ``apiVersion``)."""
    schema = WorkloadIntent.model_json_schema(by_alias=True)
    _annotate(schema)
    # ModelRef's name may be left out when params_b is given (ModelRef._name_from_size names the model)
    model_ref = schema["$defs"]["ModelRef"]
    model_ref["required"].remove("name")
    if not model_ref["required"]:
        del model_ref["required"]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://computeops.dev/schemas/intent.schema.json"
    return schema


def schema_text() -> str:
    """The schema as the committed file holds it (sorted keys, two-space indent, final newline)."""
    return json.dumps(intent_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """Write the schema to ``argv[0]`` (default ``schemas/intent.schema.json``); 2 on a bad argument."""
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python -m computeops_cdk.intent._schema [OUTPUT]  (or: make schemas)", file=sys.stderr)
        return 2
    Path(argv[0] if argv else "schemas/intent.schema.json").write_text(schema_text(), encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover - a maintainer's regeneration step
    sys.exit(main(sys.argv[1:]))
