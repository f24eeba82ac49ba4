"""`computeops reevaluate` and `computeops lock`: each status from constructed catalogs, exit codes,
the markdown comment pinned by a golden file (``UPDATE_GOLDEN=1`` rewrites it), determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from computeops_cdk.catalog._build import content_sha256
from computeops_cdk.cli import main
from computeops_cdk.engine import LockedPlacement, decide
from computeops_cdk.lockfile import LockEntry, Lockfile, Pins, estimate_of
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = ROOT / "examples" / "support-chat.yaml"
EMBEDDED = ROOT / "src" / "computeops_cdk" / "catalog" / "data" / "catalog.json"
GOLDEN = Path(__file__).parent / "golden" / "reevaluate.md"
LOCK_SCHEMA = json.loads((ROOT / "schemas" / "lock.schema.json").read_text())
NOW = "2026-12-01T12:00:00Z"
OLD = "2026-11-01T00:00:00Z"


def _chosen() -> Any:
    decision = decide(SUPPORT_CHAT, pin=placement_pin(), alternatives=200)
    assert decision.chosen is not None
    return decision


def _lockfile(path: Path, *, locked_at: str = OLD) -> LockedPlacement:
    decision = _chosen()
    locked = LockedPlacement.from_placement(
        decision.chosen,
        locked_at=locked_at,
        catalog_version=decision.catalog_version,
        catalog_sha256=decision.catalog_sha256,
    )
    entry = LockEntry(
        intent=__import__("computeops_cdk").WorkloadIntent.from_file(SUPPORT_CHAT),
        pins=Pins(),
        placement=locked,
        engine_version="test",
        estimate=estimate_of(decision.chosen.estimate),
    )
    Lockfile(path=path).with_entry("chat/workload", entry).write()
    return locked


def _catalog(path: Path, change: Callable[[dict[str, Any]], dict[str, Any] | None]) -> Path:
    """The embedded catalog with ``change`` applied to every offer (None drops it), re-hashed."""
    doc = json.loads(EMBEDDED.read_text())
    doc["offers"] = [o for o in (change(dict(offer)) for offer in doc["offers"]) if o is not None]
    doc["version"] = "2026.12.01.1"
    doc["sha256"] = content_sha256(doc)
    path.write_text(json.dumps(doc))
    return path


def _is(locked: LockedPlacement, offer: dict[str, Any]) -> bool:
    return (offer["provider"], offer["instance_type"], offer["region"], offer["pricing"]) == locked.key


def _scaled(locked: LockedPlacement, factor: float) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def change(offer: dict[str, Any]) -> dict[str, Any]:
        if _is(locked, offer):
            offer["hourly_usd"] = round(offer["hourly_usd"] * factor, 4)
        return offer

    return change


def _threshold(locked: LockedPlacement) -> float:
    """The price factor on the lock at which its cheapest rival (any feasible offer, the same machine in
    another region included) is exactly 10 % cheaper per unit of useful work."""
    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.engine._decide import ranked
    from computeops_cdk.intent import WorkloadIntent

    run = ranked(WorkloadIntent.from_file(SUPPORT_CHAT), load_catalog(), placement_pin())
    rivals = [
        c.unit_cost
        for c in run.feasible
        if (c.row.offer.provider, c.row.offer.instance_type, c.row.offer.region, c.row.offer.pricing)
        != locked.key
    ]
    return min(rivals) / (locked.unit_cost.value * 0.9)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["reevaluate", *argv, "--now", NOW])
    out, err = capsys.readouterr()
    return code, out, err


def _status(out: str) -> list[str]:
    return [w["status"] for w in json.loads(out)["workloads"]]


@pytest.fixture
def lock(tmp_path: Path) -> tuple[Path, LockedPlacement]:
    path = tmp_path / "computeops.lock.json"
    return path, _lockfile(path)


def test_ok_on_the_same_catalog(
    lock: tuple[Path, LockedPlacement], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = lock
    jsonschema.validate(json.loads(path.read_text()), LOCK_SCHEMA)
    code, out, err = _run(capsys, str(path), "--format", "json")
    assert (code, err, _status(out)) == (0, "", ["ok"])


def test_a_price_move_below_and_above_the_hysteresis(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, locked = lock
    below = _catalog(tmp_path / "below.json", _scaled(locked, _threshold(locked) * 0.97))
    code, out, _ = _run(capsys, str(path), "--catalog", str(below), "--format", "json")
    assert (code, _status(out)) == (0, ["price_changed"])
    above = _catalog(tmp_path / "above.json", _scaled(locked, _threshold(locked) * 1.05))
    code, out, _ = _run(capsys, str(path), "--catalog", str(above), "--format", "json")
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"]) == (4, "cheaper")
    assert report["saving_percent"] >= 10 and report["saving_usd_per_month"] > 0
    proposed = report["proposed"]
    assert (
        proposed["provider"],
        proposed["instance_type"],
        proposed["region"],
        proposed["pricing"],
    ) != locked.key
    # A wider hysteresis, or a lock younger than the hold, keeps it.
    code, out, _ = _run(
        capsys, str(path), "--catalog", str(above), "--format", "json", "--hysteresis-percent", "60"
    )
    assert (code, _status(out)) == (0, ["price_changed"])
    young = tmp_path / "young.lock.json"
    _lockfile(young, locked_at="2026-12-01T06:00:00Z")
    code, out, _ = _run(capsys, str(young), "--catalog", str(above), "--format", "json")
    assert (code, _status(out)) == (0, ["price_changed"])
    assert json.loads(out)["workloads"][0]["held"] is True


def test_a_removed_offer_and_a_broken_cap_are_infeasible(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, locked = lock
    gone = _catalog(tmp_path / "gone.json", lambda o: None if _is(locked, o) else o)
    code, out, _ = _run(capsys, str(path), "--catalog", str(gone), "--format", "json")
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"], report["reasons"][0]["rule"]) == (4, "infeasible", "offer.gone")
    assert report["proposed"] is not None
    # support-chat caps the deployment at 400 USD/h: ten times the locked price breaks it.
    capped = _catalog(tmp_path / "capped.json", _scaled(locked, 400 / locked.hourly_usd * 1.5))
    code, out, _ = _run(capsys, str(path), "--catalog", str(capped), "--format", "json")
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"]) == (4, "infeasible")
    rules = [r["rule"] for r in report["reasons"]]
    assert "price.max_hourly" in rules
    assert "USD/h" in next(r["message"] for r in report["reasons"] if r["rule"] == "price.max_hourly")


def test_nothing_feasible_is_exit_3(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = lock

    def dear(offer: dict[str, Any]) -> dict[str, Any]:
        if offer["hourly_usd"] is not None:
            # x50, not x1000: a catalog must stay within physical prices (<= 1000 USD per accelerator-hour)
            offer["hourly_usd"] = offer["hourly_usd"] * 50
        return offer

    code, out, _ = _run(
        capsys, str(path), "--catalog", str(_catalog(tmp_path / "dear.json", dear)), "--format", "json"
    )
    assert (code, _status(out)) == (3, ["infeasible"])
    assert json.loads(out)["workloads"][0]["proposed"] is None


def test_markdown_comment_is_pinned_by_a_golden_file(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, locked = lock
    above = _catalog(tmp_path / "above.json", _scaled(locked, _threshold(locked) * 1.05))
    second = tmp_path / "second.lock.json"
    _lockfile(second)
    code, out, _ = _run(capsys, str(path), str(second), "--catalog", str(above), "--format", "markdown")
    assert code == 4
    text = out.replace(str(tmp_path), "<tmp>")
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), (
        "the PR comment changed: review it, then UPDATE_GOLDEN=1 rewrites the golden"
    )
    assert text.startswith("<!-- computeops-reevaluate -->\n### computeops reevaluate: 2 of 2")
    assert text.count("<details>") == 2 and NOW not in text  # no clock: a bot updates one comment


def test_same_bytes_across_processes(lock: tuple[Path, LockedPlacement]) -> None:
    path, _ = lock
    outs = {
        subprocess.run(
            [
                sys.executable,
                "-m",
                "computeops_cdk.cli",
                "reevaluate",
                str(path),
                "--format",
                "json",
                "--now",
                NOW,
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=False,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1 and '"status": "ok"' in outs.pop()


def test_a_decision_record_can_be_reevaluated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decide", str(SUPPORT_CHAT), "--format", "json"]) == 0
    record = tmp_path / "computeops-decision.json"
    record.write_text(capsys.readouterr().out)
    code, out, _ = _run(capsys, str(record), "--format", "json")
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"]) == (0, "ok")
    assert "no lock time" in report["notes"][0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.lock.json"], "is not a file"),
        (["{bad}"], "not valid JSON"),
        (["[]"], "neither a lockfile"),
    ],
)
def test_invalid_input_is_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    target = tmp_path / "input.json"
    if argv[0] != "missing.lock.json":
        target.write_text(argv[0])
    code, _, err = _run(capsys, str(target) if argv[0] != "missing.lock.json" else str(tmp_path / argv[0]))
    assert code == 2 and message in err and "Traceback" not in err


def test_bad_flags_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (["--hysteresis-percent", "-5"], ["--hysteresis-percent", "nan"], ["--now", "yesterday"]):
        with pytest.raises(SystemExit) as exit_:
            main(["reevaluate", *flags])
        assert exit_.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_lock_update_relocks_and_remove_drops(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, locked = lock
    above = _catalog(tmp_path / "above.json", _scaled(locked, _threshold(locked) * 1.05))
    assert main(["lock", "list", str(path)]) == 0
    assert "chat/workload: " in capsys.readouterr().out
    assert main(["lock", "update", str(path), "--catalog", str(above)]) == 0
    assert "->" in capsys.readouterr().out
    entry = json.loads(path.read_text())["workloads"]["chat/workload"]
    assert entry["placement"]["catalog_version"] == "2026.12.01.1"
    placed = entry["placement"]
    assert (placed["provider"], placed["instance_type"], placed["region"], placed["pricing"]) != locked.key
    # After relocking on purpose, the same catalog says ok: no flapping.
    code, out, _ = _run(capsys, str(path), "--catalog", str(above), "--format", "json")
    assert (code, _status(out)) == (0, ["ok"])
    assert main(["lock", "update", str(path), "--workload", "chat/worklod"]) == 2
    assert "did you mean 'chat/workload'" in capsys.readouterr().err
    assert main(["lock", "remove", str(path), "--workload", "chat/workload"]) == 0
    assert json.loads(path.read_text())["workloads"] == {}


def test_locks_are_rechecked_under_the_teams_accounts(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, locked = lock
    accounts = tmp_path / "computeops.accounts.yaml"
    others = sorted({"aws", "gcp", "azure", "lambda", "runpod", "nebius"} - {locked.provider})
    accounts.write_text("version: 1\nproviders:\n" + "".join(f"  {p}: {{}}\n" for p in others))
    code, out, _ = _run(capsys, str(path), "--format", "json", "--accounts", str(accounts))
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"]) == (4, "infeasible")
    assert "account.not_enabled" in [r["rule"] for r in report["reasons"]]
    assert report["proposed"]["provider"] in others


def test_reevaluate_notes_an_accounts_file_changed_since_the_lock(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = lock  # locked without an accounts file
    _, out, _ = _run(capsys, str(path), "--format", "json")
    assert not any("accounts file changed" in n for n in json.loads(out)["workloads"][0]["notes"])
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  nebius: {}\n  runpod: {}\n  aws: {}\n", encoding="utf-8")
    _, out, _ = _run(capsys, str(path), "--format", "json", "--accounts", str(accounts))
    notes = json.loads(out)["workloads"][0]["notes"]
    assert any(n.startswith("the accounts file changed since the lock (none -> sha256 ") for n in notes)


def test_a_catalog_that_drops_what_the_accounts_name_is_reevaluated_with_a_warning(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: exit 2 (an AccountsError naming the entry) once the catalog no longer listed the
    # instance type the accounts file owns; the lock could not be re-evaluated at all.
    path, locked = lock
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text(
        f"providers:\n  {locked.provider}: {{}}\n  aws:\n"
        "    owned: [{instance_type: p5.48xlarge, region: us-east-1, instances: 2}]\n",
        encoding="utf-8",
    )
    doc = json.loads(EMBEDDED.read_text())
    doc["offers"] = [o for o in doc["offers"] if o["instance_type"] != "p5.48xlarge"]
    doc["instance_types"] = [t for t in doc["instance_types"] if t["name"] != "p5.48xlarge"]
    doc["version"] = "2026.12.01.2"
    doc["sha256"] = content_sha256(doc)
    dropped = tmp_path / "dropped.json"
    dropped.write_text(json.dumps(doc))
    argv = [str(path), "--catalog", str(dropped), "--accounts", str(accounts)]
    code, out, err = _run(capsys, *argv, "--format", "json")
    report = json.loads(out)["workloads"][0]
    assert (code, report["status"], err) == (0, "ok", "")
    (line,) = [d for d in report["detail"] if "p5.48xlarge" in d]
    assert line.startswith(f"Warning: accounts file {accounts}, providers.aws.owned[0].instance_type: ")
    assert "catalog 2026.12.01.2 lists no aws instance type 'p5.48xlarge'" in line
    assert "so this owned capacity prices nothing" in line
    code, out, _ = _run(capsys, *argv, "--format", "markdown")
    assert code == 0 and "lists no aws instance type" in out
    # lock update says it on stderr, and relocks
    assert main(["lock", "update", str(path), "--catalog", str(dropped), "--accounts", str(accounts)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("chat/workload: relocked on catalog 2026.12.01.2")
    assert err.startswith(f"warning: accounts file {accounts}, providers.aws.owned[0].instance_type: ")
    assert err.count("\n") == 1


def _entry(intent: Any) -> LockEntry:
    decision = decide(intent, pin=placement_pin())
    assert decision.chosen is not None
    return LockEntry(
        intent=intent,
        pins=Pins(),
        placement=LockedPlacement.from_placement(
            decision.chosen,
            locked_at=OLD,
            catalog_version=decision.catalog_version,
            catalog_sha256=decision.catalog_sha256,
        ),
        engine_version="test",
        estimate=estimate_of(decision.chosen.estimate),
    )


def _without_mi300x(path: Path) -> Path:
    doc = json.loads(EMBEDDED.read_text())
    gone = {t["name"] for t in doc["instance_types"] if t["accelerator"] == "MI300X"}
    doc["accelerators"] = [a for a in doc["accelerators"] if a["id"] != "MI300X"]
    doc["instance_types"] = [t for t in doc["instance_types"] if t["name"] not in gone]
    doc["offers"] = [o for o in doc["offers"] if o["instance_type"] not in gone]
    doc["version"] = "2026.12.01.3"
    doc["sha256"] = content_sha256(doc)
    path.write_text(json.dumps(doc))
    return path


def test_a_catalog_that_drops_an_accelerator_an_intent_names_is_judged_entry_by_entry(
    lock: tuple[Path, LockedPlacement], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: exit 2 for the whole lockfile (`constraints.accelerators.allow[3]: unknown accelerator
    # 'MI300X'`), naming neither the lockfile nor the entry, one entry blocking every other.
    from computeops_cdk import WorkloadIntent

    path, _ = lock
    lora = WorkloadIntent.from_file(ROOT / "examples" / "lora-finetune.yaml")
    assert "MI300X" in lora.constraints.accelerators.allow  # type: ignore[union-attr]
    only = WorkloadIntent.from_dict(
        {
            **lora.to_dict(),
            "name": "mi300x-only",
            "constraints": {**lora.to_dict()["constraints"], "accelerators": {"allow": ["MI300X"]}},
        }
    )
    lockfile = Lockfile.read(path).with_entry("lora/workload", _entry(lora))
    lockfile.with_entry("only/workload", _entry(only)).write()
    dropped = _without_mi300x(tmp_path / "dropped.json")
    code, out, err = _run(capsys, str(path), "--catalog", str(dropped), "--format", "json")
    report = {w["workload"]: w for w in json.loads(out)["workloads"]}
    assert (code, err) == (3, "")  # one entry is infeasible with nothing to move to: exit 3, never 2
    assert report["chat/workload"]["status"] == "ok"
    assert report["lora/workload"]["status"] != "infeasible"  # H100, H200 and A100-80GB still allowed
    (line,) = [d for d in report["lora/workload"]["detail"] if d.startswith("Warning: intent ")]
    assert line.startswith(
        "Warning: intent 'lora-finetune', constraints.accelerators.allow[3]: catalog 2026.12.01.3 lists "
        "no accelerator 'MI300X'"
    )
    assert report["only/workload"]["status"] == "infeasible"
    assert any("lists no accelerator 'MI300X'" in d for d in report["only/workload"]["detail"])
    assert not any("Warning: intent" in d for d in report["chat/workload"]["detail"])
    # lock update relocks the entry that keeps a feasible placement, saying so on stderr
    argv = ["lock", "update", str(path), "--catalog", str(dropped), "--workload", "lora/workload"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith("lora/workload: relocked on catalog 2026.12.01.3")
    assert err == f"warning: {line.removeprefix('Warning: ')}\n"
