"""`computeops catalog ...` in-process: output contracts, exit codes and pinned error messages."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["catalog", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--provider", "lambda", "--accelerator", "H100", "--json")
    assert code == 0
    doc = json.loads(out)
    catalog = load_catalog()
    assert doc["catalog"] == {"version": catalog.version, "as_of": catalog.as_of, "sha256": catalog.sha256}
    keys = {
        "provider",
        "instance_type",
        "accelerator",
        "accelerator_count",
        "region",
        "pricing",
        "hourly_usd",
        "source",
        "as_of",
    }
    assert doc["offers"] and all(set(o) == keys for o in doc["offers"])
    assert {o["provider"] for o in doc["offers"]} == {"lambda"}
    assert {o["accelerator"] for o in doc["offers"]} == {"H100-SXM"}  # the PCIe box is a different id
    eight = next(o for o in doc["offers"] if o["instance_type"] == "gpu_8x_h100_sxm5")
    assert eight["accelerator_count"] == 8


def test_list_table_shows_price_age(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--provider", "coreweave", "--pricing", "on_demand")
    assert code == 0
    assert "hgx-h100-8x" in out and "49.2400" in out
    assert re.search(r"2026-09-20 \(\d+ days? old\)", out)
    assert "unknown" in out  # HGX B300 on-demand is "Contact sales"


def test_list_unknown_provider_exits_2_with_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list", "--provider", "lamda")
    assert code == 2 and out == ""
    assert err == (
        "error: unknown provider 'lamda' (did you mean 'lambda'?). To fix: use one of aws, gcp, azure, oci, "
        "coreweave, lambda, nebius, crusoe, runpod, vast.\n"
    )


def test_list_unknown_accelerator_exits_2_with_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--accelerator", "H10")
    assert code == 2
    assert err.startswith("error: unknown accelerator 'H10' (did you mean ")
    assert "'H100'" in err


def test_list_unknown_region_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "list", "--region", "us-east-9")
    assert code == 2
    assert err.startswith("error: unknown region 'us-east-9' (did you mean ")


def test_an_empty_listing_says_the_filters_match_nothing_together(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "list", "--provider", "lambda", "--accelerator", "TPU-v5e", "--json")
    assert code == 0 and json.loads(out)["offers"] == []
    assert err == (
        "note: no offer matches --provider lambda --accelerator TPU-v5e together. To fix: drop one filter "
        "to see what each offers (e.g. `computeops catalog list --accelerator TPU-v5e`).\n"
    )


def test_show_prints_specs_offers_and_age(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "P5.48XLARGE")
    assert code == 0
    assert "aws p5.48xlarge: 8 x H100-SXM" in out
    assert "memory per accelerator: 80 GB" in out
    assert "multi-node fabric: EFA" in out
    assert "us-east-1" in out and "55.0400" in out
    assert re.search(r"2026-11-29 \(\d+ days? old\)", out)


def test_show_json_has_instance_accelerator_and_offers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "tpu-v5p-8", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["instance_type"]["accelerator_count"] == 4
    assert doc["accelerator"]["id"] == "TPU-v5p"
    assert {o["region"] for o in doc["offers"]} >= {"us-east5"}


def test_show_prints_the_attestations_with_their_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 11: `catalog show` prints the provider's attestations, their evidence grade and source
    code, out, _ = run(capsys, "show", "p5.48xlarge")
    assert code == 0
    assert "aws attestations" in out and "only provider_claimed satisfies a constraint" in out
    assert re.search(r"gdpr\s*│\s*provider_claimed", out)
    assert "aws-data-processing-addendum-dpa" in out
    assert re.search(r"fedramp_high\s*│\s*provider_claimed\s*│\s*us-gov-east-1, us-gov-west-1", out)
    code, out, _ = run(capsys, "show", "p5.48xlarge", "--json")
    doc = json.loads(out)
    gdpr = next(a for a in doc["attestations"] if a["scope"] == "gdpr")
    assert gdpr["evidence"] == "provider_claimed" and gdpr["regions"] is None


def test_show_prints_the_fedramp_service_scope(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 11: FedRAMP is scoped by service; `catalog show` says which services each record
    # covers, what was read and when
    code, out, _ = run(capsys, "show", "tpu-v5p-8")
    assert code == 0
    assert "gcp service scope" in out
    assert re.search(r"fedramp_high\s*│\s*tpu\s*│\s*Cloud TPU\s*│\s*not_in_scope\s*│\s*2026-12-01", out)
    assert re.search(r"fedramp_high\s*│\s*vm\s*│\s*Compute Engine\s*│\s*in_scope\s*│\s*2026-12-01", out)
    # the condition Google's FedRAMP page sets (issue 11 follow-up): printed with the scope
    assert re.search(r"in_scope\s*│\s*2026-12-01\s*│\s*an Assured Workloads folder with the", out)
    code, out, _ = run(capsys, "show", "p5.48xlarge")
    assert re.search(r"fedramp_high\s*│\s*kubernetes\s*│\s*Amazon EKS\s*│\s*in_scope", out)
    code, out, _ = run(capsys, "show", "p5.48xlarge", "--json")
    high = next(a for a in json.loads(out)["attestations"] if a["scope"] == "fedramp_high")
    assert {s["service"]: s["status"] for s in high["services"]} == {
        "vm": "in_scope",
        "kubernetes": "in_scope",
    }


def test_show_unknown_instance_type(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", "p5.48xlarg")
    assert code == 2
    assert err.startswith("error: unknown instance type 'p5.48xlarg' (did you mean 'p5.48xlarge'")
    assert err.rstrip().endswith("To fix: use a name from `computeops catalog list`.")


def test_show_with_the_wrong_provider_says_where_the_type_is(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", "p5.48xlarge", "--provider", "gcp")
    assert code == 2
    assert err == (
        "error: gcp has no instance type 'p5.48xlarge'; aws has one. "
        "To fix: use --provider aws or leave --provider out.\n"
    )


def test_show_with_an_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", "p5.48xlarge", "--provider", "amazon")
    assert code == 2
    assert err.startswith("error: unknown provider 'amazon'") and "To fix: use one of aws, gcp" in err


def test_accelerators_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "accelerators", "--json")
    assert code == 0
    by_id = {a["id"]: a for a in json.loads(out)}
    assert "H100" in by_id["H100-SXM"]["aliases"]
    assert by_id["B200"]["fp4_tflops"] == 9000


def test_validate_embedded_and_user_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "validate")
    assert code == 0 and out.startswith("valid: embedded catalog (version 2026.11.29")
    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["offers"][12]["hourly_usd"] = -3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run(capsys, "validate", str(bad))
    assert code == 2 and out == ""
    assert err.startswith("error: $.offers[12].hourly_usd: -3 is less than the minimum of 0.")


def test_catalog_option_reads_another_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("[]", encoding="utf-8")
    code, _, err = run(capsys, "list", "--catalog", str(broken))
    assert code == 2
    assert err.startswith("error: $: list is not a catalog object.")


def test_build_to_a_file_reproduces_the_embedded_catalog(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "catalog.json"
    code, out, _ = run(capsys, "build", "--source", str(ROOT / "data" / "market"), "--output", str(out_file))
    assert code == 0 and out.startswith(f"wrote {out_file}: version 2026.11.29")
    assert out_file.read_bytes() == EMBEDDED_CATALOG.read_bytes()


def test_build_from_a_missing_folder_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "build", "--source", str(tmp_path / "nowhere"), "--output", str(tmp_path / "c.json")
    )
    assert code == 2
    assert err == (
        f"error: {str(tmp_path / 'nowhere')!r} is not a market-data folder (no meta.csv). The installed "
        "package carries only the built catalog. To fix: run from a checkout of computeops-cdk (its "
        "data/market folder) or pass --source DIR.\n"
    )


def test_build_to_a_directory_exits_2_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "build", "--source", str(ROOT / "data" / "market"), "--output", str(tmp_path)
    )
    assert code == 2 and out == ""
    assert err == (
        f"error: cannot write {str(tmp_path)!r}: it is a directory. Nothing was changed. To fix: give a "
        f"file path, e.g. {str(tmp_path / 'catalog.json')!r}.\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_refresh_unknown_provider_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "refresh", "--provider", "crusoe", "--source", str(ROOT / "data" / "market"))
    assert code == 2
    assert err.startswith(
        "error: provider 'crusoe' has no refreshable price feed; refreshable: aws, azure, gcp, lambda, "
        "nebius, oci, runpod, vast."
    )


@pytest.mark.parametrize("sub", ["list", "show", "accelerators", "validate", "build", "refresh", "status"])
def test_every_subcommand_has_help_with_examples(capsys: pytest.CaptureFixture[str], sub: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["catalog", sub, "--help"])
    assert info.value.code == 0
    assert "example" in capsys.readouterr().out


@pytest.mark.parametrize("missing", ["jsonschema_rs", "jsonschema"])
def test_validate_without_a_schema_library_is_an_installation_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    # Today's review: with jsonschema_rs missing, `catalog validate FILE` was a ModuleNotFoundError
    # traceback (the compiled validator was imported outside the check's try).
    from computeops_cdk.catalog import _schema_check

    doc = json.loads(EMBEDDED_CATALOG.read_text(encoding="utf-8"))
    doc["offers"][12]["hourly_usd"] = -3  # refused: the reference (jsonschema) is asked too
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setitem(sys.modules, missing, None)  # what a missing package looks like to import
    _schema_check._compiled.cache_clear()
    _schema_check._reference.cache_clear()
    try:
        code, out, err = run(capsys, "validate", str(bad))
    finally:
        _schema_check._compiled.cache_clear()
        _schema_check._reference.cache_clear()
    assert (code, out) == (2, "")
    assert err.startswith(f"error: the catalog cannot be checked against its schema: the package '{missing}'")
    assert "installation of computeops-cdk is incomplete. To fix: reinstall computeops-cdk" in err
    assert "Traceback" not in err
