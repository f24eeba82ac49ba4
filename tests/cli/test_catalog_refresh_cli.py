"""`computeops catalog refresh / status / build` with a user data directory and a local feed server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.cli import main

ROOT = Path(__file__).resolve().parents[2]
MARKET = ROOT / "data" / "market"
RECORDED = ROOT / "tests" / "catalog" / "recorded"
ONLY = ("--provider", "lambda", "--provider", "nebius")


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-data"
    monkeypatch.setenv("COMPUTEOPS_DATA_DIR", str(folder))
    monkeypatch.delenv("COMPUTEOPS_CATALOG", raising=False)
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["catalog", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _serve(server: HTTPServer, lambda_body: bytes) -> None:
    server.clear()
    server.expect_request("/sky/catalogs/v8/lambda/vms.csv").respond_with_data(
        lambda_body, content_type="text/csv"
    )
    server.expect_request("/sky/catalogs/v8/nebius/vms.csv").respond_with_data(
        (RECORDED / "nebius-vms.csv").read_bytes(), content_type="text/csv"
    )


def test_refresh_then_a_refused_feed_exits_4_and_status_lists_the_refusal(
    httpserver: HTTPServer, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lambda_body = (RECORDED / "lambda-vms.csv").read_bytes()
    _serve(httpserver, lambda_body)
    base = [*ONLY, "--source", str(MARKET), "--base-url", httpserver.url_for("/sky")]
    code, out, _ = run(capsys, "refresh", *base)
    current = data_dir / "current" / "catalog.json"
    assert code == 0
    assert "lambda: updated, 374 -> 374 rows" in out and f"wrote {current}" in out
    assert f"COMPUTEOPS_CATALOG={current}" in out
    cut = b"\r\n".join(lambda_body.split(b"\r\n")[:40]) + b"\r\n"
    _serve(httpserver, cut)
    code, out, err = run(capsys, "refresh", *base)
    assert code == 4
    assert "lambda: refused, kept its last good data (374 rows)\n  rows.dropped: rows 374 -> 5" in out
    assert "note: refused lambda; they keep their last good data." in err and "--accept lambda" in err
    code, out, _ = run(capsys, "status", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["catalog"] == str(current)
    by = {p["provider"]: p for p in doc["providers"]}
    assert by["lambda"]["tier"] == "fresh" and by["lambda"]["rows"] == 374
    assert by["lambda"]["refusals"] == [
        {"provider": "lambda", "check": "rows.dropped", "detail": "rows 374 -> 5 (falls by more than half)"}
    ]
    assert by["coreweave"]["kind"].startswith("hand-kept") and by["coreweave"]["tier"] == "stale"
    assert by["crusoe"]["kind"].startswith("hand-kept")
    code, out, _ = run(capsys, "status")
    assert code == 0 and "rows.dropped: rows 374 -> 5" in out


def test_status_before_any_refresh_reads_the_embedded_catalog(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "status", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["catalog"] == "embedded catalog (no refresh yet)"
    assert {p["last_refresh"] for p in doc["providers"]} == {None}
    assert sum(p["offers"] for p in doc["providers"]) == len(load_catalog().offers)


def test_build_defaults_to_the_user_data_directory_not_the_package(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package = EMBEDDED_CATALOG.read_bytes()
    code, out, _ = run(capsys, "build", "--source", str(MARKET))
    assert code == 0 and out.startswith(f"wrote {data_dir / 'catalog.json'}:")
    assert (data_dir / "catalog.json").read_bytes() == package
    assert EMBEDDED_CATALOG.read_bytes() == package


def test_xdg_data_home_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeops_cdk.catalog._store import data_dir

    monkeypatch.delenv("COMPUTEOPS_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "computeops"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "home" / ".local" / "share" / "computeops"


def test_a_refreshed_catalog_is_used_only_when_pointed_at(
    httpserver: HTTPServer,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _serve(httpserver, (RECORDED / "lambda-vms.csv").read_bytes())
    code, _, _ = run(
        capsys, "refresh", *ONLY, "--source", str(MARKET), "--base-url", httpserver.url_for("/sky")
    )
    assert code == 0
    refreshed = load_catalog(data_dir / "current" / "catalog.json")
    assert refreshed.sha256 != load_catalog().sha256
    code, out, _ = run(capsys, "list", "--provider", "nebius", "--json")
    assert json.loads(out)["catalog"]["sha256"] == load_catalog().sha256  # not pointed at: embedded
    monkeypatch.setenv("COMPUTEOPS_CATALOG", str(data_dir / "current" / "catalog.json"))
    code, out, _ = run(capsys, "list", "--provider", "nebius", "--json")
    assert json.loads(out)["catalog"]["sha256"] == refreshed.sha256


def test_status_says_which_live_feeds_need_a_key_and_whether_it_is_set(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_BILLING_API_KEY", raising=False)
    monkeypatch.setenv("LAMBDA_API_KEY", "do-not-show-0123456789")
    code, out, _ = run(capsys, "status", "--json")
    by = {p["provider"]: p for p in json.loads(out)["providers"]}
    assert code == 0 and "do-not-show-0123456789" not in out
    assert by["gcp"]["needs_key"] == [{"variable": "GOOGLE_BILLING_API_KEY", "set": False}]
    assert by["lambda"]["needs_key"] == [{"variable": "LAMBDA_API_KEY", "set": True}]
    assert by["runpod"]["needs_key"] == [] and by["runpod"]["kind"].startswith("live: RunPod GraphQL API")
    assert by["vast"]["kind"].startswith("live: Vast.ai offer search")
    monkeypatch.setenv("COLUMNS", "400")  # one table row per line
    code, out, _ = run(capsys, "status")
    [gcp] = [line for line in out.splitlines() if line.startswith("│ gcp ")]
    assert code == 0 and "; needs $GOOGLE_BILLING_API_KEY (not set)" in gcp


def test_refresh_without_the_gcp_key_skips_gcp_and_exits_0(
    httpserver: HTTPServer,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GOOGLE_BILLING_API_KEY", raising=False)
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    _serve(httpserver, (RECORDED / "lambda-vms.csv").read_bytes())
    args = ["--provider", "gcp", "--provider", "lambda", "--source", str(MARKET)]
    code, out, err = run(capsys, "refresh", *args, "--base-url", httpserver.url_for("/sky"))
    assert code == 0, err
    assert (
        "gcp: skipped, kept its data (671 rows): no API key\n  gcp-billing needs $GOOGLE_BILLING_API_KEY"
        in out
    )
    assert "lambda: updated, 374 -> 374 rows" in out
