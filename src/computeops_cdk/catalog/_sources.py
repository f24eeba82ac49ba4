"""Reading the market-data folder: plain CSV files with provenance, nothing computed here."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CatalogError

__all__ = ["Feed", "MarketData", "Row", "number", "read_csv"]

Row = dict[str, str]


def read_csv(path: Path) -> list[Row]:
    """All rows of a CSV file as dicts of stripped strings (missing cells are "")."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return [{k: (v or "").strip() for k, v in row.items() if k} for row in csv.DictReader(handle)]
    except FileNotFoundError as err:
        raise CatalogError(
            f"market data file {path} is missing. To fix: point --source at a complete market-data "
            "folder (the repository's data/market)."
        ) from err


def number(text: str) -> float | None:
    """A number from a CSV cell, None when the cell is empty."""
    return float(text) if text.strip() else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Feed:
    """Where one provider's raw price file comes from (a row of feeds.csv)."""

    provider: str
    raw_file: str
    repo: str
    path: str
    commit: str
    as_of: str
    refreshable: bool
    adapters: tuple[str, ...] = ("skypilot",)
    """Feed adapters to try, in order (feeds.csv ``feed``: ``lambda-api|skypilot``); the first whose
    API key is set is used."""

    @property
    def source(self) -> str:
        """The offer provenance, e.g. ``skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv@00148f2``."""
        ref = self.commit[:7] if re.fullmatch(r"[0-9a-f]{40}", self.commit) else self.commit
        return f"{self.repo} {self.path}@{ref}"


class MarketData:
    """The files of one market-data folder, read on demand and cached."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, list[Row]] = {}

    def rows(self, name: str) -> list[Row]:
        """The rows of ``name`` (a path relative to the folder)."""
        if name not in self._cache:
            self._cache[name] = read_csv(self.root / name)
        return self._cache[name]

    def meta(self, key: str) -> str:
        """A value of meta.csv (``version``, ``as_of``)."""
        for row in self.rows("meta.csv"):
            if row["key"] == key:
                return row["value"]
        raise CatalogError(f"meta.csv in {self.root} has no {key!r}. To fix: add a '{key},<value>' row.")

    def feeds(self) -> dict[str, Feed]:
        """The price feed of every provider that has a raw file, by provider id."""
        return {
            row["provider"]: Feed(
                provider=row["provider"],
                raw_file=row["raw_file"],
                repo=row["repo"],
                path=row["path"],
                commit=row["commit"],
                as_of=row["as_of"],
                refreshable=row["refreshable"] == "yes",
                adapters=tuple(a for a in row.get("feed", "skypilot").split("|") if a),
            )
            for row in self.rows("feeds.csv")
        }
