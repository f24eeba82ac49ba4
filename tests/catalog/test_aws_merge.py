"""AWS priced by two feeds (issue 12): on-demand and reserved from the Price List bulk offer files,
spot from gpuhunt's published catalog, merged by price model (catalog/_parts.py), each price citing
its own source, each part checked and refused on its own. Both sources are served by a real HTTP
server on 127.0.0.1 in their real formats (aws_bulk_testdata.py, recorded/gpuhunt/aws.csv)."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aws_bulk_testdata import RESERVED, offer_file
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog._load import EMBEDDED_CATALOG
from computeops_cdk.catalog._parts import Piece, resolve, uneven_note
from computeops_cdk.catalog._refresh import RefreshResult, refresh_catalog
from computeops_cdk.catalog._sources import MarketData, parse_feed_spec
from computeops_cdk.catalog._status import catalog_status
from computeops_cdk.cli import main
from computeops_cdk.errors import CatalogError, CatalogRefreshError

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
_BULK = re.compile(r"^/offers/v1\.0/aws/AmazonEC2/current/([a-z0-9-]+)/index\.csv$")
GPUHUNT_AWS = (RECORDED / "gpuhunt" / "aws.csv").read_bytes()
BULK_SOURCE = "AWS Price List bulk offer files"
GPUHUNT_SOURCE = "dstackai/gpuhunt published catalog"
SNAPSHOT_SOURCE = "skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv"


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _serve(server: HTTPServer, *, bulk: Any = offer_file, gpuhunt: bytes | None = GPUHUNT_AWS) -> None:
    """The bulk files (``bulk(region)``, or an HTTP status) and gpuhunt's zip (None: HTTP 500)."""
    if isinstance(bulk, int):
        server.expect_request(_BULK).respond_with_data("oops", status=bulk)
    else:

        def handler(request: WRequest) -> Response:
            match = _BULK.match(request.path)
            assert match is not None
            return Response(bulk(match.group(1)), mimetype="text/csv")

        server.expect_request(_BULK).respond_with_handler(handler)
    if gpuhunt is None:
        server.expect_request(re.compile("^/gh/")).respond_with_data("oops", status=500)
        return
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("aws.csv", gpuhunt)
    server.expect_request("/gh/v2/version").respond_with_data(b"20261201\n")
    server.expect_request("/gh/v2/20261201/catalog.zip").respond_with_data(
        archive.getvalue(), content_type="application/zip"
    )


def _refresh(server: HTTPServer, data: Path, **kwargs: Any) -> RefreshResult:
    args: dict[str, Any] = {
        "data_dir": data,
        "now": NOW,
        "providers": ["aws"],
        "urls": {"aws-bulk": server.url_for("/").rstrip("/"), "gpuhunt": server.url_for("/gh/v2")},
        "env": {},
    }
    args.update(kwargs)
    return refresh_catalog(MARKET, **args)


def _offers(path: Path, pricing: str) -> dict[tuple[str, str, int | None], dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (o["instance_type"], o["region"], o.get("term_months")): o
        for o in doc["offers"]
        if o["provider"] == "aws" and o["pricing"] == pricing
    }


def _prices(path: Path, pricing: str) -> dict[tuple[str, str, int | None], float]:
    return {k: o["hourly_usd"] for k, o in _offers(path, pricing).items()}


def _spot_only_rows() -> list[dict[str, str]]:
    with (MARKET / "raw" / "aws.csv").open(newline="", encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle) if not row["Price"]]


def _gpuhunt(change: Any) -> bytes:
    """The recorded gpuhunt aws.csv with ``change(row)`` applied to every row (CRLF, its columns)."""
    reader = csv.DictReader(io.StringIO(GPUHUNT_AWS.decode("utf-8"), newline=""))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=reader.fieldnames or [])
    writer.writeheader()
    for row in reader:
        change(row)
        writer.writerow(row)
    return out.getvalue().encode("utf-8")


def test_the_default_aws_feed_splits_the_price_models_between_the_two_sources() -> None:
    [part_bulk, part_spot] = MarketData(MARKET).feeds()["aws"].parts
    assert (part_bulk.models, part_bulk.adapters) == (("on_demand", "reserved"), ("aws-bulk",))
    assert (part_spot.models, part_spot.adapters) == (("spot",), ("gpuhunt",))


def test_a_default_refresh_keeps_spot_from_gpuhunt_and_on_demand_and_reserved_from_the_bulk_files(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver)
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", progress=lines.append)
    [outcome] = result.outcomes
    assert result.providers == ("aws",) and outcome.status == "updated", outcome
    on_demand, spot = _offers(result.catalog_path, "on_demand"), _offers(result.catalog_path, "spot")
    assert _prices(result.catalog_path, "on_demand") == _prices(EMBEDDED_CATALOG, "on_demand")
    reserved = _offers(result.catalog_path, "reserved")
    assert len(reserved) == 2 * len(on_demand)
    for (name, region, months), offer in reserved.items():
        share = RESERVED["1yr" if months == 12 else "3yr"]
        assert offer["hourly_usd"] == pytest.approx(
            on_demand[(name, region, None)]["hourly_usd"] * share, abs=1e-5
        )
    # spot is back: every spot offer of the snapshot, at gpuhunt's (region-wide) price
    assert spot.keys() == _offers(EMBEDDED_CATALOG, "spot").keys() and spot
    # each price cites where it came from, dated by this refresh
    assert all(o["source"].startswith(BULK_SOURCE) for o in [*on_demand.values(), *reserved.values()])
    assert all(o["source"].startswith(GPUHUNT_SOURCE) for o in spot.values())
    assert {o["as_of"] for o in [*on_demand.values(), *spot.values(), *reserved.values()]} == {"2026-12-01"}
    assert [(p.models, p.status) for p in outcome.parts] == [
        (("on_demand", "reserved"), "updated"),
        (("spot",), "updated"),
    ]
    assert outcome.parts[0].source.startswith("aws-bulk: ") and outcome.parts[1].source.startswith(
        "gpuhunt: "
    )
    assert any(line.startswith("aws: updated") and "from 2 feeds" in line for line in lines)
    assert not any("spot prices not carried over" in line for line in lines)  # spot has its own source


def test_rows_with_only_a_spot_price_are_kept_from_the_spot_source(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver)
    result = _refresh(httpserver, tmp_path / "data")
    spot_only = _spot_only_rows()
    assert len(spot_only) == 9  # the snapshot's rows with no on-demand price (p5e.48xlarge)
    priced = {(r["InstanceType"], r["Region"]) for r in spot_only if r["SpotPrice"]}
    spot = _offers(result.catalog_path, "spot")
    on_demand = _offers(result.catalog_path, "on_demand")
    for name, region in priced:  # kept as spot offers, from gpuhunt, with no on-demand offer
        assert spot[(name, region, None)]["source"].startswith(GPUHUNT_SOURCE)
        assert (name, region, None) not in on_demand
    [outcome] = result.outcomes
    assert any("priced only by spot (gpuhunt)" in note for note in outcome.notes), outcome.notes
    # the rows neither source prices (no on-demand and no spot anywhere) are the only ones dropped
    nowhere = [r for r in spot_only if (r["InstanceType"], r["Region"]) not in priced]
    dropped = {u.reason: u.count for u in outcome.unmapped}[
        "last good rows no source prices any more (dropped)"
    ]
    assert dropped == len(nowhere) == 3


def test_a_refused_bulk_part_keeps_its_last_good_prices_while_spot_updates(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver, bulk=lambda region: offer_file(region, scale=100))
    result = _refresh(httpserver, tmp_path / "data")
    [outcome] = result.outcomes
    assert outcome.status == "partial" and result.providers == ("aws",)
    assert [p.status for p in outcome.parts] == ["refused", "updated"]
    assert "price.swing" in [r.check for r in result.refused["aws"]]
    on_demand = _offers(result.catalog_path, "on_demand")
    assert {k: o["hourly_usd"] for k, o in on_demand.items()} == _prices(EMBEDDED_CATALOG, "on_demand")
    assert {o["as_of"] for o in on_demand.values()} == {"2026-11-29"}  # the last good date, not today's
    assert all(o["source"].startswith(SNAPSHOT_SOURCE) for o in on_demand.values())
    spot = _offers(result.catalog_path, "spot")
    assert all(o["source"].startswith(GPUHUNT_SOURCE) and o["as_of"] == "2026-12-01" for o in spot.values())
    # catalog status: the provider is as old as its oldest part (the snapshot's on-demand prices)
    _, _, statuses = catalog_status(data_dir=tmp_path / "data", now=NOW, env={})
    [aws] = [s for s in statuses if s.provider == "aws"]
    assert aws.tier == "aging" and [(p["models"], p["tier"]) for p in aws.parts] == [
        (["on_demand", "reserved"], "aging"),
        (["spot"], "fresh"),
    ]
    assert [(m, src.split("@")[0]) for m, src, _day, _n in aws.sources] == [
        ("on_demand", SNAPSHOT_SOURCE),
        ("spot", f"{GPUHUNT_SOURCE} v2/20261201/catalog.zip:aws.csv"),
    ]


def test_a_failed_spot_part_keeps_its_last_good_spot_while_the_bulk_files_update(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve(httpserver, gpuhunt=None)
    result = _refresh(httpserver, tmp_path / "data")
    [outcome] = result.outcomes
    assert outcome.status == "partial" and [p.status for p in outcome.parts] == ["updated", "refused"]
    assert outcome.parts[1].refusals[0].check == "fetch" and "HTTP 500" in outcome.parts[1].refusals[0].detail
    spot = _offers(result.catalog_path, "spot")
    assert {k: o["hourly_usd"] for k, o in spot.items()} == _prices(EMBEDDED_CATALOG, "spot")
    assert all(o["source"].startswith(SNAPSHOT_SOURCE) and o["as_of"] == "2026-11-29" for o in spot.values())
    assert _offers(result.catalog_path, "reserved")  # the bulk files' reservations are in
    assert all(
        o["source"].startswith(BULK_SOURCE) for o in _offers(result.catalog_path, "on_demand").values()
    )


def test_a_second_refresh_keeps_each_parts_own_source_and_date(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _serve(httpserver)
    _refresh(httpserver, data)
    httpserver.clear()
    _serve(httpserver, gpuhunt=None)  # gpuhunt is down the next day: its spot prices stay as they were
    result = _refresh(httpserver, data, now=NOW + timedelta(days=1))
    spot = _offers(result.catalog_path, "spot")
    assert spot and all(
        o["source"].startswith(GPUHUNT_SOURCE) and o["as_of"] == "2026-12-01" for o in spot.values()
    )
    on_demand = _offers(result.catalog_path, "on_demand")
    assert all(o["source"].startswith(BULK_SOURCE) and o["as_of"] == "2026-12-02" for o in on_demand.values())


def test_spot_above_the_other_sources_on_demand_refuses_the_spot_part(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    def dear(row: dict[str, str]) -> None:
        if (row["instance_name"], row["location"], row["spot"]) == ("p5.48xlarge", "us-east-1", "True"):
            row["price"] = "60.5"  # above the bulk files' 55.04 on-demand

    _serve(httpserver, gpuhunt=_gpuhunt(dear))
    result = _refresh(httpserver, tmp_path / "data")
    [outcome] = result.outcomes
    assert outcome.status == "partial" and [p.status for p in outcome.parts] == ["updated", "refused"]
    [refusal] = outcome.parts[1].refusals
    assert refusal.check == "price.spot_above_on_demand"
    assert (
        "across sources" in refusal.detail
        and "on-demand 55.04 (aws-bulk) < spot 60.5 (gpuhunt)" in refusal.detail
    )
    assert _prices(result.catalog_path, "spot") == _prices(EMBEDDED_CATALOG, "spot")  # last good spot
    accepted = _refresh(httpserver, tmp_path / "accepted", accept=["aws"])
    assert accepted.outcomes[0].status == "accepted"
    assert _prices(accepted.catalog_path, "spot")[("p5.48xlarge", "us-east-1", None)] == 60.5


def test_new_on_demand_below_the_last_good_spot_refuses_both_parts(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    def cut(region: str) -> bytes:  # p5.48xlarge on demand 55.04 -> 40 in us-east-1; gpuhunt is down
        body = offer_file(region)
        return body.replace(b'"55.0400000000"', b'"40.0000000000"', 1) if region == "us-east-1" else body

    _serve(httpserver, bulk=cut, gpuhunt=None)
    result = _refresh(httpserver, tmp_path / "data")
    [outcome] = result.outcomes
    # the snapshot's spot is 55.04 in two us-east-1 zones: above the new on-demand, and the spot
    # part could not be refreshed, so the new on-demand prices are refused too
    assert outcome.status == "refused" and [p.status for p in outcome.parts] == ["refused", "refused"]
    [refusal] = outcome.parts[0].refusals
    assert (
        refusal.check == "price.spot_above_on_demand"
        and "on-demand 40 (aws-bulk) < spot 55.04 (last good" in (refusal.detail)
    )
    assert _prices(result.catalog_path, "on_demand") == _prices(EMBEDDED_CATALOG, "on_demand")


def test_a_reservation_from_another_source_above_on_demand_refuses_that_source() -> None:
    row = {"InstanceType": "p5.48xlarge", "Region": "us-east-1", "Price": "", "SpotPrice": ""}
    bulk = Piece(models=("on_demand", "spot"), label="aws-bulk", new=[{**row, "Price": "55.04"}], old=[])
    other = Piece(
        models=("reserved",),
        label="broker",
        new=[{**row, "ReservedPrice1yr": "70"}],
        old=[{**row, "ReservedPrice1yr": "30"}],
    )
    columns = ["InstanceType", "Region", "Price", "SpotPrice", "ReservedPrice1yr"]
    pieces, merged = resolve("aws", [bulk, other], columns, accepted=False)
    assert [p.status for p in pieces] == ["updated", "refused"]
    assert pieces[1].refusals[0].check == "price.reserved_above_on_demand"
    assert merged == [{**row, "Price": "55.04", "ReservedPrice1yr": "30"}]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("on_demand:aws-bulk", "no part prices spot, reserved"),
        ("on_demand:aws-bulk;on_demand+spot:gpuhunt", "on_demand named by two parts"),
        ("aws-bulk;gpuhunt", "two parts without price models"),
        ("ondemand:aws-bulk;gpuhunt", "'ondemand' is not a price model"),
        ("spot:", "names no feed adapter"),
    ],
)
def test_a_bad_feed_spec_is_an_error_naming_the_fix(spec: str, message: str) -> None:
    with pytest.raises(CatalogError, match=re.escape(message)):
        parse_feed_spec(spec, what="--feed aws")
    with pytest.raises(CatalogRefreshError, match=re.escape(message)):
        refresh_catalog(MARKET, providers=["aws"], feeds={"aws": spec}, data_dir="/nonexistent", env={})


def test_the_cli_reports_each_part_and_status_names_each_source(
    httpserver: HTTPServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _serve(httpserver, gpuhunt=None)
    data = str(tmp_path / "data")
    urls = [
        "--feed-url",
        f"aws-bulk={httpserver.url_for('/').rstrip('/')}",
        "--feed-url",
        f"gpuhunt={httpserver.url_for('/gh/v2')}",
    ]
    code = main(
        ["catalog", "refresh", "--provider", "aws", "--data-dir", data, "--source", str(MARKET), *urls]
    )
    out, err = capsys.readouterr()
    assert code == 4, out + err  # a part was refused: reviewed like any refusal
    assert "aws: partly updated" in out and "from 2 feeds" in out
    assert "  on_demand+reserved: updated" in out and "  spot: refused, kept its last good data" in out
    assert "note: refused aws (aws in part: its other feeds updated); they keep their last good data." in err
    assert main(["catalog", "status", "--data-dir", data, "--json"]) == 0
    [aws] = [p for p in json.loads(capsys.readouterr().out)["providers"] if p["provider"] == "aws"]
    assert {s["pricing"]: s["source"].split(" ")[0] for s in aws["sources"]} == {
        "on_demand": "AWS",
        "reserved": "AWS",
        "spot": "skypilot-org/skypilot-catalog",
    }
    assert [p["status"] for p in aws["parts"]] == ["updated", "refused"]


def test_a_one_feed_refresh_after_a_merged_one_cites_that_feed_for_every_price(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    _serve(httpserver)
    _refresh(httpserver, data)
    result = _refresh(httpserver, data, feeds={"aws": "gpuhunt"}, now=NOW + timedelta(days=1))
    [outcome] = result.outcomes
    assert outcome.status == "updated" and outcome.parts == ()
    offers = [
        *_offers(result.catalog_path, "on_demand").values(),
        *_offers(result.catalog_path, "spot").values(),
    ]
    assert offers and all(o["source"].startswith(GPUHUNT_SOURCE) for o in offers)
    assert _offers(result.catalog_path, "reserved") == {}  # gpuhunt has no reservations
    _, _, statuses = catalog_status(data_dir=data, now=NOW + timedelta(days=1), env={})
    [aws] = [s for s in statuses if s.provider == "aws"]
    assert aws.sources == () and aws.parts == ()  # one source again: no per-model lines
    assert (result.generation / "market" / "price-sources.csv").read_text(encoding="utf-8").splitlines() == [
        "provider,pricing,repo,path,commit,as_of"
    ]


@pytest.mark.parametrize("listed", [("30", "70"), ("70", "30")])
def test_a_key_one_feed_lists_more_often_is_one_row_at_its_lowest_price_and_reported(
    listed: tuple[str, str],
) -> None:
    """The spot feed lists a key twice, the on-demand feed once: one merged row whatever the listing
    order (joined listing by listing, 30 then 70 left a spot-only row at 70, above on-demand and
    outside the cross-source checks; 70 then 30 refused the spot feed)."""
    row = {"InstanceType": "p5.48xlarge", "Region": "us-east-1", "Price": "", "SpotPrice": ""}
    bulk = Piece(models=("on_demand",), label="aws-bulk", new=[{**row, "Price": "55.04"}], old=[])
    spot = Piece(
        models=("spot",), label="gpuhunt", new=[{**row, "SpotPrice": price} for price in listed], old=[]
    )
    pieces, merged = resolve(
        "aws", [bulk, spot], ["InstanceType", "Region", "Price", "SpotPrice"], accepted=False
    )
    assert [p.status for p in pieces] == ["updated", "updated"]
    assert merged == [{**row, "Price": "55.04", "SpotPrice": "30"}]
    assert uneven_note(pieces) == (
        "1 key the feeds list unequally often collapsed into one row, the lowest price kept "
        "(e.g. p5.48xlarge us-east-1: 1 by on_demand (aws-bulk), 2 by spot (gpuhunt))"
    )


def test_the_collapse_note_counts_its_keys_in_words() -> None:
    """Two collapsed keys are "2 keys ... one row each" (the note once said "1 keys")."""
    rows = [
        {"InstanceType": kind, "Region": "us-east-1", "Price": "", "SpotPrice": ""}
        for kind in ("p5.48xlarge", "p4d.24xlarge")
    ]
    bulk = Piece(models=("on_demand",), label="aws-bulk", new=[{**r, "Price": "55.04"} for r in rows], old=[])
    spot = Piece(
        models=("spot",),
        label="gpuhunt",
        new=[{**r, "SpotPrice": price} for r in rows for price in ("30", "70")],
        old=[],
    )
    pieces, _ = resolve("aws", [bulk, spot], ["InstanceType", "Region", "Price", "SpotPrice"], accepted=False)
    assert uneven_note(pieces).startswith(
        "2 keys the feeds list unequally often collapsed into one row each, the lowest price kept (e.g. "
    )


def test_a_key_every_feed_lists_equally_often_joins_listing_by_listing() -> None:
    """A raw file without zones (as SkyPilot's feed writes it) lists a key once per zone: the feeds
    map those rows in order, so the n-th listings join and every zone's prices stay."""
    row = {"InstanceType": "p5.48xlarge", "Region": "us-east-1", "Price": "", "SpotPrice": ""}
    bulk = Piece(
        models=("on_demand",),
        label="aws-bulk",
        new=[{**row, "Price": "55.04"}, {**row, "Price": "56"}],
        old=[],
    )
    spot = Piece(
        models=("spot",),
        label="gpuhunt",
        new=[{**row, "SpotPrice": "30"}, {**row, "SpotPrice": "31"}],
        old=[],
    )
    columns = ["InstanceType", "Region", "Price", "SpotPrice"]
    pieces, merged = resolve("aws", [bulk, spot], columns, accepted=False)
    assert merged == [{**row, "Price": "55.04", "SpotPrice": "30"}, {**row, "Price": "56", "SpotPrice": "31"}]
    assert uneven_note(pieces) == ""
