"""The JSON Schemas of the documents computeops reads and writes, shipped in the wheel.

    >>> from computeops_cdk.schemas import load_schema
    >>> load_schema("intent")["$id"]
    'https://computeops.dev/schemas/intent.schema.json'

``intent`` is generated from the intent models (``intent._schema``); ``decision``, ``catalog`` and
``lock`` (computeops.lock.json) and ``accounts``
(computeops.accounts.yaml) are written by hand in the repository's ``schemas/``. This package
holds copies (the catalog's lives beside the embedded catalog, which ``catalog validate`` checks
with it). ``make schemas``
(``python -m computeops_cdk.schemas``) regenerates the intent schema and refreshes every copy;
a test keeps the copies identical to ``schemas/``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

__all__ = ["SCHEMA_NAMES", "SchemaName", "load_schema", "main", "regenerated", "schema_path"]

SchemaName = Literal["intent", "decision", "catalog", "lock", "accounts"]
SCHEMA_NAMES: tuple[SchemaName, ...] = ("intent", "decision", "catalog", "lock", "accounts")

_HERE = Path(__file__).parent
_PACKAGED = {
    "intent": _HERE / "intent.schema.json",
    "decision": _HERE / "decision.schema.json",
    "lock": _HERE / "lock.schema.json",
    "accounts": _HERE / "accounts.schema.json",
    "catalog": _HERE.parent / "catalog" / "data" / "catalog.schema.json",
}


def schema_path(name: SchemaName) -> Path:
    """The installed file of schema ``name`` (intent, decision or catalog)."""
    if name not in _PACKAGED:
        raise ValueError(f"unknown schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    return _PACKAGED[name]


def load_schema(name: SchemaName) -> dict[str, Any]:
    """Schema ``name`` as a dict, ready for ``jsonschema.Draft202012Validator``."""
    loaded: dict[str, Any] = json.loads(schema_path(name).read_text(encoding="utf-8"))
    return loaded


def regenerated(source: Path) -> dict[Path, str]:
    """What ``make schemas`` writes: file -> text, with ``source`` the repository's ``schemas/``.

    The intent schema is generated from the models into ``source``; every schema of ``source`` is
    copied into the package.
    """
    from ..intent._schema import schema_text

    files = {source / "intent.schema.json": schema_text()}
    for name in SCHEMA_NAMES:
        text = files.get(source / f"{name}.schema.json")
        if text is None:
            text = (source / f"{name}.schema.json").read_text(encoding="utf-8")
        files[schema_path(name)] = text
    return files


def main(argv: list[str]) -> int:
    """``python -m computeops_cdk.schemas [SCHEMAS_DIR]`` (default ``schemas``, run from the repository)."""
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python -m computeops_cdk.schemas [SCHEMAS_DIR]  (or: make schemas)", file=sys.stderr)
        return 2
    for path, text in regenerated(Path(argv[0] if argv else "schemas")).items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0
