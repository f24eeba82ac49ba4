"""The constructs' lockfile: a changed catalog never moves a locked workload; a changed intent relocks;
a lock that a constraint now rejects fails synth with the rule. Uses the engine's choice for the
support-chat example (a generic-resource target: no binding to load)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import ROOT

from computeops_cdk import load_catalog
from computeops_cdk.catalog import Catalog
from computeops_cdk.errors import LockedPlacementError, LockError, TargetError
from computeops_cdk.lockfile import Lockfile

pytestmark = pytest.mark.synth

INTENT = ROOT / "examples" / "support-chat.yaml"
SCHEMA = json.loads((ROOT / "schemas" / "lock.schema.json").read_text())
WORKLOAD = "chat/workload"


def _synth(outdir: Path, lock: Path | bool, catalog: Catalog | None = None, **props: Any) -> tuple[Any, str]:
    from computeops_cdk._compat import App
    from computeops_cdk.constructs import WorkloadStack

    app = App(outdir=str(outdir))
    stack = WorkloadStack(
        app, "chat", intent=props.pop("intent", INTENT), catalog=catalog, lock=lock, **props
    )
    app.synth()
    return stack.workload, (outdir / "stacks" / "chat" / "cdk.tf.json").read_text()


def _record(outdir: Path) -> dict[str, Any]:
    return json.loads((outdir / "stacks" / "chat" / "computeops-decision.json").read_text())  # type: ignore[no-any-return]


def _with_price(catalog: Catalog, key: tuple[str, str, str, str], factor: float | None) -> Catalog:
    """``catalog`` with one offer's price multiplied by ``factor`` (None: the offer removed)."""
    offers = []
    for o in catalog.offers:
        if (o.provider, o.instance_type, o.region, o.pricing) == key:
            if factor is None:
                continue
            o = replace(o, hourly_usd=round((o.hourly_usd or 0) * factor, 4))
        offers.append(o)
    return replace(catalog, offers=tuple(offers), sha256="f" * 64, version="test.changed")


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, str]:
    """The first synth: no lockfile yet, so the engine decides and the entry is written."""
    lock = tmp_path_factory.mktemp("app") / "computeops.lock.json"
    workload, terraform = _synth(tmp_path_factory.mktemp("out"), lock)
    return lock, workload, terraform


def _key(workload: Any) -> tuple[str, str, str, str]:
    p = workload.placement
    return (p.provider, p.instance_type, p.region, p.pricing)


def test_first_synth_writes_a_schema_valid_entry(locked: tuple[Path, Any, str]) -> None:
    lock, workload, _ = locked
    assert workload.decision.lock["status"] == "written"
    document = json.loads(lock.read_text())
    jsonschema.validate(document, SCHEMA)
    entry = document["workloads"][WORKLOAD]
    assert entry["intent_sha256"] == workload.decision.intent_sha256
    assert (entry["placement"]["provider"], entry["placement"]["instance_type"]) == _key(workload)[:2]
    assert entry["placement"]["catalog_sha256"] == load_catalog().sha256
    assert entry["pins"] == {"provider": None, "region": None, "cluster": None}
    # Stable formatting: what is read back writes the same bytes (readable, minimal git diffs).
    assert Lockfile.read(lock).to_json() == lock.read_text()


def test_a_changed_catalog_gives_byte_identical_terraform(
    locked: tuple[Path, Any, str], tmp_path: Path
) -> None:
    lock, first, terraform = locked
    dearer = _with_price(load_catalog(), _key(first), 1.3)
    again, terraform_again = _synth(tmp_path, lock, catalog=dearer)
    assert terraform_again == terraform
    assert _key(again) == _key(first)
    record = _record(tmp_path)
    assert record["lock"]["status"] == "locked"
    assert record["lock"]["fresh"] is not None  # a fresh decision would have moved
    assert record["decision"]["hourly_usd"] == pytest.approx(first.placement.hourly_usd * 1.3, rel=1e-3)
    assert "Placement from the lock" in record["explanation"][0]
    # Without the lock the same catalog change moves the workload: the test above means something.
    unlocked, terraform_unlocked = _synth(tmp_path / "unlocked", False, catalog=dearer)
    assert _key(unlocked) != _key(first) and terraform_unlocked != terraform


def test_a_changed_intent_decides_afresh_and_relocks(locked: tuple[Path, Any, str], tmp_path: Path) -> None:
    lock, _, _ = locked
    copy = tmp_path / "computeops.lock.json"
    copy.write_text(lock.read_text())
    intent = json.loads(json.dumps(__import__("yaml").safe_load(INTENT.read_text())))
    intent["workload"]["serving"]["output_tokens_per_s"] = 5000
    workload, _ = _synth(tmp_path / "out", copy, intent=intent)
    assert workload.decision.lock["status"] == "relocked"
    entry = json.loads(copy.read_text())["workloads"][WORKLOAD]
    assert entry["intent"]["workload"]["serving"]["output_tokens_per_s"] == 5000


def test_a_lock_a_constraint_now_rejects_fails_synth_with_the_rule(
    locked: tuple[Path, Any, str], tmp_path: Path
) -> None:
    lock, first, _ = locked
    before = lock.read_bytes()
    gone = _with_price(load_catalog(), _key(first), None)
    with pytest.raises(LockedPlacementError, match=r"offer\.gone") as err:
        _synth(tmp_path, lock, catalog=gone)
    assert "COMPUTEOPS_RELOCK=1" in str(err.value) and err.value.rule == "offer.gone"
    # Far above the intent's max_hourly_usd of 400: the cap rule, with its numbers.
    capped = _with_price(load_catalog(), _key(first), 20)
    with pytest.raises(LockedPlacementError, match=r"price\.max_hourly.*USD") as err:
        _synth(tmp_path, lock, catalog=capped)
    assert err.value.rule == "price.max_hourly"
    assert lock.read_bytes() == before  # a failed synth changes nothing


def test_relock_on_purpose(
    locked: tuple[Path, Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock, first, _ = locked
    copy = tmp_path / "computeops.lock.json"
    copy.write_text(lock.read_text())
    dearer = _with_price(load_catalog(), _key(first), 1.3)
    monkeypatch.setenv("COMPUTEOPS_RELOCK", "1")
    workload, _ = _synth(tmp_path / "out", copy, catalog=dearer)
    assert workload.decision.lock["status"] == "relocked"
    assert _key(workload) != _key(first)
    assert (
        json.loads(copy.read_text())["workloads"][WORKLOAD]["placement"]["catalog_version"] == "test.changed"
    )


def test_a_corrupt_lockfile_is_an_error_and_left_alone(tmp_path: Path) -> None:
    lock = tmp_path / "computeops.lock.json"
    lock.write_text('{"lockfile_version": 1, "workloads": {"chat/workload": {"intent": 3}}}')
    with pytest.raises(LockError, match=r"workloads\['chat/workload'\]"):
        _synth(tmp_path / "out", lock)
    lock.write_text("{not json")
    with pytest.raises(LockError, match="not valid JSON"):
        _synth(tmp_path / "out", lock)
    assert lock.read_text() == "{not json"


def test_lock_prop_and_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeops_cdk.constructs._lock import lockfile_path

    monkeypatch.delenv("COMPUTEOPS_LOCKFILE")
    monkeypatch.chdir(tmp_path)
    assert lockfile_path(None, "w") is None  # no cdktf.json here: not a CDK app directory
    (tmp_path / "cdktf.json").write_text("{}")
    assert lockfile_path(None, "w") == tmp_path / "computeops.lock.json"
    assert lockfile_path(False, "w") is None
    monkeypatch.setenv("COMPUTEOPS_LOCKFILE", "off")
    assert lockfile_path(None, "w") is None
    with pytest.raises(TargetError, match="'lock' must be a path"):
        lockfile_path(3, "w")  # type: ignore[arg-type]


def test_entries_of_workloads_that_no_longer_exist_are_reported_and_kept(
    locked: tuple[Path, Any, str], tmp_path: Path
) -> None:
    lock, _, _ = locked
    copy = tmp_path / "computeops.lock.json"
    document = json.loads(lock.read_text())
    document["workloads"]["gone/workload"] = document["workloads"][WORKLOAD]
    copy.write_text(json.dumps(document))
    _synth(tmp_path / "out", copy)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    warnings = [a["message"] for stack in manifest["stacks"].values() for a in stack.get("annotations", [])]
    assert [w for w in warnings if "'gone/workload' belongs to no workload" in w]
    assert "gone/workload" in json.loads(copy.read_text())["workloads"]  # reported, not dropped


def test_the_entry_records_the_accounts_and_a_changed_file_keeps_the_lock(tmp_path: Path) -> None:
    # Issue 12: decisions record the accounts file's sha256. A locked entry keeps it; editing the
    # accounts file later does not move the fleet (the lock is re-checked under today's accounts).
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  aws:\n    discounts: [{percent: 10}]\n", encoding="utf-8")
    lock = tmp_path / "app" / "computeops.lock.json"
    first, terraform = _synth(tmp_path / "one", lock, accounts=accounts)
    entry = json.loads(lock.read_text())["workloads"][WORKLOAD]
    jsonschema.validate(json.loads(lock.read_text()), SCHEMA)
    assert entry["accounts_sha256"] == first.decision.accounts["sha256"]
    accounts.write_text("providers:\n  aws:\n    discounts: [{percent: 20}]\n", encoding="utf-8")
    again, terraform_again = _synth(tmp_path / "two", lock, accounts=accounts)
    assert again.decision.lock["status"] == "locked" and terraform_again == terraform
    head = _record(tmp_path / "two")["explanation"][0]
    assert f"accounts file changed since the lock (sha256 {entry['accounts_sha256'][:8]} -> sha256 " in head
    # The entry written without an accounts file records null and says nothing about accounts.
    plain = tmp_path / "plain" / "computeops.lock.json"
    _synth(tmp_path / "three", plain)
    assert json.loads(plain.read_text())["workloads"][WORKLOAD]["accounts_sha256"] is None
    _synth(tmp_path / "four", plain)
    assert "accounts file changed" not in _record(tmp_path / "four")["explanation"][0]


def test_a_catalog_that_drops_what_the_accounts_name_keeps_the_lock_and_warns(tmp_path: Path) -> None:
    # Before: once the catalog no longer listed an instance type the accounts file owns (a refreshed
    # catalog dropping p5.48xlarge), the synth of the locked workload failed with an AccountsError.
    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text(
        "providers:\n  nebius: {}\n  aws:\n    quotas: {eu-north-1: 8}\n"
        "    owned: [{instance_type: p5.48xlarge, region: us-east-1, instances: 2}]\n",
        encoding="utf-8",
    )
    lock = tmp_path / "app" / "computeops.lock.json"
    first, terraform = _synth(tmp_path / "one", lock, accounts=accounts)
    assert first.placement.provider != "aws"
    catalog = load_catalog()
    dropped = replace(
        catalog,
        offers=tuple(
            o for o in catalog.offers if o.instance_type != "p5.48xlarge" and o.region != "eu-north-1"
        ),
        instance_types=tuple(t for t in catalog.instance_types if t.name != "p5.48xlarge"),
        regions=tuple(r for r in catalog.regions if (r.provider, r.code) != ("aws", "eu-north-1")),
        sha256="e" * 64,
        version="test.dropped",
    )
    again, terraform_again = _synth(tmp_path / "two", lock, catalog=dropped, accounts=accounts)
    assert again.decision.lock["status"] == "locked" and terraform_again == terraform
    warned = [
        a["message"]
        for stack in json.loads((tmp_path / "two" / "manifest.json").read_text())["stacks"].values()
        for a in stack.get("annotations", [])
        if "catalog test.dropped lists no" in a["message"]
    ]
    assert len(warned) == 2 and all(w.startswith(f"computeops: accounts file {accounts}, ") for w in warned)
    assert (
        "providers.aws.owned[0].instance_type: catalog test.dropped lists no aws instance type" in warned[1]
    )
    assert "providers.aws.quotas.eu-north-1: catalog test.dropped lists no aws region " in warned[0]
    record = _record(tmp_path / "two")["explanation"]
    assert sum("catalog test.dropped lists no" in line for line in record) == 2


def test_a_malformed_pin_in_the_lockfile_fails_synth_instead_of_relocking(
    locked: tuple[Path, Any, str], tmp_path: Path
) -> None:
    # Before: a pin the construct's props never give ("amazon") did not match them, so the synth
    # relocked the entry without a word (status "relocked"), whatever the catalog said that day.
    lock, _, _ = locked
    copy = tmp_path / "computeops.lock.json"
    document = json.loads(lock.read_text())
    document["workloads"][WORKLOAD]["pins"]["provider"] = "amazon"
    copy.write_text(json.dumps(document))
    with pytest.raises(LockError) as info:
        _synth(tmp_path / "out", copy)
    assert str(info.value).startswith(f"{copy}: workloads['chat/workload'].pins.provider: unknown provider")
    assert "To fix:" in str(info.value)
    assert json.loads(copy.read_text()) == document  # nothing written


def test_a_catalog_without_the_pinned_region_fails_the_locked_synth_naming_the_lock(tmp_path: Path) -> None:
    # Before: a TargetError about the 'region' prop ("unknown region"), not naming the lock.
    lock = tmp_path / "app" / "computeops.lock.json"
    first, _ = _synth(tmp_path / "one", lock, provider="nebius", region="us-central1")
    assert first.decision.lock["status"] == "written"
    catalog = load_catalog()
    at = ("nebius", "us-central1")
    dropped = replace(
        catalog,
        offers=tuple(o for o in catalog.offers if (o.provider, o.region) != at),
        regions=tuple(r for r in catalog.regions if (r.provider, r.code) != at),
        sha256="d" * 64,
        version="test.dropped",
    )
    with pytest.raises(LockedPlacementError) as info:
        _synth(tmp_path / "two", lock, catalog=dropped, provider="nebius", region="us-central1")
    message = str(info.value)
    assert info.value.rule == "pin.region"
    assert f"[{WORKLOAD}] the placement locked in {lock} (nebius " in message
    assert (
        "pin.region: catalog test.dropped lists no nebius region 'us-central1', which the lock is " in message
    )
    fix = (
        "To fix: give the workload a region prop the catalog lists (the next synth decides afresh and "
        "writes the entry), or synthesize over a catalog that has it"
    )
    assert message.endswith(fix)


def test_a_catalog_that_drops_a_region_or_accelerator_the_intent_names_keeps_the_lock_and_warns(
    tmp_path: Path,
) -> None:
    # Before: once the catalog no longer listed a region the intent prefers (aws us-east-1) or an
    # accelerator it allows (MI300X), the synth of the locked workload failed with an IntentError
    # (`preferences.regions[0]: unknown region 'aws:us-east-1' in the catalog`).
    intent = tmp_path / "support-chat.yaml"
    intent.write_text(
        INTENT.read_text(encoding="utf-8")
        .replace("preferences:\n", "preferences:\n  regions: [aws:us-east-1]\n")
        .replace(
            "  pricing: [on_demand]\n", "  pricing: [on_demand]\n  accelerators: {allow: [B200, MI300X]}\n"
        ),
        encoding="utf-8",
    )
    lock = tmp_path / "app" / "computeops.lock.json"
    first, terraform = _synth(tmp_path / "one", lock, intent=intent)
    assert first.decision.lock["status"] == "written" and first.placement.provider != "aws"
    catalog = load_catalog()
    gone = {t.name for t in catalog.instance_types if t.accelerator == "MI300X"}
    dropped = replace(
        catalog,
        accelerators=tuple(a for a in catalog.accelerators if a.id != "MI300X"),
        instance_types=tuple(t for t in catalog.instance_types if t.name not in gone),
        offers=tuple(
            o
            for o in catalog.offers
            if o.instance_type not in gone and (o.provider, o.region) != ("aws", "us-east-1")
        ),
        regions=tuple(r for r in catalog.regions if (r.provider, r.code) != ("aws", "us-east-1")),
        sha256="e" * 64,
        version="test.dropped",
    )
    again, terraform_again = _synth(tmp_path / "two", lock, catalog=dropped, intent=intent)
    assert again.decision.lock["status"] == "locked" and terraform_again == terraform
    warned = [
        a["message"]
        for stack in json.loads((tmp_path / "two" / "manifest.json").read_text())["stacks"].values()
        for a in stack.get("annotations", [])
        if "catalog test.dropped lists no" in a["message"]
    ]
    assert len(warned) == 2 and all(w.startswith("computeops: intent 'support-chat', ") for w in warned)
    assert (
        "constraints.accelerators.allow[1]: catalog test.dropped lists no accelerator 'MI300X'" in warned[0]
    )
    assert "preferences.regions[0]: catalog test.dropped lists no region 'aws:us-east-1'" in warned[1]
    assert all("so it matches nothing. To fix: " in w for w in warned)
    record = _record(tmp_path / "two")["explanation"]
    assert sum("catalog test.dropped lists no" in line for line in record) == 2


def test_workload_stack_takes_every_prop_of_compute_workload() -> None:
    # Regression: WorkloadStack repeats ComputeWorkload's keyword props by hand and had dropped
    # `accounts`, so a stack could not be decided under the team's accounts.
    import inspect

    from computeops_cdk.constructs import ComputeWorkload, WorkloadStack

    def props(cls: type) -> dict[str, Any]:
        parameters = inspect.signature(cls.__init__).parameters
        return {n: p.default for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY}

    workload, stack = props(ComputeWorkload), props(WorkloadStack)
    # Documented exceptions: the stack names resources after its id, always configures the provider.
    assert set(workload) - set(stack) == {"name", "configure_provider"}
    assert set(stack) <= set(workload)
    assert all(stack[n] == workload[n] for n in stack if n != "tags")


def test_the_lock_records_the_image_and_keeps_it_until_a_relock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 9: `most_recent = true` moved the AMI between plans. The entry records the exact image;
    # a locked synth boots the recorded one even when the library's default is another release.
    from computeops_cdk.cli import main
    from computeops_cdk.targets.aws import DEFAULT_AMI_NAME

    lock = tmp_path / "computeops.lock.json"
    default = {"ami_name": DEFAULT_AMI_NAME, "ami_owner": "amazon"}

    def ami_name(terraform: str) -> str:
        (ami,) = json.loads(terraform)["data"]["aws_ami"].values()
        filters = ami["filter"]
        (name,) = (f["values"][0] for f in filters if f["name"] == "name")
        return str(name)

    workload, terraform = _synth(tmp_path / "a", lock, provider="aws")
    document = json.loads(lock.read_text())
    jsonschema.validate(document, SCHEMA)
    assert document["workloads"][WORKLOAD]["image"] == default
    assert workload.decision.lock["image"] == default and ami_name(terraform) == DEFAULT_AMI_NAME
    assert _record(tmp_path / "a")["lock"]["image"] == default  # the decision record carries it
    # An older release recorded by an earlier library version stays what the fleet boots.
    older = "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) 20250101"
    document["workloads"][WORKLOAD]["image"] = {"ami_name": older, "ami_owner": "amazon"}
    lock.write_text(json.dumps(document))
    workload, terraform = _synth(tmp_path / "b", lock, provider="aws")
    assert workload.decision.lock["status"] == "locked" and ami_name(terraform) == older
    # An entry from before images were recorded: the image it boots is recorded, nothing else moves.
    document["workloads"][WORKLOAD]["image"] = None
    lock.write_text(json.dumps(document))
    _synth(tmp_path / "c", lock, provider="aws")
    rewritten = json.loads(lock.read_text())["workloads"][WORKLOAD]
    assert rewritten["image"] == default
    assert rewritten["placement"] == document["workloads"][WORKLOAD]["placement"]
    # A relock is the one way the image moves.
    document["workloads"][WORKLOAD]["image"] = {"ami_name": older, "ami_owner": "amazon"}
    lock.write_text(json.dumps(document))
    assert main(["lock", "update", str(lock)]) == 0
    assert f"image {older}:amazon -> {DEFAULT_AMI_NAME}:amazon" in capsys.readouterr().out
    assert json.loads(lock.read_text())["workloads"][WORKLOAD]["image"] == default
