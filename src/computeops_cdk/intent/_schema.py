"""The intent's JSON Schema, as committed in ``schemas/intent.schema.json``.

Regenerate the file after changing an intent model::

    make schemas     # or: python -m computeops_cdk.intent._schema schemas/intent.schema.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._intent import WorkloadIntent

__all__ = ["intent_json_schema", "schema_text"]


def intent_json_schema() -> dict[str, Any]:
    """JSON Schema of a workload intent (field names as users write them, e.g. ``apiVersion``)."""
    schema = WorkloadIntent.model_json_schema(by_alias=True)
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
