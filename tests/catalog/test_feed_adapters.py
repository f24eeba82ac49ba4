"""Feed adapters against a real HTTP server on 127.0.0.1 serving responses in each source's format.

The gpuhunt catalog and the Lambda answer were built in the sources' real formats (gpuhunt:
csv.DictWriter output, CRLF, its column order, in a zip beside a ``version`` file; Lambda: the
``{"data": {name: {"instance_type": ..., "regions_with_capacity_available": ...}}}`` document) from
the snapshot's own prices, because this machine cannot reach the sources (tests/catalog/recorded/README.md).
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._refresh import RefreshResult, refresh_catalog
from computeops_cdk.cli import main
from computeops_cdk.errors import CatalogRefreshError

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
GPUHUNT = RECORDED / "gpuhunt"
MEMBERS = ("aws.csv", "azure.csv", "oci.csv", "lambdalabs.csv")
SECRET = "secret_lambda_key_0123456789abcdef"


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _zip(**replace: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member in MEMBERS:
            body = replace.get(member.removesuffix(".csv"), (GPUHUNT / member).read_bytes())
            archive.writestr(member, body)
    return buffer.getvalue()


def _serve_gpuhunt(server: HTTPServer, archive: bytes) -> None:
    server.expect_request("/gh/v2/version").respond_with_data(
        b"20261201\n", content_type="binary/octet-stream"
    )
    server.expect_request("/gh/v2/20261201/catalog.zip").respond_with_data(
        archive, content_type="application/zip"
    )


def _refresh(server: HTTPServer, data: Path, providers: list[str], **kwargs: Any) -> RefreshResult:
    args: dict[str, Any] = {
        "providers": providers,
        "data_dir": data,
        "now": NOW,
        "env": {},
        "urls": {
            "gpuhunt": server.url_for("/gh/v2"),
            "lambda-api": server.url_for("/lambda/api/v1"),
            "azure-retail": server.url_for("/").rstrip("/"),
        },
        "base_url": server.url_for("/sky"),
    }
    args.update(kwargs)
    return refresh_catalog(MARKET, **args)


def _offers(path: Path, provider: str) -> dict[tuple[str, str, str], float | None]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (o["instance_type"], o["region"], o["pricing"]): o["hourly_usd"]
        for o in doc["offers"]
        if o["provider"] == provider
    }


def _records(path: Path, provider: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (o["instance_type"], o["region"], o["pricing"]): o for o in doc["offers"] if o["provider"] == provider
    }


def _embedded(provider: str) -> dict[tuple[str, str, str], float | None]:
    return {
        (o.instance_type, o.region, o.pricing): o.hourly_usd
        for o in load_catalog().offers
        if o.provider == provider
    }


def test_gpuhunt_refreshes_aws_azure_oci_from_one_download(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve_gpuhunt(httpserver, _zip())
    lines: list[str] = []
    result = _refresh(
        httpserver,
        tmp_path / "data",
        ["aws", "azure", "oci"],
        feeds={"aws": "gpuhunt", "azure": "gpuhunt", "oci": "gpuhunt"},
        progress=lines.append,
    )
    assert result.providers == ("aws", "azure", "oci") and not result.refused
    zips = [r for r, _ in httpserver.log if r.path.endswith("catalog.zip")]
    assert len(zips) == 1  # cached for the three providers
    for provider in ("azure", "oci"):  # one price per region: the same prices as the snapshot
        assert _offers(result.catalog_path, provider) == _embedded(provider)
    aws = _offers(result.catalog_path, "aws")
    assert aws.keys() == _embedded("aws").keys()
    assert (
        aws[("p5.48xlarge", "us-east-1", "on_demand")]
        == _embedded("aws")[("p5.48xlarge", "us-east-1", "on_demand")]
    )
    doc = json.loads(result.catalog_path.read_text(encoding="utf-8"))
    sources = {o["source"] for o in doc["offers"] if o["provider"] == "oci"}
    assert sources == {"dstackai/gpuhunt published catalog v2/20261201/catalog.zip:oci.csv@20261201"}
    [aws_outcome] = [o for o in result.outcomes if o.provider == "aws"]
    new = [u for u in aws_outcome.unmapped if u.reason == "instance type or region not in the catalog"]
    assert new and "gpu-new-9000" in new[0].examples[0]


def test_gpuhunt_price_swing_refuses_that_provider_only(httpserver: HTTPServer, tmp_path: Path) -> None:
    lines = (GPUHUNT / "azure.csv").read_bytes().split(b"\r\n")
    swung = [lines[0]]
    for line in lines[1:]:
        cells = line.split(b",")
        if len(cells) > 3:
            cells[2] = str(float(cells[2]) * 100).encode()
        swung.append(b",".join(cells))
    _serve_gpuhunt(httpserver, _zip(azure=b"\r\n".join(swung)))
    result = _refresh(httpserver, tmp_path / "data", ["azure", "oci"], feeds={"azure": "gpuhunt"})
    assert result.providers == ("oci",)
    [refusal] = [r for r in result.refused["azure"] if r.check == "price.swing"]
    assert refusal.detail.startswith(
        "355 of 355 matched prices moved more than 3x (limit 10%); new/old from 100x"
    )
    assert _offers(result.catalog_path, "azure") == _embedded("azure")  # last good kept


@pytest.mark.parametrize(
    ("archive", "check", "detail"),
    [
        (b"not a zip", "format", "catalog.zip has no readable oci.csv"),
        (b"PK\x05\x06" + b"\x00" * 18, "format", "has no readable oci.csv"),
    ],
)
def test_gpuhunt_corrupt_archives_are_refused(
    httpserver: HTTPServer, tmp_path: Path, archive: bytes, check: str, detail: str
) -> None:
    _serve_gpuhunt(httpserver, archive)
    result = _refresh(httpserver, tmp_path / "data", ["oci"], feeds={"oci": "gpuhunt"})
    [refusal] = result.refused["oci"]
    assert refusal.check == check and detail in refusal.detail


def test_gpuhunt_an_empty_provider_file_is_refused(httpserver: HTTPServer, tmp_path: Path) -> None:
    header = (GPUHUNT / "oci.csv").read_bytes().split(b"\r\n")[0] + b"\r\n"
    _serve_gpuhunt(httpserver, _zip(oci=header))
    result = _refresh(httpserver, tmp_path / "data", ["oci"], feeds={"oci": "gpuhunt"})
    [refusal] = result.refused["oci"]
    assert (refusal.check, refusal.detail) == (
        "rows.empty",
        "the feed has no accelerator rows (last good data: 84)",
    )


def test_gpuhunt_version_that_is_not_a_version_is_refused(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/gh/v2/version").respond_with_data(
        b"<Error>AccessDenied</Error>", content_type="application/xml"
    )
    result = _refresh(httpserver, tmp_path / "data", ["oci"], feeds={"oci": "gpuhunt"})
    [refusal] = result.refused["oci"]
    assert "did not answer a catalog version" in refusal.detail


def _serve_lambda(server: HTTPServer, body: bytes, status: int = 200) -> None:
    server.expect_request(
        "/lambda/api/v1/instance-types", headers={"Authorization": f"Bearer {SECRET}"}
    ).respond_with_data(body, status=status, content_type="application/json")


def test_lambda_api_with_a_key_prices_every_catalog_region(httpserver: HTTPServer, tmp_path: Path) -> None:
    _serve_lambda(httpserver, (RECORDED / "lambda-instance-types.json").read_bytes())
    lines: list[str] = []
    result = _refresh(
        httpserver, tmp_path / "data", ["lambda"], env={"LAMBDA_API_KEY": SECRET}, progress=lines.append
    )
    assert result.providers == ("lambda",) and result.rows == {"lambda": 374}
    assert _offers(result.catalog_path, "lambda") == _embedded("lambda")
    [outcome] = result.outcomes
    assert outcome.source.startswith("lambda-api: Lambda instance-types API")
    [new] = [u for u in outcome.unmapped if u.reason.startswith("instance type not in the catalog")]
    assert new.examples == ("gpu_1x_gh400",)
    assert "lambda: 2 (instance type, region) pairs with capacity available now" in lines
    # the regions with capacity become the offers' capacity signal; every other region is "none"
    doc = json.loads((RECORDED / "lambda-instance-types.json").read_text(encoding="utf-8"))["data"]
    listed = {(n, r["name"]) for n, e in doc.items() for r in e["regions_with_capacity_available"]}
    capacity = {(t, r): o["capacity"] for (t, r, _p), o in _records(result.catalog_path, "lambda").items()}
    assert {k for k, v in capacity.items() if v == "available"} == listed and len(listed) == 2
    assert set(capacity.values()) == {"available", "none"}
    assert not any(SECRET in line for line in lines)


def test_lambda_api_errors_never_show_the_key(
    httpserver: HTTPServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _serve_lambda(httpserver, json.dumps({"error": {"code": "global/invalid-api-key"}}).encode(), status=401)
    monkeypatch.setenv("LAMBDA_API_KEY", SECRET)
    url = httpserver.url_for("/lambda/api/v1")
    code = main([
        "catalog", "refresh", "--provider", "lambda", "--source", str(MARKET),
        "--data-dir", str(tmp_path / "d"), "--feed-url", f"lambda-api={url}", "--json",
    ])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 4
    [provider] = json.loads(out)["providers"]
    assert provider["refusals"][0]["detail"].endswith("/lambda/api/v1/instance-types (HTTP 401)")
    assert SECRET not in out and SECRET not in err
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {SECRET}"


def test_lambda_without_a_key_falls_back_to_the_skypilot_feed(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/sky/catalogs/v8/lambda/vms.csv").respond_with_data(
        (RECORDED / "lambda-vms.csv").read_bytes(), content_type="text/csv"
    )
    result = _refresh(httpserver, tmp_path / "data", ["lambda"])
    assert result.outcomes[0].source.startswith("skypilot: skypilot-org/skypilot-catalog")


def test_forcing_the_lambda_api_without_a_key_is_a_refusal_naming_the_variable(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    result = _refresh(httpserver, tmp_path / "data", ["lambda"], feeds={"lambda": "lambda-api"})
    [refusal] = result.refused["lambda"]
    assert (
        refusal.detail
        == "no usable feed: lambda-api needs $LAMBDA_API_KEY (To fix: set it in the environment)"
    )
    assert httpserver.log == []


@pytest.mark.parametrize(
    ("feeds", "message"),
    [
        ({"lambda": "gpuhnt"}, r"no feed adapter 'gpuhnt'.*did you mean 'gpuhunt'"),
        ({"lambda": "lambda-api", "aws": "lambda-api"}, r"the lambda-api feed has no aws prices"),
        ({"gcp": "gpuhunt"}, r"'gcp' is not refreshed here"),
    ],
)
def test_bad_feed_overrides_are_errors(tmp_path: Path, feeds: dict[str, str], message: str) -> None:
    with pytest.raises(CatalogRefreshError, match=message):
        refresh_catalog(MARKET, providers=["lambda", "aws"], feeds=feeds, data_dir=tmp_path, env={})


AZURE = RECORDED / "azure-retail"


def _serve_azure(server: HTTPServer, page_size: int = 40, next_host: str | None = None) -> None:
    """Azure's Retail Prices API: each region's recorded items in pages, NextPageLink with $skip."""
    from urllib.parse import parse_qs, urlencode

    from werkzeug import Request as WRequest
    from werkzeug import Response

    def handler(request: WRequest) -> Response:
        query = parse_qs(request.query_string.decode())
        region = query["$filter"][0].split("armRegionName eq '")[1].rstrip("'")
        doc = json.loads((AZURE / f"{region}.json").read_text(encoding="utf-8"))
        skip = int(query.get("$skip", ["0"])[0])
        items = doc["Items"][skip : skip + page_size]
        more = skip + page_size < len(doc["Items"])
        host = next_host or f"127.0.0.1:{server.port}"
        link = f"http://{host}/api/retail/prices?" + urlencode(
            {"$filter": query["$filter"][0], "$skip": skip + page_size}
        )
        page = {**doc, "Items": items, "Count": len(items), "NextPageLink": link if more else None}
        return Response(json.dumps(page), mimetype="application/json")

    server.expect_request("/api/retail/prices").respond_with_handler(handler)


def test_azure_retail_follows_every_page_and_maps_linux_on_demand_and_spot(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_azure(httpserver)
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", ["azure"], progress=lines.append)
    assert result.providers == ("azure",), result.refused
    pages = [r for r, _ in httpserver.log]
    assert len(pages) > 8 and any("%24skip=" in r.url or "$skip=" in r.url for r in pages)  # paging followed
    refreshed = _offers(result.catalog_path, "azure")
    embedded = _embedded("azure")
    assert {k: v for k, v in refreshed.items() if v is not None and k[2] != "reserved"} == {
        k: v for k, v in embedded.items() if v is not None
    }
    [outcome] = result.outcomes
    reasons = {u.reason: u.count for u in outcome.unmapped}
    assert reasons["Windows, Low Priority or DevTest prices (not comparable)"] > 0
    # Reservation items: retailPrice is the whole 1-year term; the offer is that over 8,760 h
    doc = json.loads(result.catalog_path.read_text(encoding="utf-8"))
    reserved = {
        (o["instance_type"], o["region"]): o
        for o in doc["offers"]
        if o["provider"] == "azure" and o["pricing"] == "reserved"
    }
    items = json.loads((AZURE / "eastus.json").read_text(encoding="utf-8"))["Items"]
    [nc12] = [i for i in items if i["armSkuName"] == "Standard_NC12s_v3" and i["type"] == "Reservation"]
    offer = reserved[("Standard_NC12s_v3", "eastus")]
    assert (offer["term_months"], offer["upfront"]) == (12, "none")
    assert offer["hourly_usd"] == round(nc12["retailPrice"] / 8760, 6)
    assert offer["hourly_usd"] < refreshed[("Standard_NC12s_v3", "eastus", "on_demand")]  # type: ignore[operator]
    assert "12-month reservation, no upfront" in offer["source"]
    assert any(line.startswith("azure: ") and "page(s) read for 8 region(s)" in line for line in lines)


def test_azure_retail_refuses_a_next_page_link_to_another_host(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_azure(httpserver, next_host="prices.example.invalid")
    result = _refresh(httpserver, tmp_path / "data", ["azure"], feeds={"azure": "azure-retail"})
    [refusal] = result.refused["azure"]
    assert refusal.check == "format" and "NextPageLink points away from 127.0.0.1" in refusal.detail
