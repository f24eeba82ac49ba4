"""A refresh's arguments checked before anything is fetched: the market-data folder, the providers
chosen, the ones accepted and the ``--feed`` overrides; each mistake a CatalogRefreshError saying
how to fix it (with a did-you-mean)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from ..errors import CatalogError, CatalogRefreshError, did_you_mean, did_you_mean_text
from ._refresh_adapters import known_adapter
from ._sources import Feed, FeedPart, parse_feed_spec

__all__ = ["accepted_providers", "choose_providers", "feed_overrides", "require_market"]


def require_market(root: Path) -> Path:
    if not (root / "feeds.csv").is_file():
        raise CatalogRefreshError(
            f"{str(root)!r} is not a market-data folder (no feeds.csv). To fix: run from a checkout of "
            "computeops-cdk (its data/market folder) or pass --source DIR; the installed package "
            "carries only the built catalog, not the market data it is built from."
        )
    return root


def choose_providers(feeds: dict[str, Feed], providers: Iterable[str] | None) -> list[str]:
    refreshable = sorted(p for p, f in feeds.items() if f.refreshable)
    if providers is None:
        return refreshable
    chosen = []
    for name in providers:
        if name not in refreshable:
            extra = did_you_mean_text(did_you_mean(name, refreshable))
            raise CatalogRefreshError(
                f"provider {name!r} has no refreshable price feed; refreshable: {', '.join(refreshable)}. "
                f"To fix: choose one of those or edit data/market/feeds.csv{extra}"
            )
        if name not in chosen:
            chosen.append(name)
    return chosen


def feed_overrides(feeds: Mapping[str, str], chosen: list[str]) -> dict[str, tuple[FeedPart, ...]]:
    out: dict[str, tuple[FeedPart, ...]] = {}
    for provider, spec in feeds.items():
        if provider not in chosen:
            raise CatalogRefreshError(
                f"--feed {provider}={spec}: {provider!r} is not refreshed here ({', '.join(chosen)}). "
                f"To fix: name one of those{did_you_mean_text(did_you_mean(provider, chosen))}"
            )
        try:
            out[provider] = parse_feed_spec(spec, what=f"--feed {provider}={spec}")
        except CatalogError as err:
            raise CatalogRefreshError(str(err)) from None
        for part in out[provider]:
            for name in part.adapters:
                known_adapter(provider, spec, name)
    return out


def accepted_providers(accept: Iterable[str], chosen: list[str]) -> set[str]:
    out = set()
    for name in accept:
        if name not in chosen:
            extra = did_you_mean_text(did_you_mean(name, chosen))
            raise CatalogRefreshError(
                f"--accept {name!r} names a provider this refresh does not fetch ({', '.join(chosen)}). "
                f"To fix: accept one of those{extra}"
            )
        out.add(name)
    return out
