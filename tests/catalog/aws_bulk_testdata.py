"""AWS Price List offer files for the tests, in the files' real structure (a plain module).

``recorded/aws-bulk/us-east-1-p5.csv`` holds the structure of a regional offer file (the five
metadata rows, the quoted 91-column header, unquoted empty cells) and the rows of one instance
type (p5.48xlarge: on-demand, reserved 1yr/3yr standard No Upfront, and the variants the adapter
must leave out), plus a CPU instance, a storage row and an accelerator type the catalog lacks.
``offer_file(region)`` repeats the p5.48xlarge rows for every instance type the snapshot lists in
that region, scaled to that type's snapshot on-demand price (the AZ median), as the server's answer.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from functools import cache

from catalog_testdata import MARKET, RECORDED

TEMPLATE = RECORDED / "aws-bulk" / "us-east-1-p5.csv"
TEMPLATE_TYPE, TEMPLATE_PRICE = "p5.48xlarge", 55.04
OFFER_PATH = "/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
RESERVED = {"1yr": 0.6, "3yr": 0.4}
"""The template's reserved No Upfront rates as a share of on-demand (test values, not AWS's)."""


@cache
def _template() -> tuple[list[str], list[str], list[list[str]], list[list[str]]]:
    lines = TEMPLATE.read_text(encoding="utf-8").splitlines()
    preamble, header = lines[:5], next(csv.reader([lines[5]]))
    rows = [next(csv.reader([line])) for line in lines[6:]]
    at = header.index("Instance Type")
    return (
        preamble,
        header,
        [r for r in rows if r[at] == TEMPLATE_TYPE],
        [r for r in rows if r[at] != TEMPLATE_TYPE],
    )


@cache
def snapshot_prices() -> dict[tuple[str, str], float]:
    """(instance type, region) -> the snapshot's on-demand price (median over its AZ rows)."""
    by_key: dict[tuple[str, str], list[float]] = defaultdict(list)
    with (MARKET / "raw" / "aws.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["Price"]:
                by_key[(row["InstanceType"], row["Region"])].append(float(row["Price"]))
    return {key: statistics.median(values) for key, values in by_key.items()}


def regions() -> list[str]:
    return sorted({region for _, region in snapshot_prices()})


def _line(cells: list[str]) -> str:
    return ",".join(f'"{c}"' if c else "" for c in cells)


def offer_file(region: str, *, scale: float = 1.0, rows: bool = True) -> bytes:
    """The regional offer file the test server answers (``rows=False``: metadata and header only)."""
    preamble, header, p5, others = _template()
    at = {name: i for i, name in enumerate(header)}
    out = [*preamble, _line(header)]
    if rows:
        for (name, where), price in sorted(snapshot_prices().items()):
            if where != region:
                continue
            for template in p5:
                cells = list(template)
                cells[at["Instance Type"]] = name
                cells[at["usageType"]] = cells[at["usageType"]].replace(TEMPLATE_TYPE, name)
                cells[at["Region Code"]] = region
                value = float(template[at["PricePerUnit"]]) * price / TEMPLATE_PRICE * scale
                cells[at["PricePerUnit"]] = f"{value:.10f}"
                out.append(_line(cells))
        for template in others:
            cells = list(template)
            cells[at["Region Code"]] = region
            out.append(_line(cells))
    return ("\n".join(out) + "\n").encode("utf-8")
