"""Corrupt lockfiles read by ``computeops reevaluate`` / ``lock`` (red team, after issue 10 section 2):
what lock.schema.json refuses is an exit-2 error naming the field, not a lock read another way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_reevaluate_cli import ROOT, _lockfile

from computeops_cdk.cli import main


def _corrupt(tmp_path: Path, text: Any) -> Path:
    path = tmp_path / "computeops.lock.json"
    _lockfile(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(text(document), encoding="utf-8")
    return path


def _with_placement(field: str, value: object) -> Any:
    def text(document: dict[str, Any]) -> str:
        document["workloads"]["chat/workload"]["placement"][field] = value
        return json.dumps(document)

    return text


def _with_pin(field: str, value: object) -> Any:
    def text(document: dict[str, Any]) -> str:
        document["workloads"]["chat/workload"]["pins"][field] = value
        return json.dumps(document)

    return text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # true == 1 in Python: a lockfile_version of true was read as version 1
        (lambda d: json.dumps({**d, "lockfile_version": True}), "lockfile_version True is not 1"),
        # a key given twice: the last one silently won
        (lambda d: json.dumps(d)[:-1] + ', "lockfile_version": 1}', "'lockfile_version' appears twice"),
        # a price model the schema's enum refuses was reported as drift (exit 4: relock it)
        (_with_placement("pricing", "free"), "placement.pricing: must be one of on_demand, spot, reserved"),
        # an unknown provider, and identifiers the catalog would refuse, were drift "infeasible" (exit 4)
        (_with_placement("provider", "amazon"), "placement.provider: unknown provider 'amazon'"),
        (_with_placement("provider", "lamda"), "(did you mean 'lambda'?)"),
        (
            _with_placement("region", "${var.region}"),
            "placement.region: '${var.region}' is not a region code",
        ),
        (_with_placement("region", "us-east-1\n"), "placement.region: 'us-east-1\\n' is not a region code"),
        (
            _with_placement("instance_type", 'p5.48xlarge"'),
            "placement.instance_type: 'p5.48xlarge\"' is not an instance type name",
        ),
        # pins were not checked: reevaluate stopped on "pin.provider: unknown provider" without naming
        # the lockfile, lock list read them, and a synth relocked the entry without a word
        (
            _with_pin("provider", "amazon"),
            "workloads['chat/workload'].pins.provider: unknown provider 'amazon'",
        ),
        (_with_pin("provider", "Nebius"), "unknown provider 'Nebius' (did you mean 'nebius'?)"),
        (
            _with_pin("region", '${file("/etc/passwd")}'),
            "workloads['chat/workload'].pins.region: '${file(\"/etc/passwd\")}' is not a region code",
        ),
        # a cluster pin was any string, and an unknown pin key was read and ignored
        (
            _with_pin("cluster", '${file("/etc/passwd")}'),
            "workloads['chat/workload'].pins.cluster: cluster '${file(\"/etc/passwd\")}' holds Terraform "
            "template syntax",
        ),
        (
            _with_pin("cluster", "%{ if true }x%{ endif }"),
            ".pins.cluster: cluster '%{ if true }x%{ endif }' holds",
        ),
        (_with_pin("cluster", "a\u0000"), ".pins.cluster: cluster 'a\\x00' holds a control character"),
        (_with_pin("cluster", "c" * 1_000_000), ".pins.cluster: a cluster of 1,000,000 characters is longer"),
        (_with_pin("cluster", [1]), ".pins.cluster: must be a non-empty string or null"),
        (
            _with_pin("zone", "x"),
            "workloads['chat/workload'].pins: unknown pin 'zone'; a pin is provider, region",
        ),
    ],
    ids=[
        "version-true",
        "duplicate-key",
        "unknown-pricing",
        "unknown-provider",
        "misspelt-provider",
        "interpolated-region",
        "newline-region",
        "quoted-instance-type",
        "unknown-pin-provider",
        "misspelt-pin-provider",
        "interpolated-pin-region",
        "interpolated-pin-cluster",
        "directive-pin-cluster",
        "nul-pin-cluster",
        "huge-pin-cluster",
        "list-pin-cluster",
        "unknown-pin-key",
    ],
)
def test_what_the_schema_refuses_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: Any, message: str
) -> None:
    path = _corrupt(tmp_path, text)
    for argv in (["reevaluate", str(path), "--now", "2026-12-01T12:00:00Z"], ["lock", "list", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
        if ".pins." in message:  # the file, the entry and how to fix
            assert f"error: {path}: workloads['chat/workload'].pins." in err and "To fix:" in err


def test_lock_schema_says_the_same_as_the_reader() -> None:
    # One source of truth: lock.schema.json's placement uses the catalog's provider ids and patterns.
    from computeops_cdk.catalog import PROVIDER_IDS
    from computeops_cdk.schemas import load_schema

    catalog = load_schema("catalog")["$defs"]
    lock = load_schema("lock")
    placement = lock["$defs"]["entry"]["properties"]["placement"]["properties"]
    assert placement["provider"]["enum"] == list(PROVIDER_IDS) == catalog["provider_id"]["enum"]
    assert placement["region"]["pattern"] == catalog["region_code"]["pattern"]
    assert placement["instance_type"]["pattern"] == catalog["instance_type_name"]["pattern"]
    pins = lock["$defs"]["entry"]["properties"]["pins"]["properties"]
    assert pins["provider"]["oneOf"][0]["enum"] == list(PROVIDER_IDS)
    assert pins["region"]["oneOf"][0]["pattern"] == catalog["region_code"]["pattern"]


def test_a_pinned_region_the_catalog_dropped_is_an_infeasible_lock(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: exit 2, "pin.region: unknown region 'us-east-9' of provider nebius. To fix: pin ...",
    # naming neither the lockfile nor the lock. The region is well-formed: the lock's offer is gone
    # with it, which is drift (infeasible, nothing inside the pin: exit 3), not bad input.
    path = _corrupt(tmp_path, _with_pin("region", "us-central9"))
    assert main(["reevaluate", str(path), "--now", "2026-12-01T12:00:00Z", "--format", "json"]) == 3
    report = json.loads(capsys.readouterr().out)["workloads"][0]
    assert report["status"] == "infeasible" and report["proposed"] is None
    assert [r["rule"] for r in report["reasons"]] == ["pin.region"]
    message = report["reasons"][0]["message"]
    assert "lists no region 'us-central9', which the lock is pinned to (did you mean " in message
    assert "'us-central1'" in message and message.endswith(": the locked offer is gone")


@pytest.mark.parametrize(
    ("pin", "message"),
    [
        ({"provider": "amazon"}, "pin.provider: unknown provider 'amazon'"),
        ({"region": "us-east-1${x}"}, "pin.region: 'us-east-1${x}' is not a region code"),
        ({"provider": 7}, "pin.provider: must be a non-empty string or null (got int 7)"),
    ],
)
def test_a_decision_records_malformed_pin_is_exit_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pin: dict[str, Any], message: str
) -> None:
    # Before: "pin.provider: unknown provider 'amazon'. To fix: pin one of ...", not naming the record.
    from computeops_cdk.engine import decide
    from computeops_cdk.targets import placement_pin

    record = json.loads(decide(ROOT / "examples" / "support-chat.yaml", pin=placement_pin()).to_json())
    record["pin"].update(pin)
    path = tmp_path / "computeops-decision.json"
    path.write_text(json.dumps(record))
    assert main(["reevaluate", str(path), "--now", "2026-12-01T12:00:00Z"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: {message}") and "To fix:" in err


def test_lock_update_of_an_entry_pinned_to_a_dropped_region_names_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "pin.region: unknown region 'us-central9'. To fix: pin a region code ...", naming
    # neither the lockfile nor the entry, with the CLI's --region words for a fix.
    path = _corrupt(tmp_path, _with_pin("region", "us-central9"))
    before = path.read_text()
    assert main(["lock", "update", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"error: {path}: workloads['chat/workload'].pins.region: unknown region 'us-central9'"
    )
    assert "(did you mean " in err and "To fix: change the workload's region prop and synthesize" in err
    assert path.read_text() == before


@pytest.mark.parametrize(
    "cluster",
    [
        "prod",
        "projects/p/locations/us-central1/clusters/gpu",
        "/subscriptions/"
        + "0" * 36
        + "/resourceGroups/"
        + "r" * 90
        + "/providers/Microsoft.ContainerService/managedClusters/"
        + "a" * 63,
        "${TfToken[TOKEN.12]}",
        "x" * 512,
    ],
    ids=["name", "gke-path", "aks-id", "cdktn-token", "longest"],
)
def test_a_cluster_the_construct_takes_is_a_cluster_pin_the_lockfile_reads(cluster: str) -> None:
    from computeops_cdk.lockfile import Pins, cluster_problem

    assert cluster_problem(cluster) is None
    pins = Pins.from_dict({"provider": None, "region": None, "cluster": cluster}, path="p")
    assert pins.cluster == cluster
