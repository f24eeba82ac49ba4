"""Market data with reserved prices, for the tests (a plain module: tests import it by name).

The reserved prices are test values (on-demand x 0.6 for 1 year, x 0.4 for 3 years) written into a
copy of data/market: the embedded catalog has no reserved offers.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKET = ROOT / "data" / "market"
FACTORS = {"ReservedPrice1yr": 0.6, "ReservedPrice3yr": 0.4}

RESERVED_CHAT: dict[str, object] = {
    "name": "chat",
    "workload": {
        "type": "inference",
        "model": {"name": "llama-3-8b"},
        "serving": {"output_tokens_per_s": 500},
    },
    "constraints": {"providers": {"allow": ["aws"]}, "pricing": ["reserved"]},
}
"""An AWS chat intent that admits reserved offers only (the reserved tests' common workload)."""


def with_reserved(tmp: Path, factors: dict[str, float] = FACTORS) -> Path:
    """A copy of data/market (under ``tmp``) whose AWS raw rows carry reserved prices."""
    market = tmp / "market"
    shutil.copytree(MARKET, market)
    path = market / "raw" / "aws.csv"
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = [*(reader.fieldnames or []), *factors]
        table = list(reader)
    for row in table:
        for column, factor in factors.items():
            row[column] = repr(round(float(row["Price"]) * factor, 4)) if row["Price"] else ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    path.write_text(out.getvalue(), encoding="utf-8")
    return market
