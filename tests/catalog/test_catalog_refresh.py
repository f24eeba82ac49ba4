"""Refresh against a local HTTP server serving byte-exact upstream SkyPilot feeds (no internet)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer

from computeops_cdk.catalog._refresh import HttpxTransport, parse_skypilot_vms, refresh_catalog
from computeops_cdk.errors import CatalogError, CatalogRefreshError


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver binds the loopback address explicitly: tests never leave the machine."""
    return ("127.0.0.1", 0)


@pytest.fixture
def market_copy(tmp_path: Path) -> Path:
    """A writable copy of data/market (refresh rewrites it)."""
    target = tmp_path / "market"
    shutil.copytree(MARKET, target)
    return target


FEEDS = {"lambda": "lambda-vms.csv", "nebius": "nebius-vms.csv"}


def _serve(server: HTTPServer, provider: str, body: bytes, status: int = 200) -> None:
    server.expect_request(f"/sky/catalogs/v8/{provider}/vms.csv").respond_with_data(
        body, status=status, content_type="text/csv"
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_refresh_reproduces_the_transcribed_raw_files(
    httpserver: HTTPServer, market_copy: Path, tmp_path: Path
) -> None:
    for provider, name in FEEDS.items():
        _serve(httpserver, provider, (RECORDED / name).read_bytes())
    lines: list[str] = []
    out = tmp_path / "catalog.json"
    result = refresh_catalog(
        market_copy,
        base_url=httpserver.url_for("/sky"),
        output=out,
        as_of="2026-11-30",
        progress=lines.append,
    )
    # The recorded upstream files convert to exactly the rows transcribed in data/market/raw.
    for provider in FEEDS:
        assert (market_copy / "raw" / f"{provider}.csv").read_bytes() == (
            MARKET / "raw" / f"{provider}.csv"
        ).read_bytes()
    assert result.providers == ("lambda", "nebius")
    assert result.rows == {"lambda": 374, "nebius": 21}
    assert f"fetching lambda: {httpserver.url_for('/sky/catalogs/v8/lambda/vms.csv')}" in lines
    doc = json.loads(out.read_text(encoding="utf-8"))
    lambda_offers = [o for o in doc["offers"] if o["provider"] == "lambda"]
    assert {o["as_of"] for o in lambda_offers} == {"2026-11-30"}
    assert {o["source"] for o in lambda_offers} == {
        "skypilot-org/skypilot-catalog catalogs/v8/lambda/vms.csv@master"
    }
    assert doc["sha256"] == result.sha256


def test_a_failing_feed_changes_nothing(httpserver: HTTPServer, market_copy: Path, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", (RECORDED / "lambda-vms.csv").read_bytes())
    _serve(httpserver, "nebius", b"upstream exploded", status=500)
    before = _snapshot(market_copy)
    out = tmp_path / "catalog.json"
    with pytest.raises(CatalogRefreshError) as info:
        refresh_catalog(market_copy, base_url=httpserver.url_for("/sky"), output=out)
    url = httpserver.url_for("/sky/catalogs/v8/nebius/vms.csv")
    assert str(info.value) == (
        f"nebius: could not fetch {url} (HTTP 500). Nothing was changed. "
        "To fix: check the network or --base-url and retry."
    )
    assert _snapshot(market_copy) == before
    assert not out.exists()


@pytest.mark.parametrize("where", ["directory", "under_a_file"])
def test_an_unwritable_output_changes_nothing(
    httpserver: HTTPServer, market_copy: Path, tmp_path: Path, where: str
) -> None:
    _serve(httpserver, "lambda", (RECORDED / "lambda-vms.csv").read_bytes())
    before = _snapshot(market_copy)
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    out = tmp_path if where == "directory" else blocker / "catalog.json"
    with pytest.raises(CatalogError) as info:
        refresh_catalog(
            market_copy,
            providers=["lambda"],
            base_url=httpserver.url_for("/sky"),
            output=out,
            as_of="2026-12-01",  # feeds.csv would change: the staged write must not touch it
        )
    assert str(info.value).startswith(f"cannot write {str(out)!r}")
    assert "Nothing was changed. To fix:" in str(info.value)
    assert _snapshot(market_copy) == before


def test_a_feed_in_the_wrong_format_changes_nothing(
    httpserver: HTTPServer, market_copy: Path, tmp_path: Path
) -> None:
    _serve(httpserver, "lambda", b"<html><body>rate limited</body></html>")
    before = _snapshot(market_copy)
    with pytest.raises(CatalogRefreshError) as info:
        refresh_catalog(
            market_copy, providers=["lambda"], base_url=httpserver.url_for("/sky"), output=tmp_path / "c.json"
        )
    assert "is not a SkyPilot vms.csv (missing columns" in str(info.value)
    assert _snapshot(market_copy) == before


def test_unknown_accelerator_in_a_feed_fails_the_staged_build(
    httpserver: HTTPServer, market_copy: Path, tmp_path: Path
) -> None:
    header = (
        b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n"
    )
    _serve(httpserver, "lambda", header + b"gpu_1x_x9,X9000,1.0,8.0,64.0,1.5,us-east-1,,\r\n")
    before = _snapshot(market_copy)
    with pytest.raises(CatalogRefreshError, match=r"the refreshed data does not build: .*'X9000'"):
        refresh_catalog(
            market_copy, providers=["lambda"], base_url=httpserver.url_for("/sky"), output=tmp_path / "c.json"
        )
    assert _snapshot(market_copy) == before


def test_unknown_provider_suggests_a_refreshable_one(market_copy: Path) -> None:
    with pytest.raises(
        CatalogRefreshError, match=r"provider 'lamda' has no refreshable price feed.*did you mean 'lambda'"
    ):
        refresh_catalog(market_copy, providers=["lamda"])


def test_parse_takes_gpu_memory_per_gpu_and_skips_cpu_rows() -> None:
    rows = parse_skypilot_vms((RECORDED / "nebius-vms.csv").read_bytes(), provider="nebius")
    eight = next(r for r in rows if r["InstanceType"] == "gpu-h100-sxm_8gpu-128vcpu-1600gb")
    assert (eight["AcceleratorCount"], eight["GpuMemoryMiB"]) == ("8", "81920")
    assert all(r["AcceleratorName"] for r in rows)


def test_httpx_transport_reads_a_local_server(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/ok").respond_with_data(b"hello")
    assert HttpxTransport(timeout_s=5).get(httpserver.url_for("/ok")) == b"hello"
