"""The team's accounts in a decision: enabled providers, quotas, negotiated rates, owned capacity.

Rules: ``account.not_enabled`` (no account at the provider), ``account.quota`` (the deployment's
accelerators exceed the account's quota in that region). Prices: the most specific negotiated
discount applies to the list price; owned capacity of the same instance type in the same region
costs nothing at the margin up to its size. The decision shows list -> your rate.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import did_you_mean, did_you_mean_text, shown
from ._decision import Placement, Reason

if TYPE_CHECKING:
    from ..accounts import Accounts
    from ..catalog import Catalog

__all__ = [
    "UNLISTED",
    "account_price",
    "account_rules",
    "accounts_line",
    "team_accounts",
    "unlisted_names",
]

_ACCOUNTS_ENV = "COMPUTEOPS_ACCOUNTS"
"""``accounts.ACCOUNTS_ENV`` (a test keeps them equal): without accounts, no accounts import."""


def team_accounts(accounts: Accounts | str | os.PathLike[str] | None) -> Accounts | None:
    """``decide``'s accounts argument: as given, else ``load_accounts`` of the path (or of
    ``$COMPUTEOPS_ACCOUNTS``); None, without importing the accounts module, if neither."""
    if accounts is None and not os.environ.get(_ACCOUNTS_ENV):
        return None
    from ..accounts import Accounts, load_accounts

    return accounts if isinstance(accounts, Accounts) else load_accounts(accounts)


UNLISTED = "Warning: accounts file "
"""How an explanation line about a name the catalog does not list begins (``unlisted_names``)."""
MAX_UNLISTED = 5
"""Unlisted names described one by one (with close matches); the rest are counted in one line."""


_EFFECTS = {
    "quotas": "this quota limits nothing",
    "owned": "this owned capacity prices nothing",
    "discounts": "this discount applies to nothing",
}


def unlisted_names(accounts: Accounts, catalog: Catalog) -> tuple[str, ...]:
    """Warnings, one line each, for the regions, instance types and discount families the accounts
    file names that ``catalog`` does not list at that provider (well-formed names: ``load_accounts``
    refuses the others).

    Not errors, for the reason ``_resolve`` gives for a locked intent: such an entry limits or
    prices nothing, which the line says, with close matches. At most ``MAX_UNLISTED`` lines name an
    entry; one more counts the rest.
    """
    from ..accounts import family_of

    where = f"{accounts.path}, " if accounts.path else ""
    lines: list[str] = []
    missing = 0
    for provider, account in sorted(accounts.providers.items()):
        named = [(f"quotas.{region}", region, "region") for region in account.quotas if region != "*"]
        for i, owned in enumerate(account.owned):
            named.append((f"owned[{i}].region", owned.region, "region"))
            named.append((f"owned[{i}].instance_type", owned.instance_type, "instance type"))
        for i, discount in enumerate(account.discounts):
            if discount.family is not None:
                named.append((f"discounts[{i}].family", discount.family.lower(), "instance family"))
        if not named:
            continue
        types = sorted({t.name for t in catalog.instance_types if t.provider == provider})
        families = any(kind == "instance family" for _, _, kind in named)
        known = {
            "region": sorted({r.code for r in catalog.regions if r.provider == provider}),
            "instance type": types,
            "instance family": sorted({family_of(name) for name in types}) if families else [],
        }
        listed = {kind: set(names) for kind, names in known.items()}
        for entry, name, kind in named:
            if name in listed[kind]:
                continue
            missing += 1
            if missing > MAX_UNLISTED:
                continue
            effect = _EFFECTS[entry.partition("[")[0].partition(".")[0]]
            lines.append(
                f"{UNLISTED}{where}providers.{provider}.{entry}: catalog {catalog.version} lists no "
                f"{provider} {kind} {shown(name)}{did_you_mean_text(did_you_mean(name, known[kind]))}, "
                f"so {effect}. To fix: correct the name, or remove the entry if {provider} no longer "
                "offers it."
            )
    if missing > MAX_UNLISTED:
        lines.append(
            f"{UNLISTED}{where}names {missing - MAX_UNLISTED:,} more regions, instance types or "
            f"families that catalog {catalog.version} does not list (fix those above first)."
        )
    return tuple(lines)


def account_rules(accounts: Accounts, provider: str, region: str, accelerators: int) -> tuple[Reason, ...]:
    """``account.not_enabled`` / ``account.quota`` for a deployment of ``accelerators`` in ``region``."""
    account = accounts.account(provider)
    if account is None:
        enabled = ", ".join(sorted(accounts.providers)) or "none"
        return (
            Reason(
                rule="account.not_enabled",
                message=f"the team has no {provider} account in its accounts file (enabled: {enabled})",
            ),
        )
    quota = account.quota(region)
    if quota is not None and accelerators > quota:
        where = f"{region}" if region in account.quotas else f"{region} (the '*' quota)"
        return (
            Reason(
                rule="account.quota",
                message=(
                    f"the deployment needs {accelerators} accelerators at {provider} {where}; the "
                    f"account's quota there is {quota}"
                ),
            ),
        )
    return ()


def account_price(
    accounts: Accounts,
    provider: str,
    instance_type: str,
    region: str,
    pricing: str,
    price: float,
    instances: int,
) -> tuple[float, str]:
    """``(hourly USD of the deployment at the team's terms, the terms in words or "")``."""
    account = accounts.account(provider)
    if account is None:
        return price * instances, ""
    terms = []
    rate = price
    discount = account.discount(instance_type, pricing)
    if discount is not None and discount.percent:
        rate = price * (1 - discount.percent / 100)
        terms.append(discount.label(provider))
    owned = min(account.owned_instances(instance_type, region), instances)
    if owned:
        terms.append(f"{owned} of {instances} instance(s) already owned, at zero marginal cost")
    return rate * (instances - owned), "; ".join(terms)


def accounts_line(chosen: Placement, accounts: Accounts | None) -> str:
    """The explanation line: the accounts file and, when they differ, list -> your rate."""
    if accounts is None:
        return ""
    where = f"{accounts.path} " if accounts.path else ""
    head = f"Accounts: {where}(sha256 {accounts.sha256[:12]})"
    if chosen.list_hourly_usd is None or not chosen.account_terms:
        return f"{head}: list prices apply to {chosen.provider} {chosen.instance_type}."
    return (
        f"{head}: list {chosen.list_hourly_usd:,.2f} -> your rate {chosen.hourly_usd:,.2f} USD/h "
        f"({chosen.account_terms})."
    )
