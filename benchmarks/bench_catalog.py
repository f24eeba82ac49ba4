"""Loading a large user catalog (``load_catalog(path)``, ``--catalog FILE``, ``catalog validate``),
as a ratio to ``json.loads`` of the same text measured side by side in the same process.

Run: ``.venv/bin/python benchmarks/bench_catalog.py [--rounds N] [--before SRC] [--phases] [--options]
``

The catalog is synthetic: the embedded catalog's instance types copied under suffixed names
(``-s1``, ``-s2``, ...) until there are ``--instance-types`` of them (default 100,000), and its
offers copied onto the copies until there are ``--offers`` (default 100,000); sealed with its sha256,
written canonically (about 54.5 MiB, under the 64 MiB cap). It is valid, so every check runs in full.

- Each round starts one fresh process per tree (this one, and ``--before SRC``: another checkout's
  ``src``, e.g. main before a change), in turn, so a busy moment of this shared machine hits both.
  A process times ``json.loads`` of the text, then ``load_catalog(path)`` (read, strict parse,
  strings, schema, references, digest, canonical order, records: what a user waits for), then
  ``json.loads`` again; the ratio is the load over the mean of its two baselines. Its peak RSS
  (``ru_maxrss``) is that of a second process that only loads the catalog.
- ``--phases``: the load's steps in this tree, each as a ratio to ``json.loads`` in the same process.
- ``--options``: the schema step alone by each way considered (``jsonschema`` over the document, the
  same with the schema's ``$ref`` resolved beforehand, ``jsonschema_rs``, ``fastjsonschema`` when
  installed): why the compiled validator was chosen (benchmarks/CATALOG.md).

Target: ``load_catalog`` of the 100k catalog <= 10x ``json.loads`` of its text (median of the rounds;
measured 8.1x and 9.2x). Before this change it was about 80-100x (35 s on an idle machine), 95 % of it in
``jsonschema``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 10.0

CHILD = """
import json, resource, sys, time
from pathlib import Path
from computeops_cdk.catalog import load_catalog
from computeops_cdk.errors import CatalogError
path = Path(sys.argv[1])
def load():
    try:
        load_catalog(path)
    except CatalogError:
        pass
if sys.argv[2] == "rss":
    load()
    print(json.dumps({"rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
    raise SystemExit
text = path.read_text(encoding="utf-8")
def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu
first = timed(lambda: json.loads(text))
loaded = timed(load)
second = timed(lambda: json.loads(text))
print(json.dumps({"loads": (first[0] + second[0]) / 2, "load": loaded[0],
                  "loads_cpu": (first[1] + second[1]) / 2, "load_cpu": loaded[1]}))
"""


def synthetic_catalog(instance_types: int, offers: int) -> dict[str, Any]:
    """The embedded catalog grown to ``instance_types`` instance types and ``offers`` offers, sealed."""
    from computeops_cdk.catalog._build import content_sha256
    from computeops_cdk.catalog._load import EMBEDDED_CATALOG

    doc: dict[str, Any] = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    base_types, base_offers = doc["instance_types"], doc["offers"]
    copies = max(math.ceil(instance_types / len(base_types)), math.ceil(offers / len(base_offers)))
    types: list[dict[str, Any]] = []
    grown: list[dict[str, Any]] = []
    for k in range(copies):
        suffix = f"-s{k}" if k else ""
        types += [{**t, "name": t["name"] + suffix} for t in base_types]
        grown += [{**o, "instance_type": o["instance_type"] + suffix} for o in base_offers]
    doc["instance_types"] = types[:instance_types]
    kept = {(t["provider"], t["name"]) for t in doc["instance_types"]}
    doc["offers"] = [o for o in grown if (o["provider"], o["instance_type"]) in kept][:offers]
    doc["sha256"] = content_sha256(doc)
    return doc


def _child(src: Path, path: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), mode], env=env, check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def rounds(trees: dict[str, Path], path: Path, count: int) -> dict[str, dict[str, float]]:
    """Median load seconds, json.loads seconds, wall and CPU ratios per tree; the peak RSS of a load."""
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(count):
        for name, src in trees.items():
            samples[name].append(_child(src, path, "ratio"))
    rows = {}
    for name, src in trees.items():
        runs = samples[name]
        rows[name] = {
            "load": statistics.median(r["load"] for r in runs),
            "loads": statistics.median(r["loads"] for r in runs),
            "ratio": statistics.median(r["load"] / r["loads"] for r in runs),
            "cpu_ratio": statistics.median(r["load_cpu"] / r["loads_cpu"] for r in runs),
            "rss_mib": _child(src, path, "rss")["rss_mib"],
        }
    return rows


def _row(row: dict[str, float]) -> str:
    return f"{row['load']:.2f} | {row['loads']:.3f} | {row['ratio']:.1f}x | {row['cpu_ratio']:.1f}x"


def _timed(fn: Callable[[], object]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def phases(path: Path) -> list[tuple[str, float]]:
    """Seconds of each step of ``load_catalog(path)`` in this tree, in order (a valid catalog)."""
    from computeops_cdk.catalog import _validate
    from computeops_cdk.catalog._load import catalog_from_document, read_document
    from computeops_cdk.catalog._schema_check import compiled_accepts

    steps: list[tuple[str, float]] = []
    seconds, doc = _timed(lambda: read_document(path))
    steps.append(("read and strict parse", seconds))
    seconds, accepted = _timed(lambda: compiled_accepts(doc))
    steps.append(("schema, compiled (strings too)", seconds))
    assert accepted, "the synthetic catalog is valid"
    steps.append(("references and ranges", _timed(lambda: _validate.check_integrity(doc))[0]))
    seconds, ordered = _timed(lambda: _validate.check_sha256(doc))
    steps.append(("canonical order and digest", seconds))
    steps.append(("records", _timed(lambda: catalog_from_document(ordered))[0]))
    steps.append(("(not run: strings walk, as before)", _timed(lambda: _validate.check_strings(doc))[0]))
    return steps


def options(doc: dict[str, Any]) -> list[tuple[str, float | None]]:
    """Seconds of the schema step alone by each way considered (None: not installed)."""
    import jsonschema

    from computeops_cdk.catalog._schema_check import catalog_schema, first_schema_error

    schema = catalog_schema()
    rows: list[tuple[str, float | None]] = [
        (
            "jsonschema, whole document (before)",
            _timed(lambda: list(jsonschema.Draft202012Validator(schema).iter_errors(doc)))[0],
        ),
        (
            "jsonschema, $ref resolved beforehand",
            _timed(lambda: list(jsonschema.Draft202012Validator(_inlined(schema)).iter_errors(doc)))[0],
        ),
        (
            "jsonschema_rs gate, jsonschema for the message (chosen)",
            _timed(lambda: first_schema_error(doc))[0],
        ),
    ]
    try:
        import fastjsonschema  # type: ignore[import-not-found]
    except ImportError:
        rows.append(("fastjsonschema (drafts 4/6/7 only)", None))
    else:
        check = fastjsonschema.compile(schema)
        rows.append(("fastjsonschema (drafts 4/6/7 only)", _timed(lambda: check(doc))[0]))
    return rows


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local ``$ref`` replaced by its target (an ``allOf`` when it has siblings)."""
    defs = schema["$defs"]

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        rest = {k: v if k in ("enum", "const") else inline(v) for k, v in node.items() if k != "$ref"}
        if "$ref" not in node:
            return rest
        target = inline(defs[node["$ref"].rsplit("/", 1)[1]])
        return {"allOf": [target, rest]} if rest else target

    return {k: v for k, v in inline(schema).items() if k != "$defs"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instance-types", type=int, default=100_000)
    parser.add_argument("--offers", type=int, default=100_000)
    parser.add_argument("--before", metavar="SRC", type=Path, help="another tree's src/ to compare with")
    parser.add_argument("--phases", action="store_true", help="also time the load's steps in this tree")
    parser.add_argument("--options", action="store_true", help="also time the schema step by each way")
    args = parser.parse_args()

    from computeops_cdk.catalog._build import canonical_json

    doc = synthetic_catalog(args.instance_types, args.offers)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catalog.json"
        path.write_text(canonical_json(doc), encoding="utf-8")
        size = path.stat().st_size / 2**20
        lines += [
            f"Catalog: {len(doc['instance_types']):,} instance types, {len(doc['offers']):,} offers, "
            f"{size:.1f} MiB; Python {platform.python_version()}, {os.cpu_count()} cores; "
            f"{args.rounds} rounds, medians.",
            "",
            "| tree | load_catalog s | json.loads s | ratio | CPU ratio | target | peak RSS of a load |",
            "|---|---|---|---|---|---|---|",
        ]
        trees = {"this tree": ROOT / "src"}
        if args.before:
            trees = {"before": args.before.resolve(), **trees}
        for name, row in rounds(trees, path, args.rounds).items():
            verdict = "met" if row["ratio"] <= TARGET_RATIO else "MISSED"
            lines.append(
                f"| {name} | {_row(row)} | <= {TARGET_RATIO:g}x: {verdict} | {row['rss_mib']:.0f} MiB |"
            )
        price = doc["offers"][-1]["hourly_usd"]
        doc["offers"][-1]["hourly_usd"] = -1.0  # refused by the schema, the last record read
        path.write_text(canonical_json(doc), encoding="utf-8")
        for name, row in rounds(trees, path, args.rounds).items():
            lines.append(
                f"| {name}, last offer's price -1 (refused) | {_row(row)} | | {row['rss_mib']:.0f} MiB |"
            )
        doc["offers"][-1]["hourly_usd"] = price
        path.write_text(canonical_json(doc), encoding="utf-8")
        if args.phases:
            base = statistics.median(
                _timed(lambda: json.loads(path.read_text(encoding="utf-8")))[0] for _ in range(3)
            )
            lines += ["", f"Steps of load_catalog in this tree (json.loads: {base:.3f} s):", ""]
            lines += ["| step | s | ratio to json.loads |", "|---|---|---|"]
            lines += [f"| {name} | {s:.3f} | {s / base:.2f}x |" for name, s in phases(path)]
        if args.options:
            base = _timed(lambda: json.loads(path.read_text(encoding="utf-8")))[0]
            lines += ["", f"The schema step alone, by each way (json.loads: {base:.3f} s):", ""]
            lines += ["| way | s | ratio to json.loads |", "|---|---|---|"]
            for name, s in options(doc):
                shown = "not installed" if s is None else f"{s:.2f} | {s / base:.1f}x"
                lines.append(f"| {name} | {shown} |" if s is not None else f"| {name} | {shown} | |")
    print("\n".join(lines))  # Markdown: benchmarks/CATALOG.md quotes it with the reasons
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
