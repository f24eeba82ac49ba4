"""Refresh against a local HTTP server serving byte-exact upstream SkyPilot feeds (no internet).

Covers issue 10 section 3: every fault a red-team pass found (prices x100, a feed cut to one row, a
body cut mid-row, 1e6 GPUs, negative GPU memory, NUL bytes, HTML, NaN/inf, a list GpuInfo, a 128 KiB
field, non-numeric cells, a full disk) is refused per provider with its numbers, the others update,
and the previous catalog stays intact.
"""

from __future__ import annotations

import errno
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer

from computeops_cdk.catalog import _refresh
from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.catalog._refresh import RefreshResult, parse_skypilot_vms, refresh_catalog
from computeops_cdk.catalog._store import Store
from computeops_cdk.errors import CatalogError, CatalogRefreshError

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
LAMBDA = (RECORDED / "lambda-vms.csv").read_bytes()
NEBIUS = (RECORDED / "nebius-vms.csv").read_bytes()
HEADER = b"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n"


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    """pytest-httpserver binds the loopback address explicitly: tests never leave the machine."""
    return ("127.0.0.1", 0)


def _serve(
    server: HTTPServer, provider: str, body: bytes, status: int = 200, ctype: str = "text/csv"
) -> None:
    server.expect_request(f"/sky/catalogs/v8/{provider}/vms.csv").respond_with_data(
        body, status=status, content_type=ctype
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(server: HTTPServer, data: Path, **kwargs: object) -> RefreshResult:
    args: dict[str, object] = {
        "data_dir": data,
        "now": NOW,
        "base_url": server.url_for("/sky"),
        "providers": ["lambda", "nebius"],
        "env": {},  # no API key: lambda reads the SkyPilot feed
    }
    args.update(kwargs)
    return refresh_catalog(MARKET, **args)  # type: ignore[arg-type]


def _lambda_offers(catalog_file: Path) -> list[dict[str, object]]:
    doc = json.loads(catalog_file.read_text(encoding="utf-8"))
    return [o for o in doc["offers"] if o["provider"] == "lambda"]


def test_refresh_reproduces_the_transcribed_raw_files_in_a_new_generation(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    _serve(httpserver, "nebius", NEBIUS)
    source_before, package_before = _snapshot(MARKET), EMBEDDED_CATALOG.read_bytes()
    lines: list[str] = []
    result = _run(httpserver, tmp_path / "data", as_of="2026-11-30", progress=lines.append)
    generation = result.generation
    # The recorded upstream files convert to exactly the rows transcribed in data/market/raw.
    for provider in ("lambda", "nebius"):
        assert (generation / "market" / "raw" / f"{provider}.csv").read_bytes() == (
            MARKET / "raw" / f"{provider}.csv"
        ).read_bytes()
    assert result.providers == ("lambda", "nebius")
    assert result.rows == {"lambda": 374, "nebius": 21}
    assert f"fetching lambda: {httpserver.url_for('/sky/catalogs/v8/lambda/vms.csv')}" in lines
    # CPU-only rows are reported as not mapped, never dropped silently.
    lam = result.outcomes[0]
    assert [(u.reason, u.count) for u in lam.unmapped] == [("no accelerator (CPU-only instance type)", 34)]
    assert result.catalog_path == tmp_path / "data" / "current" / "catalog.json"
    offers = _lambda_offers(result.catalog_path)
    assert {o["as_of"] for o in offers} == {"2026-11-30"}
    assert {o["source"] for o in offers} == {
        "skypilot-org/skypilot-catalog catalogs/v8/lambda/vms.csv@master"
    }
    assert json.loads(result.catalog_path.read_text(encoding="utf-8"))["sha256"] == result.sha256
    # Neither the source folder nor the installed package was written.
    assert _snapshot(MARKET) == source_before
    assert EMBEDDED_CATALOG.read_bytes() == package_before
    state = json.loads((generation / "state.json").read_text(encoding="utf-8"))
    assert state["providers"]["lambda"]["refreshed_at"] == "2026-12-01T09:30:00+00:00"
    assert state["providers"]["lambda"]["rows"] == 374


def test_a_failing_feed_keeps_its_last_good_data_and_the_other_updates(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    _serve(httpserver, "nebius", b"upstream exploded", status=500)
    result = _run(httpserver, tmp_path / "data", as_of="2026-11-30")
    assert result.providers == ("lambda",)
    url = httpserver.url_for("/sky/catalogs/v8/nebius/vms.csv")
    [refusal] = result.refused["nebius"]
    assert (refusal.check, refusal.detail) == ("fetch", f"could not fetch {url} (HTTP 500)")
    doc = json.loads(result.catalog_path.read_text(encoding="utf-8"))
    nebius = {o["as_of"] for o in doc["offers"] if o["provider"] == "nebius"}
    assert nebius == {"2026-11-29"}  # the shipped snapshot, kept
    assert {o["as_of"] for o in _lambda_offers(result.catalog_path)} == {"2026-11-30"}


def _lines(body: bytes) -> list[bytes]:
    return body.split(b"\r\n")


def _mutate_prices(factor: float) -> bytes:
    out = [_lines(LAMBDA)[0]]
    for line in _lines(LAMBDA)[1:]:
        cells = line.split(b",")
        if len(cells) > 6 and cells[1]:
            cells[5] = str(round(float(cells[5]) * factor, 6)).encode()
        out.append(b",".join(cells))
    return b"\r\n".join(out)


def _gpu_row(**cells: str) -> bytes:
    base = {
        "InstanceType": "gpu_1x_h100_pcie",
        "AcceleratorName": "H100",
        "AcceleratorCount": "1.0",
        "vCPUs": "26.0",
        "MemoryGiB": "225.0",
        "Price": "2.49",
        "Region": "us-east-1",
        "GpuInfo": "",
        "SpotPrice": "",
    }
    base.update(cells)
    return ",".join(base.values()).encode() + b"\r\n"


def _with_row(row: bytes) -> bytes:
    return LAMBDA + row


FAULTS = {
    "prices x100": (_mutate_prices(100), "price.swing", "374 of 374 matched prices moved more than 3x"),
    "prices /100": (_mutate_prices(0.01), "price.swing", "new/old from 0.01x to 0.01x"),
    "cut to one row": (b"\r\n".join(_lines(LAMBDA)[:40]) + b"\r\n", "rows.dropped", "rows 374 -> 5"),
    "body stops mid-row": (LAMBDA[: LAMBDA.index(b"gpu_8x_h100_sxm5") + 40], "format", "stops mid-line"),
    "a row with too few cells": (_with_row(b"gpu_1x_h100_pcie,H100,1.0,26.0\r\n"), "format",
                                 "a cut or malformed"),
    "AcceleratorCount 1e6": (_with_row(_gpu_row(AcceleratorCount="1000000.0")), "value.range",
                             "AcceleratorCount 1e+06 outside 1..10000"),
    "negative GPU memory": (
        _with_row(_gpu_row(GpuInfo="\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': -80}}]}\"")),
        "value.range", "GpuMemoryMiB -80 outside",
    ),
    "NUL byte in an instance type": (_with_row(_gpu_row(InstanceType="gpu_1x\x00h100")), "value.text",
                                     "control character"),
    "Terraform interpolation in a region": (
        _with_row(_gpu_row(Region='us-east-1${file("/etc/passwd")}')), "value.text", "not a plain region code"
    ),
    "NaN price": (_with_row(_gpu_row(Price="nan")), "price.invalid", "Price nan is not a positive price"),
    "inf price": (_with_row(_gpu_row(Price="inf")), "price.invalid", "Price inf is not a positive price"),
    "zero price": (_with_row(_gpu_row(Price="0.0")), "price.invalid", "Price 0 is not a positive price"),
    "price of 1e-9": (_with_row(_gpu_row(Price="1e-09")), "value.range", "USD per accelerator-hour outside"),
    "spot above on-demand": (_with_row(_gpu_row(SpotPrice="3.5")), "price.spot_above_on_demand",
                             "on-demand 2.49 < spot 3.5"),
    "GpuInfo is a list": (_with_row(_gpu_row(GpuInfo='"[1, 2]"')), "format", "GpuInfo is not"),
    "a 128 KiB field": (_with_row(_gpu_row(InstanceType="x" * 131_072)), "format",
                        "characters; not a price row"),
    "a 1 KiB name": (_with_row(_gpu_row(InstanceType="x" * 1024)), "value.text", "is 1,024 characters"),
    "vCPUs: lots": (_with_row(_gpu_row(vCPUs="lots")), "value.range", "vCPUs 'lots' is not a number"),
    "empty feed": (HEADER, "rows.empty", "the feed has no accelerator rows (last good data: 374)"),
    "an HTML page": (b"<html><body>rate limited</body></html>\n", "format", "is not a SkyPilot vms.csv"),
}  # fmt: skip


@pytest.fixture(scope="module")
def seeded(make_httpserver: HTTPServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory after one good refresh of both feeds (copied per test)."""
    data = tmp_path_factory.mktemp("seeded") / "data"
    _serve(make_httpserver, "lambda", LAMBDA)
    _serve(make_httpserver, "nebius", NEBIUS)
    _run(make_httpserver, data, as_of="2026-11-30")
    make_httpserver.clear()
    return data


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_bad_feed_is_refused_with_numbers_and_the_other_provider_updates(
    httpserver: HTTPServer, seeded: Path, tmp_path: Path, fault: str
) -> None:
    body, check, detail = FAULTS[fault]
    data = tmp_path / "data"
    shutil.copytree(seeded, data, symlinks=True)
    first_generation = Store(data).current()
    assert first_generation is not None
    before = _snapshot(first_generation)
    _serve(httpserver, "lambda", body)
    _serve(httpserver, "nebius", NEBIUS)
    result = _run(httpserver, data, as_of="2026-12-01", now=NOW.replace(hour=10))
    assert result.providers == ("nebius",)
    [refusal] = [r for r in result.refused["lambda"] if r.check == check]
    assert detail in refusal.detail
    # lambda's last good data (the first refresh) is what the new generation carries
    assert _lambda_offers(result.catalog_path) == _lambda_offers(first_generation / "catalog.json")
    assert _snapshot(first_generation) == before  # the previous generation is kept, byte for byte


def test_content_type_html_is_refused_even_with_csv_inside(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", LAMBDA, ctype="text/html")
    result = _run(httpserver, tmp_path / "data", providers=["lambda"])
    [refusal] = result.refused["lambda"]
    assert refusal.check == "fetch"
    assert "Content-Type 'text/html', expected 'text/csv' or 'text/plain'" in refusal.detail


def test_accept_overrides_a_refusal_after_review(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", _mutate_prices(100))
    result = _run(httpserver, tmp_path / "data", providers=["lambda"], accept=["lambda"])
    assert result.providers == ("lambda",)
    [outcome] = result.outcomes
    assert outcome.status == "accepted" and outcome.refusals[0].check == "price.swing"
    prices = {
        o["hourly_usd"] for o in _lambda_offers(result.catalog_path) if o["instance_type"] == "gpu_1x_a10"
    }
    assert prices == {129.0}


def test_accept_of_a_provider_not_refreshed_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(
        CatalogRefreshError, match=r"--accept 'nebuis' names a provider .*did you mean 'nebius'"
    ):
        refresh_catalog(MARKET, providers=["nebius"], accept=["nebuis"], data_dir=tmp_path)


def test_an_unknown_accelerator_refuses_that_provider_at_build(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver, "lambda", HEADER + b"gpu_1x_x9,X9000,1.0,8.0,64.0,1.5,us-east-1,,\r\n")
    _serve(httpserver, "nebius", NEBIUS)
    result = _run(httpserver, tmp_path / "data", accept=["lambda"])  # past the row-count check
    [refusal] = result.refused["lambda"]
    assert refusal.check == "build" and "'X9000'" in refusal.detail
    assert result.providers == ("nebius",)


@pytest.mark.parametrize("where", ["directory", "under_a_file"])
def test_an_unwritable_output_commits_nothing(httpserver: HTTPServer, tmp_path: Path, where: str) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    out = tmp_path if where == "directory" else blocker / "catalog.json"
    data = tmp_path / "data"
    with pytest.raises(CatalogError) as info:
        _run(httpserver, data, providers=["lambda"], output=out)
    assert str(info.value).startswith(f"cannot write {str(out)!r}")
    assert "Nothing was changed. To fix:" in str(info.value)
    assert Store(data).current() is None
    assert not any((data / "staging").iterdir())


def test_output_gets_a_copy_and_keeps_the_previous_file(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    out = tmp_path / "out" / "catalog.json"
    first = _run(httpserver, tmp_path / "data", providers=["lambda"], output=out, as_of="2026-11-30")
    assert first.catalog_path == out and out.read_bytes() == (first.generation / "catalog.json").read_bytes()
    old = out.read_bytes()
    _run(httpserver, tmp_path / "data", providers=["lambda"], output=out, as_of="2026-12-01",
             now=NOW.replace(hour=11))  # fmt: skip
    assert (tmp_path / "out" / "catalog.json.previous").read_bytes() == old
    assert out.read_bytes() != old


def test_a_full_disk_is_a_clear_error_and_the_previous_catalog_is_intact(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    data = tmp_path / "data"
    first = _run(httpserver, data, providers=["lambda"])
    before = _snapshot(data)

    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_refresh, "_write_csv", full)
    with pytest.raises(CatalogRefreshError) as info:
        _run(httpserver, data, providers=["lambda"], now=NOW.replace(hour=12))
    assert str(info.value) == (
        "could not write the refreshed catalog: no space left on the device. To fix: free some disk "
        "space and run it again. Nothing was changed: the previous catalog is intact."
    )
    assert _snapshot(data) == before
    assert Store(data).current() == first.generation


def test_old_generations_are_pruned_keeping_the_previous(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve(httpserver, "lambda", LAMBDA)
    data = tmp_path / "data"
    made = [
        _run(httpserver, data, providers=["lambda"], now=NOW.replace(minute=m)).generation for m in range(5)
    ]
    kept = sorted(p.name for p in (data / "generations").iterdir())
    assert kept == [p.name for p in made[-3:]]
    assert (data / "current").resolve() == made[-1]


def test_unknown_provider_suggests_a_refreshable_one(tmp_path: Path) -> None:
    with pytest.raises(
        CatalogRefreshError, match=r"provider 'lamda' has no refreshable price feed.*did you mean 'lambda'"
    ):
        refresh_catalog(MARKET, providers=["lamda"], data_dir=tmp_path, env={})


def test_a_missing_source_folder_says_where_market_data_comes_from(tmp_path: Path) -> None:
    with pytest.raises(
        CatalogRefreshError, match=r"is not a market-data folder \(no feeds.csv\)\. To fix: run"
    ):
        refresh_catalog(tmp_path / "nowhere", data_dir=tmp_path)


def test_parse_takes_gpu_memory_per_gpu_and_skips_cpu_rows() -> None:
    rows = parse_skypilot_vms(NEBIUS, provider="nebius")
    eight = next(r for r in rows if r["InstanceType"] == "gpu-h100-sxm_8gpu-128vcpu-1600gb")
    assert (eight["AcceleratorCount"], eight["GpuMemoryMiB"]) == ("8", "81920")
    assert all(r["AcceleratorName"] for r in rows)
