"""Check the intent's catalog names (accelerators, region ids, the pin) and turn them into ids.

Names that need the catalog cannot be checked when the intent is parsed; they are checked here,
before any candidate is considered, with the same IntentError (field path + "did you mean").

A LOCKED workload (``locked=True``: its synth, ``reevaluate``, the drift rules, ``lock update``)
is different: a running fleet never moves by itself, so nothing may fail because the catalog
changed until the user relocks. There a well-formed name the catalog does not list matches nothing
and ``Resolved.unlisted`` says so in a warning line (as ``_accounts.unlisted_names`` does for the
accounts file); a malformed name stays an IntentError.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..catalog import Catalog
from ..catalog._types import ACCELERATOR_ALIAS, REGION_CODE
from ..errors import IntentError, did_you_mean, did_you_mean_text, shown
from ..intent import WorkloadIntent
from ._pin import Pin

__all__ = ["INTENT_UNLISTED", "Resolved", "resolve"]

RegionKey = tuple[str, str]

INTENT_UNLISTED = "Warning: intent "
"""How a line about a name of a locked workload's intent that the catalog does not list begins."""
MAX_INTENT_UNLISTED = 5
"""Unlisted intent names described one by one (with close matches); the rest are counted in one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolved:
    """The intent's catalog names as canonical ids."""

    accelerators: frozenset[str] | None
    """Allowed accelerator ids; None means every accelerator."""
    residency_regions: frozenset[RegionKey] | None
    preferred_regions: tuple[RegionKey, ...]
    pin_provider: str | None
    pin_region: str | None
    unlisted: tuple[str, ...] = ()
    """Warnings about a locked intent's names the catalog does not list (module docstring)."""


def accelerator_key(name: str) -> str:
    """The catalog's matching rule for accelerator names: case, spaces, ``-`` and ``_`` ignored."""
    return "".join(ch for ch in name.lower() if ch not in " -_")


def family_members(name: str, catalog: Catalog) -> tuple[str, ...]:
    """Every accelerator id of the family ``name`` is the bare name of (the id before its first
    ``-``: ``A100`` -> A100-40GB and A100-80GB, ``H100`` -> H100-SXM, H100-PCIe, H100-NVL), in id
    order; empty when ``name`` names no family of two or more variants."""
    key = accelerator_key(name)
    members = sorted(
        a.id for a in catalog.accelerators if accelerator_key(a.id.split("-")[0]) == key and a.id != name
    )
    same = [a.id for a in catalog.accelerators if accelerator_key(a.id) == key]
    found = sorted({*members, *same})
    return tuple(found) if len(found) > 1 else ()


def _accelerators(names: Sequence[str], catalog: Catalog, unlisted: list[str] | None) -> frozenset[str]:
    # A bare family name admits every variant (A100 -> 40GB and 80GB); otherwise the catalog's own
    # lookup, so an alias means the same here as in `computeops catalog list`.
    ids: list[str] = []
    for position, name in enumerate(names):
        family = family_members(name, catalog)
        if family:
            ids.extend(family)
            continue
        found = catalog.find_accelerator(name)
        if found is None and unlisted is not None and re.fullmatch(ACCELERATOR_ALIAS, name):
            unlisted.append(
                f"constraints.accelerators.allow[{position}]: catalog {catalog.version} lists no "
                f"accelerator {shown(name)}"
                f"{did_you_mean_text(did_you_mean(name, catalog.accelerator_names()))}, so it matches "
                "nothing"
            )
            continue
        if found is None:
            raise IntentError(
                f"unknown accelerator {name!r}. To fix: use a catalog id or alias "
                "(computeops catalog accelerators lists them)",
                path=f"constraints.accelerators.allow[{position}]",
                suggestions=did_you_mean(name, catalog.accelerator_names()),
            )
        ids.append(found.id)
    return frozenset(ids)


def _regions(
    region_ids: Sequence[str], catalog: Catalog, *, path: str, unlisted: list[str] | None
) -> tuple[RegionKey, ...]:
    known = {(r.provider, r.code) for r in catalog.regions}
    keys = []
    for position, region_id in enumerate(region_ids):
        provider, _, code = region_id.partition(":")
        if (provider, code) not in known:
            same_provider = sorted(f"{p}:{c}" for p, c in known if p == provider)
            if unlisted is not None and re.fullmatch(REGION_CODE, code):  # compiled only then
                unlisted.append(
                    f"{path}[{position}]: catalog {catalog.version} lists no region {shown(region_id)}"
                    f"{did_you_mean_text(did_you_mean(region_id, same_provider))}, so it matches nothing"
                )
                continue
            raise IntentError(
                f"unknown region {shown(region_id)} in the catalog. To fix: use provider:code as "
                "`computeops catalog list` shows it",
                path=f"{path}[{position}]",
                suggestions=did_you_mean(region_id, same_provider),
            )
        keys.append((provider, code))
    return tuple(keys)


def _check_countries(countries: Sequence[str], catalog: Catalog) -> None:
    # A well-formed code with no region (a typo like 'UA' for 'US', or a country nobody serves)
    # would reject every candidate and bury the cause under thousands of rejections.
    known = sorted({r.country for r in catalog.regions if r.country})
    if countries and not set(countries) & set(known):
        shown = [repr(c) for c in countries[:6]]
        listed = " or ".join(shown) + (f" (and {len(countries) - 6:,} more)" if len(countries) > 6 else "")
        raise IntentError(
            f"no region of the catalog is in {listed}. To fix: use a country the catalog has regions "
            f"in ({', '.join(known)})",
            path="constraints.residency.countries",
        )


def _pin(pin: Pin, catalog: Catalog) -> tuple[str | None, str | None]:
    # Messages are "<what>. To fix: <fix>": callers that name the pin differently (the CLI's
    # --provider, a construct's 'provider' prop) keep <what> and the suggestions, and say their own fix.
    providers = sorted(p.id for p in catalog.providers)
    if pin.provider is not None and pin.provider not in providers:
        raise IntentError(
            f"unknown provider {shown(pin.provider)}. To fix: pin one of {', '.join(providers)}, "
            "or no provider",
            path="pin.provider",
            suggestions=did_you_mean(pin.provider, providers),
        )
    if pin.region is not None:
        codes = sorted({r.code for r in catalog.regions if pin.provider in (None, r.provider)})
        if pin.region not in codes:
            where = f" of provider {pin.provider}" if pin.provider else ""
            listing = (
                f"computeops catalog list --provider {pin.provider}"
                if pin.provider
                else "computeops catalog list"
            )
            raise IntentError(
                f"unknown region {shown(pin.region)}{where}. To fix: pin a region code{where} as "
                f"`{listing}` shows it, or no region",
                path="pin.region",
                suggestions=did_you_mean(pin.region, codes),
            )
    return pin.provider, pin.region


def _warnings(intent: WorkloadIntent, catalog: Catalog, found: list[str]) -> tuple[str, ...]:
    # One line per name, as engine._accounts.unlisted_names words them; at most MAX_INTENT_UNLISTED.
    fix = (
        ". To fix: correct the name, or remove it from the intent if the catalog no longer lists it, "
        "and relock (`computeops lock update`, or COMPUTEOPS_RELOCK=1 for a synth)."
    )
    lines = [f"{INTENT_UNLISTED}{intent.name!r}, {line}{fix}" for line in found[:MAX_INTENT_UNLISTED]]
    if len(found) > MAX_INTENT_UNLISTED:
        lines.append(
            f"{INTENT_UNLISTED}{intent.name!r} names {len(found) - MAX_INTENT_UNLISTED:,} more regions or "
            f"accelerators that catalog {catalog.version} does not list (fix those above first)."
        )
    return tuple(lines)


def resolve(intent: WorkloadIntent, catalog: Catalog, pin: Pin, *, locked: bool = False) -> Resolved:
    """Resolve every catalog name in ``intent`` and ``pin``; IntentError on the first unknown one
    (``locked``: a well-formed unlisted name is a warning instead, module docstring)."""
    unlisted: list[str] | None = [] if locked else None
    constraints = intent.constraints
    allow = constraints.accelerators.allow if constraints.accelerators else None
    residency = constraints.residency
    regions = residency.regions if residency is not None else None
    if residency is not None and residency.countries:
        _check_countries(residency.countries, catalog)
    pin_provider, pin_region = _pin(pin, catalog)
    return Resolved(
        accelerators=_accelerators(allow, catalog, unlisted) if allow is not None else None,
        residency_regions=(
            frozenset(_regions(regions, catalog, path="constraints.residency.regions", unlisted=unlisted))
            if regions is not None
            else None
        ),
        preferred_regions=_regions(
            intent.preferences.regions, catalog, path="preferences.regions", unlisted=unlisted
        ),
        pin_provider=pin_provider,
        pin_region=pin_region,
        unlisted=_warnings(intent, catalog, unlisted) if unlisted else (),
    )
