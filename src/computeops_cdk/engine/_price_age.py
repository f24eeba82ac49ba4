"""Price age: how old an offer's price is against the catalog's own date (no clock is read).

Hand-kept prices (``Offer.as_of``) can be months older than the snapshot: a decision shows the
chosen price's age and warns past ``STALE_DAYS``; ``constraints.max_price_age_days`` rejects older
prices outright (rule ``price.stale``).
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache

from ._decision import Placement, Reason

__all__ = ["STALE_DAYS", "age_days", "stale_rule", "stale_warning"]

STALE_DAYS = 7
"""Older than this (days before the catalog's as_of) a price is called stale, as `catalog status` does."""


@lru_cache(maxsize=256)
def age_days(price_as_of: str, catalog_as_of: str) -> int | None:
    """Days between a price's date and the catalog's as_of; None when a date does not parse."""
    try:
        return (date.fromisoformat(catalog_as_of[:10]) - date.fromisoformat(price_as_of[:10])).days
    except ValueError:
        return None


@lru_cache(maxsize=256)
def stale_rule(price_as_of: str, catalog_as_of: str, limit: int | None) -> tuple[Reason, ...]:
    """``price.stale``: the offer's price is more than ``limit`` days older than the catalog."""
    if limit is None:
        return ()
    age = age_days(price_as_of, catalog_as_of)
    if age is None:
        message = f"the price date {price_as_of!r} does not parse, so its age is unknown (limit {limit} days)"
        return (Reason(rule="price.stale", message=message),)
    if age <= limit:
        return ()
    return (
        Reason(
            rule="price.stale",
            message=(
                f"price of {price_as_of} is {age} days older than the catalog (as_of {catalog_as_of}); "
                f"constraints.max_price_age_days allows {limit}"
            ),
        ),
    )


def stale_warning(chosen: Placement, catalog_as_of: str) -> str:
    """An explanation line when the chosen price is stale, else ""."""
    age = age_days(chosen.price_as_of, catalog_as_of)
    if age is None or age <= STALE_DAYS:
        return ""
    return (
        f"Warning: the chosen price is {age} days older than the catalog (as_of {catalog_as_of}; stale "
        f"past {STALE_DAYS} days) and may have moved. To fix: `computeops catalog refresh` and decide with "
        "--catalog on the refreshed file, or refuse old prices with constraints.max_price_age_days."
    )
