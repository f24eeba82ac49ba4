"""The AWS Price List bulk offer file adapter (catalog/feeds/aws_bulk.py) against a real HTTP
server on 127.0.0.1 serving regional offer files in their real structure (aws_bulk_testdata.py).

Paging does not apply: one file per region, streamed whole.
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aws_bulk_testdata import RESERVED, TEMPLATE, offer_file, regions
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.catalog._refresh import RefreshResult, refresh_catalog
from computeops_cdk.catalog._store import Store
from computeops_cdk.catalog._transport import HttpxTransport
from computeops_cdk.catalog.feeds.aws_bulk import Tally, parse_offer_file
from computeops_cdk.errors import CatalogRefreshError

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
_URI = re.compile(r"^/offers/v1\.0/aws/AmazonEC2/current/([a-z0-9-]+)/index\.csv$")


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _serve(server: HTTPServer, body: Any = offer_file, **kwargs: Any) -> None:
    def handler(request: WRequest) -> Response:
        match = _URI.match(request.path)
        assert match is not None
        return Response(body(match.group(1), **kwargs), mimetype="text/csv")

    server.expect_request(_URI).respond_with_handler(handler)


def _refresh(server: HTTPServer, data: Path, **kwargs: Any) -> RefreshResult:
    args: dict[str, Any] = {
        "data_dir": data,
        "now": NOW,
        "providers": ["aws"],
        "feeds": {"aws": "aws-bulk"},
        "urls": {"aws-bulk": server.url_for("/").rstrip("/")},
        "env": {},
    }
    args.update(kwargs)
    return refresh_catalog(MARKET, **args)


def _offers(path: Path, pricing: str) -> dict[tuple[str, str, int | None], float]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (o["instance_type"], o["region"], o.get("term_months")): o["hourly_usd"]
        for o in doc["offers"]
        if o["provider"] == "aws" and o["pricing"] == pricing
    }


def _unpriced_rows() -> int:
    with (MARKET / "raw" / "aws.csv").open(newline="", encoding="utf-8") as handle:
        return sum(1 for row in csv.DictReader(handle) if not row["Price"])


def test_the_default_aws_feed_is_the_bulk_offer_files_with_spot_from_gpuhunt() -> None:
    feeds = (MARKET / "feeds.csv").read_text(encoding="utf-8")
    [aws] = [line for line in feeds.splitlines() if line.startswith("aws,")]
    assert aws.endswith(",yes,on_demand+reserved:aws-bulk;spot:gpuhunt")  # tests/catalog/test_aws_merge.py


def test_refresh_prices_on_demand_and_reserved_and_reports_what_it_left_out(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver)
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", progress=lines.append)
    assert result.providers == ("aws",), result.refused
    on_demand = _offers(result.catalog_path, "on_demand")
    assert on_demand == _offers(EMBEDDED_CATALOG, "on_demand")  # the same prices, from the bulk files
    reserved = _offers(result.catalog_path, "reserved")
    for (name, region, _), price in on_demand.items():
        assert reserved[(name, region, 12)] == pytest.approx(price * RESERVED["1yr"], abs=1e-5)
        assert reserved[(name, region, 36)] == pytest.approx(price * RESERVED["3yr"], abs=1e-5)
    assert len(reserved) == 2 * len(on_demand)
    assert _offers(result.catalog_path, "spot") == {}  # the bulk files have no spot prices
    [outcome] = result.outcomes
    assert "AWS Price List bulk offer files" in outcome.source and "20261129000000" in outcome.source
    counts = {u.reason: u.count for u in outcome.unmapped}
    keys = len(on_demand)
    assert counts == {
        "accelerator instance types not in the catalog": len(regions()),
        "capacity reservation rows (CapacityStatus not Used)": 2 * keys,
        "not USD per hour (upfront fees, other currencies)": 2 * keys,
        "not plain Linux (Windows, RHEL, SUSE, Ubuntu Pro, BYOL)": 2 * keys,
        "not shared tenancy (Dedicated, Host, Reserved)": keys,
        "pre-installed software (SQL Server, ...)": keys,
        "reserved terms other than standard No Upfront (convertible, partial or all upfront)": 3 * keys,
        "rows of other instance types and services (not in the catalog)": 2 * len(regions()),
        # rows the snapshot has no on-demand price for either (spot only): reported, not kept
        "last good rows the feed no longer prices on demand (dropped)": _unpriced_rows(),
    }
    [unknown] = [u for u in outcome.unmapped if u.reason.startswith("accelerator instance types")]
    assert unknown.examples == ("p9test.48xlarge",)
    assert any("spot prices not carried over" in line for line in lines)
    assert any(f"{len(regions())} regional offer file(s)" in line for line in lines)


def test_the_parser_keeps_linux_shared_used_on_demand_and_standard_no_upfront_terms() -> None:
    prices: dict[tuple[str, str], dict[str, str]] = {}
    skipped = Tally()
    offer = parse_offer_file(
        [TEMPLATE.read_bytes()], region="us-east-1", types=frozenset({"p5.48xlarge"}), prices=prices,
        skipped=skipped,
    )  # fmt: skip
    assert offer.version == "20261129000000" and offer.lines == 17
    assert prices == {
        ("p5.48xlarge", "us-east-1"): {
            "Price": "55.04",
            "ReservedPrice1yr": "33.024",
            "ReservedPrice3yr": "22.016",
        }
    }
    assert sum(skipped.counts.values()) == 17 - 3


def test_the_parser_streams_chunks_split_anywhere() -> None:
    body = TEMPLATE.read_bytes()
    pieces = [body[i : i + 7] for i in range(0, len(body), 7)]
    prices: dict[tuple[str, str], dict[str, str]] = {}
    parse_offer_file(
        pieces, region="us-east-1", types=frozenset({"p5.48xlarge"}), prices=prices, skipped=Tally()
    )
    assert prices[("p5.48xlarge", "us-east-1")]["Price"] == "55.04"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "the file is empty"),
        (b'"SKU","TermType"\n', "the header lacks 'Unit'"),
        (b'"FormatVersion","v1.0"\n"Oops","a","b"\n', "metadata rows of two cells"),
        (b'"FormatVersion","v1.0"\n' * 25, "no 'SKU' header"),
        (b'"FormatVersion","v1.0"\n"OfferCode","AmazonS3"\n"SKU"\n', "OfferCode 'AmazonS3' is not AmazonEC2"),
    ],
)
def test_a_body_that_is_not_an_offer_file_is_an_error(body: bytes, message: str) -> None:
    with pytest.raises(CatalogRefreshError, match=re.escape(message)):
        parse_offer_file(
            [body], region="us-east-1", types=frozenset({"p5.48xlarge"}), prices={}, skipped=Tally()
        )


def _refused(result: RefreshResult) -> str:
    return "; ".join(f"{r.check}: {r.detail}" for r in result.refused["aws"])


FAULTS: dict[str, tuple[Any, str]] = {
    "prices x100": (lambda region: offer_file(region, scale=100), "price.swing: "),
    "empty feed": (lambda region: offer_file(region, rows=False), "rows.empty: the feed has no accelerator"),
    "truncated body": (lambda region: offer_file(region)[:-200], "format: aws "),
    "a row with a cell too few": (lambda region: offer_file(region).replace(b',"OnDemand","$', b',"$', 1),
                                  "format: "),
    "a price that is not a number": (
        lambda region: offer_file(region).replace(b'"55.0400000000"', b'"fifty"', 1), "PricePerUnit 'fifty'",
    ),
}  # fmt: skip


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_bad_offer_file_is_refused_and_the_last_good_data_kept(
    httpserver: HTTPServer, tmp_path: Path, fault: str
) -> None:
    body, detail = FAULTS[fault]
    _serve(httpserver, body)
    result = _refresh(httpserver, tmp_path / "data")
    assert result.providers == () and detail in _refused(result), _refused(result)
    assert _offers(result.catalog_path, "on_demand") == _offers(EMBEDDED_CATALOG, "on_demand")
    assert _offers(result.catalog_path, "spot") == _offers(EMBEDDED_CATALOG, "spot")


def test_http_500_is_a_fetch_refusal(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request(_URI).respond_with_data("oops", status=500)
    result = _refresh(httpserver, tmp_path / "data")
    assert "fetch: could not fetch" in _refused(result) and "(HTTP 500)" in _refused(result)


def test_429_is_retried_after_retry_after(httpserver: HTTPServer, tmp_path: Path) -> None:
    calls: list[str] = []

    def handler(request: WRequest) -> Response:
        calls.append(request.path)
        if len(calls) == 1:
            return Response("slow down", status=429, headers={"Retry-After": "7"})
        match = _URI.match(request.path)
        assert match is not None
        return Response(offer_file(match.group(1)), mimetype="text/csv")

    httpserver.expect_request(_URI).respond_with_handler(handler)
    waits: list[float] = []
    result = _refresh(httpserver, tmp_path / "data", transport=HttpxTransport(sleep=waits.append))
    assert result.providers == ("aws",) and waits == [7.0]
    assert calls[0] == calls[1]  # the same region file, asked again


def test_a_server_that_does_not_answer_in_time_is_a_fetch_refusal(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    def handler(_request: WRequest) -> Response:
        time.sleep(1.5)
        return Response(b"", mimetype="text/csv")

    httpserver.expect_request(_URI).respond_with_handler(handler)
    result = _refresh(httpserver, tmp_path / "data", transport=HttpxTransport(timeout_s=0.3, retries=0))
    assert "fetch: could not fetch" in _refused(result) and "Timeout" in _refused(result)


_CHILD = """
import sys
from computeops_cdk.catalog._refresh import refresh_catalog
refresh_catalog(sys.argv[1], data_dir=sys.argv[2], providers=["aws"], feeds={"aws": "aws-bulk"},
                urls={"aws-bulk": sys.argv[3]}, env={})
"""


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_refresh_killed_mid_file_leaves_the_previous_catalog_byte_identical(tmp_path: Path) -> None:
    reached, release = threading.Event(), threading.Event()

    def handler(request: WRequest) -> Response:
        match = _URI.match(request.path)
        assert match is not None
        body = offer_file(match.group(1))
        if match.group(1) == regions()[1] and not release.is_set():
            reached.set()
            release.wait(30)
        return Response(body, mimetype="text/csv")

    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    server.expect_request(_URI).respond_with_handler(handler)
    data = tmp_path / "data"
    try:
        release.set()
        first = _refresh(server, data).generation
        release.clear()
        before = _snapshot(data / "generations")
        with (tmp_path / "child.log").open("wb") as log:
            child = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(MARKET), str(data), server.url_for("/").rstrip("/")],
                env=os.environ.copy(), stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            assert reached.wait(60), (tmp_path / "child.log").read_text(encoding="utf-8")
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        assert child.returncode == -signal.SIGKILL
        assert _snapshot(data / "generations") == before  # byte for byte
        assert Store(data).current() == first
    finally:
        release.set()
        server.clear()
        server.stop()
