"""The construct side of ``computeops.lock.json``: a synth emits the locked placement, not today's pick.

On synth a workload whose lock entry matches its intent and pins gets the locked placement, after it is
re-checked against every hard constraint on the current catalog (``engine.placement_of``); one that a
constraint now rejects fails synth with the rule and the numbers. No entry, a changed intent or pin,
or a relock asked for (``COMPUTEOPS_RELOCK=1``) decides afresh and writes the entry. The record beside
the stack says which happened (``Decision.lock``).

The entry also records the machine image the target boots (``Target.image_reference``), kept across
library upgrades until a relock; an older entry without one gets it on its next synth.

Where the lockfile is (``lock`` prop, default): ``COMPUTEOPS_LOCKFILE`` when set (``off`` disables it),
else ``computeops.lock.json`` in ``app_directory()`` when that holds ``cdktf.json``, else none.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsii
from constructs import IValidation

from .. import _compat
from .._version import __version__
from ..accounts import Accounts, sha256_label
from ..catalog import HOURS_PER_MONTH, Catalog
from ..engine import Calibration, Decision, LockedPlacement, Pin, Placement, placement_of
from ..engine._drift import pin_gone
from ..engine._explain import compare
from ..errors import LockedPlacementError, PinnedPlacementError, TargetError, described
from ..intent import WorkloadIntent
from ..lockfile import LOCKFILE_NAME, LockEntry, Lockfile, Pins, editing, estimate_of
from ._app import app_directory

__all__ = [
    "LOCKFILE_ENV",
    "RELOCK_ENV",
    "apply_lock",
    "emitted_placement",
    "lockfile_path",
    "report_stale_entries",
]

LOCKFILE_ENV = "COMPUTEOPS_LOCKFILE"
RELOCK_ENV = "COMPUTEOPS_RELOCK"
_OFF = frozenset({"", "0", "off", "false", "no", "none"})


def lockfile_path(prop: str | os.PathLike[str] | bool | None, where: str) -> Path | None:
    """The lockfile a workload uses (module docstring), or None for no lock."""
    if prop is False:
        return None
    if isinstance(prop, str | os.PathLike) and not isinstance(prop, bool):
        if not str(prop).strip():
            raise TargetError(
                f"[{where}] 'lock' is empty. To fix: give a path, False for no lock, or leave it out"
            )
        return Path(prop)
    if prop is not None and prop is not True:
        raise TargetError(
            f"[{where}] 'lock' must be a path, True or False (got {described(prop)}). "
            "To fix: e.g. lock='computeops.lock.json', or leave it out for the app directory's lockfile"
        )
    env = os.environ.get(LOCKFILE_ENV)
    if env is not None:
        return None if env.strip().lower() in _OFF else Path(env)
    here = app_directory()
    if prop is True or (here / "cdktf.json").is_file():
        return here / LOCKFILE_NAME
    return None


def _relock_requested(workload: str) -> bool:
    value = os.environ.get(RELOCK_ENV, "").strip()
    if value.lower() in _OFF:
        return False
    if value in ("1", "true", "yes", "all"):
        return True
    return workload in {w.strip() for w in value.split(",")}  # COMPUTEOPS_RELOCK=stack/workload,...


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _key(p: Placement) -> tuple[str, str, str, str]:
    return (p.provider, p.instance_type, p.region, p.pricing)


def _sized_as_locked(current: Placement, locked: LockedPlacement) -> Placement:
    """Today's placement of the locked offer, kept at the locked size (a fleet never resizes by itself)."""
    if current.instances == locked.instances:
        return current
    ratio = locked.instances / current.instances
    hourly = round(current.hourly_usd * ratio, 4)
    return dataclasses.replace(
        current,
        instances=locked.instances,
        hourly_usd=hourly,
        monthly_usd=round(current.monthly_usd * ratio, 2),
    )


def emitted_placement(decision: Decision) -> Placement:
    """What the target emits: the chosen placement, with the lock's own figures when it came from the
    lock, so a changed price alone never changes the synthesized Terraform (outputs, price ceilings).
    The decision record keeps today's figures."""
    chosen = decision.chosen
    assert chosen is not None
    if decision.lock is None or decision.lock.get("status") != "locked":
        return chosen
    locked = LockedPlacement.from_dict(decision.lock["placement"])
    return dataclasses.replace(
        chosen,
        instances=locked.instances,
        hourly_usd=locked.hourly_usd,
        monthly_usd=round(locked.hourly_usd * HOURS_PER_MONTH, 2),
        unit_cost=locked.unit_cost,
    )


def apply_lock(
    *,
    path: Path,
    workload: str,
    intent: WorkloadIntent,
    pins: Pins,
    pin: Pin,
    catalog: Catalog,
    fresh: Callable[[tuple[Calibration, ...], bool], Decision],
    accounts: Accounts | None = None,
    image_of: Callable[[Placement], Mapping[str, str] | None] = lambda placement: None,
) -> Decision:
    """The workload's decision under ``path``'s lock: the locked placement, or a fresh one written to it.

    The fresh decision applies the efficiencies production measured (the lockfile's observations);
    ``fresh(calibrations, locked)`` is told whether the entry holds (then a region or accelerator of
    the intent that the catalog dropped matches nothing, with a warning, instead of stopping synth).
    ``image_of`` names the image the target boots a placement on (recorded in the entry); default:
    none. The lockfile is read and written under ``lockfile.editing``."""
    with editing(path):
        lockfile = Lockfile.read(path)
        calibrations = lockfile.calibrations()
        entry = lockfile.workloads.get(workload)
        holds = entry is not None and entry.matches(intent, pins) and not _relock_requested(workload)
        if entry is not None and holds:
            gone = pin_gone(pin, catalog)  # the locked offer went with its pinned region or provider
            if gone is not None:
                prop = gone.rule.removeprefix("pin.")
                raise _infeasible(
                    entry,
                    path,
                    workload,
                    catalog.version,
                    gone.rule,
                    [(gone.rule, gone.message)],
                    fix=f"To fix: give the workload a {prop} prop the catalog lists (the next synth "
                    "decides afresh and writes the entry), or synthesize over a catalog that has it",
                )
        decision = fresh(calibrations, holds)
        assert decision.chosen is not None
        if entry is not None and holds:
            kept = _locked(
                decision,
                entry,
                path=path,
                workload=workload,
                pin=pin,
                catalog=catalog,
                calibrations=calibrations,
                accounts=accounts,
            )
            assert kept.chosen is not None
            image = entry.image
            if image is None and (image := image_of(kept.chosen)) is not None:
                # An entry from before images were recorded: record the image it boots now, once.
                lockfile.with_entry(workload, dataclasses.replace(entry, image=image)).write()
            return dataclasses.replace(kept, lock={**(kept.lock or {}), "image": _shown(image)})
        status = "written" if entry is None else "relocked"
        chosen = decision.chosen
        image = image_of(chosen)
        locked = LockedPlacement.from_placement(
            chosen,
            locked_at=_now(),
            catalog_version=decision.catalog_version,
            catalog_sha256=decision.catalog_sha256,
        )
        lockfile.with_entry(
            workload,
            LockEntry(
                intent=intent,
                pins=pins,
                placement=locked,
                engine_version=__version__,
                estimate=estimate_of(chosen.estimate),
                observations=entry.observations if entry is not None and entry.matches(intent, pins) else (),
                accounts_sha256=accounts.sha256 if accounts is not None else None,
                image=image,
            ),
        ).write()
        return dataclasses.replace(
            decision,
            lock={
                "status": status,
                "file": str(path),
                "workload": workload,
                "locked_at": locked.locked_at,
                "image": _shown(image),
            },
        )


def _shown(image: Mapping[str, str] | None) -> dict[str, str] | None:
    return dict(sorted(image.items())) if image is not None else None


def _locked(
    decision: Decision,
    entry: LockEntry,
    *,
    path: Path,
    workload: str,
    pin: Pin,
    catalog: Catalog,
    calibrations: tuple[Calibration, ...],
    accounts: Accounts | None,
) -> Decision:
    locked = entry.placement
    try:
        current = placement_of(
            entry.intent,
            provider=locked.provider,
            instance_type=locked.instance_type,
            region=locked.region,
            pricing=locked.pricing,
            catalog=catalog,
            pin=pin,
            calibrations=calibrations,
            accounts=accounts,
            locked=True,
        )
    except PinnedPlacementError as err:
        raise _infeasible(
            entry, path, workload, decision.catalog_version, err.rule, err.reasons, str(err)
        ) from None
    chosen = _sized_as_locked(current, locked)
    fresh = decision.chosen
    assert fresh is not None
    others = tuple(p for p in decision.ranked if _key(p) != _key(chosen))[: len(decision.alternatives)]
    same = _key(fresh) == _key(chosen)
    head = (
        f"Placement from the lock {path.name} (entry {workload!r}, locked {locked.locked_at} on catalog "
        f"{locked.catalog_version}): {locked.name}, re-checked against every hard constraint on catalog "
        f"{decision.catalog_version}: {chosen.hourly_usd:,.2f} USD/h now "
        f"(locked at {locked.hourly_usd:,.2f})."
    )
    now_sha256 = accounts.sha256 if accounts is not None else None
    if now_sha256 != entry.accounts_sha256:
        head += (
            f" The accounts file changed since the lock ({sha256_label(entry.accounts_sha256)} -> "
            f"{sha256_label(now_sha256)}): the lock holds, re-checked under today's accounts."
        )
    if same:
        head += " A fresh decision today chooses the same placement."
    else:
        head += (
            f" A fresh decision today would choose {fresh.provider} {fresh.instance_type} in {fresh.region} "
            f"({fresh.pricing}); `computeops reevaluate {path.name}` says whether it is worth a move. "
            "The lines below explain today's fresh decision."
        )
    return dataclasses.replace(
        decision,
        chosen=chosen,
        alternatives=others,
        explanation=(head, *decision.explanation),
        trade_off=decision.trade_off if same else compare(chosen, fresh, "locked", "fresh choice"),
        lock={
            "status": "locked",
            "file": str(path),
            "workload": workload,
            "locked_at": locked.locked_at,
            "placement": locked.to_dict(),
            "fresh": None
            if same
            else {
                "provider": fresh.provider,
                "instance_type": fresh.instance_type,
                "region": fresh.region,
                "pricing": fresh.pricing,
                "unit_cost": fresh.unit_cost.to_dict(),
            },
        },
    )


def _infeasible(
    entry: LockEntry,
    path: Path,
    workload: str,
    catalog_version: str,
    rule: str,
    reasons: Sequence[tuple[str, str]],
    text: str = "",
    fix: str = "",
) -> LockedPlacementError:
    """The synth's error for a locked placement a constraint (or a catalog without its pinned
    region) now rejects: the lock, the rules and how to relock on purpose."""
    locked = entry.placement
    why = "; ".join(f"{r}: {message}" for r, message in reasons) or text
    return LockedPlacementError(
        f"[{workload}] the placement locked in {path} ({locked.name}, locked {locked.locked_at} on "
        f"catalog {locked.catalog_version}) is no longer feasible on catalog {catalog_version}: "
        f"{why}. "
        + (
            fix
            or "To fix: relock on purpose (COMPUTEOPS_RELOCK=1 cdktn synth, or "
            f"`computeops lock update {path} --workload {workload}`), or relax the intent's constraint"
        ),
        rule=rule,
        reasons=reasons,
        path=str(path),
    )


@jsii.implements(IValidation)
class _StaleEntries:
    """At synth, when every workload exists: warn about lock entries no workload of the app uses.

    Each workload using a lockfile carries one; only the first (by path) reports, so a warning
    appears once. Entries are reported, never dropped: `computeops lock remove` drops one on purpose.
    """

    def __init__(self, workload: Any, path: Path) -> None:
        self._workload = workload
        self._path = path

    def validate(self) -> list[str]:
        with _compat.framework_for(self._workload):
            return self._validate()

    def _validate(self) -> list[str]:
        kind = type(self._workload)
        peers = [
            node.node.path
            for node in self._workload.node.root.node.find_all()
            if isinstance(node, kind) and getattr(node, "lockfile", None) == self._path
        ]
        if not peers or self._workload.node.path != min(peers):
            return []
        stale = sorted(set(Lockfile.read(self._path).workloads) - set(peers))
        for name in stale:
            _compat.Annotations.of(self._workload).add_warning(
                f"{self._path}: entry {name!r} belongs to no workload of this app; it is kept. To fix: "
                f"`computeops lock remove {self._path} --workload {name}` if that workload is gone for good"
            )
        return []


def report_stale_entries(workload: Any, path: Path) -> None:
    """Have synth warn (once per app and lockfile) about entries of workloads that no longer exist."""
    workload.node.add_validation(_StaleEntries(workload, path))
