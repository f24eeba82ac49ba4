"""Reading the market-data folder: plain CSV files with provenance, nothing computed here."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import CatalogError

__all__ = [
    "PRICE_MODELS",
    "Feed",
    "FeedPart",
    "MarketData",
    "Provenance",
    "Row",
    "number",
    "parse_feed_spec",
    "read_csv",
]

Row = dict[str, str]
PRICE_MODELS = ("on_demand", "spot", "reserved")
"""The price models a feed part may own (the catalog's ``pricing`` values)."""
PRICE_SOURCES = "price-sources.csv"
"""Where a refresh records the source of each price model it took from another feed than the
provider's feeds.csv row: ``provider,pricing,repo,path,commit,as_of`` (none in the shipped data)."""


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
class Provenance:
    """Where prices were read: the repository or publisher, the path, the revision and the date."""

    repo: str
    path: str
    commit: str
    as_of: str

    @property
    def source(self) -> str:
        """The offer provenance, e.g. ``skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv@00148f2``."""
        ref = self.commit[:7] if re.fullmatch(r"[0-9a-f]{40}", self.commit) else self.commit
        return f"{self.repo} {self.path}@{ref}"


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedPart:
    """One source of a provider's prices: the price models it owns and its adapters, in order (the
    first that answers is used, the next ones are fallbacks)."""

    models: tuple[str, ...]
    adapters: tuple[str, ...]

    @property
    def label(self) -> str:
        """``on_demand+reserved from aws-bulk`` (the report's name for the part)."""
        return f"{'+'.join(self.models)} from {'|'.join(self.adapters)}"


def parse_feed_spec(text: str, *, what: str) -> tuple[FeedPart, ...]:
    """feeds.csv's ``feed`` cell (or ``--feed P=SPEC``): ``;``-separated parts, each
    ``[MODEL+MODEL:]ADAPTER|FALLBACK``; a part without models owns every model no other part names.

    ``lambda-api|skypilot`` is one part owning every price model; ``on_demand+reserved:aws-bulk;
    spot:gpuhunt`` prices on-demand and reserved from the AWS bulk files and spot from gpuhunt.

    Raises:
        CatalogError: an unknown or repeated price model, a part without adapters, more than one
            part without models, or a price model no part owns (``what`` names the cell).
    """
    parts: list[tuple[tuple[str, ...] | None, tuple[str, ...]]] = []
    for chunk in (c.strip() for c in text.split(";")):
        if not chunk:
            continue
        head, sep, tail = chunk.rpartition(":")
        adapters = tuple(a.strip() for a in tail.split("|") if a.strip())
        models = tuple(m.strip() for m in head.split("+")) if sep else None
        if not adapters:
            raise CatalogError(f"{what}: part {chunk!r} names no feed adapter. To fix: e.g. 'spot:gpuhunt'.")
        for model in models or ():
            if model not in PRICE_MODELS:
                raise CatalogError(
                    f"{what}: {model!r} is not a price model ({', '.join(PRICE_MODELS)}). To fix: e.g. "
                    "'on_demand+reserved:aws-bulk;spot:gpuhunt'."
                )
        parts.append((models, adapters))
    if not parts:
        return (FeedPart(models=PRICE_MODELS, adapters=()),)
    named = [m for models, _ in parts for m in models or ()]
    repeated = sorted({m for m in named if named.count(m) > 1})
    rest = tuple(m for m in PRICE_MODELS if m not in named)
    open_parts = [adapters for models, adapters in parts if models is None]
    if repeated or len(open_parts) > 1 or (rest and not open_parts) or (open_parts and not rest):
        problem = (
            f"{', '.join(repeated)} named by two parts"
            if repeated
            else "two parts without price models"
            if len(open_parts) > 1
            else f"no part prices {', '.join(rest)}"
            if rest
            else "a part without price models is left none"
        )
        raise CatalogError(
            f"{what}: {problem}. To fix: give every price model ({', '.join(PRICE_MODELS)}) to exactly "
            "one part, e.g. 'on_demand+reserved:aws-bulk;spot:gpuhunt' or 'gpuhunt'."
        )
    return tuple(
        FeedPart(models=tuple(m for m in PRICE_MODELS if m in (models or rest)), adapters=adapters)
        for models, adapters in parts
    )


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
    parts: tuple[FeedPart, ...] = (FeedPart(models=PRICE_MODELS, adapters=("skypilot",)),)
    """Who prices what (feeds.csv ``feed``, see ``parse_feed_spec``): usually one part owning every
    price model, its adapters tried in order (``lambda-api|skypilot``: the first whose API key is set)."""
    priced_by: tuple[tuple[str, Provenance], ...] = ()
    """(price model, provenance) for the models a refresh took from another feed than this row
    (price-sources.csv); the other models' prices come from this row's source."""

    @property
    def adapters(self) -> tuple[str, ...]:
        """The adapters of a one-part feed (every adapter, in order, of a split one)."""
        return tuple(dict.fromkeys(a for part in self.parts for a in part.adapters))

    @property
    def provenance(self) -> Provenance:
        """This row's own provenance."""
        return Provenance(repo=self.repo, path=self.path, commit=self.commit, as_of=self.as_of)

    def provenance_of(self, pricing: str) -> Provenance:
        """Where the ``pricing`` prices of the raw file come from."""
        return dict(self.priced_by).get(pricing, self.provenance)

    @property
    def source(self) -> str:
        """The offer provenance, e.g. ``skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv@00148f2``."""
        return self.provenance.source


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
        priced_by: dict[str, list[tuple[str, Provenance]]] = {}
        if (self.root / PRICE_SOURCES).is_file():  # generations written before it existed have none
            for row in self.rows(PRICE_SOURCES):
                if row["pricing"] not in PRICE_MODELS:
                    raise CatalogError(
                        f"{PRICE_SOURCES} in {self.root}: pricing {row['pricing']!r} is not one of "
                        f"{', '.join(PRICE_MODELS)}. To fix: correct or drop the row."
                    )
                source = Provenance(
                    repo=row["repo"], path=row["path"], commit=row["commit"], as_of=row["as_of"]
                )
                priced_by.setdefault(row["provider"], []).append((row["pricing"], source))
        return {
            row["provider"]: Feed(
                provider=row["provider"],
                raw_file=row["raw_file"],
                repo=row["repo"],
                path=row["path"],
                commit=row["commit"],
                as_of=row["as_of"],
                refreshable=row["refreshable"] == "yes",
                parts=parse_feed_spec(row.get("feed", "skypilot"), what=f"feeds.csv {row['provider']} feed"),
                priced_by=tuple(sorted(priced_by.get(row["provider"], []), key=lambda item: item[0])),
            )
            for row in self.rows("feeds.csv")
        }
