"""The GCP Cloud Billing, OCI price-list, RunPod GraphQL and Vast.ai search adapters against a real
HTTP server on 127.0.0.1 serving recorded responses in each source's format.

The responses under tests/catalog/recorded/ were built here in each API's documented/observed
shape from the snapshot's own prices (this machine cannot reach the APIs; see recorded/README.md):
GCP ``{"skus": [...], "nextPageToken": ...}`` pages, OCI's ``{"lastUpdated", "items"}`` document,
RunPod's GraphQL ``{"data": {"gpuTypes": [...]}}`` envelope per data centre, Vast's ``{"offers":
[...]}``. Every failure mode is tried per provider: paging, a timeout, HTTP 500, 429 with
Retry-After, a truncated body, a 100x price swing, an empty feed, and the API key never shown.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from catalog_testdata import MARKET, RECORDED
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog import load_catalog
from computeops_cdk.catalog._refresh import RefreshResult, refresh_catalog
from computeops_cdk.catalog._transport import HttpxTransport
from computeops_cdk.catalog.feeds import runpod_graphql, vast_search
from computeops_cdk.cli import main

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
KEY = "AIzaSy-test-billing-key-0123456789abcdef"
GCP = RECORDED / "gcp-billing"
RUNPOD = RECORDED / "runpod-graphql"
Doc = dict[str, Any]
Edit = Callable[[Doc], Doc]


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _load(path: Path) -> Doc:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _json(doc: Doc) -> bytes:
    return json.dumps(doc).encode()


# -- serving each source ---------------------------------------------------------------------------


def _serve_gcp(server: HTTPServer, edit: Edit = lambda d: d, **respond: Any) -> None:
    """Compute Engine in two pages (the second behind the first's nextPageToken), Cloud TPU in one."""
    pages = {
        name: _json(edit(_load(GCP / name))) for name in ("compute-1.json", "compute-2.json", "tpu-1.json")
    }
    token = _load(GCP / "compute-1.json")["nextPageToken"]

    def handler(request: WRequest) -> Response:
        if request.headers.get("X-goog-api-key") != KEY:
            return Response(b'{"error": {"code": 403, "message": "API key not valid"}}', status=403)
        if "6F81-5844-456A" in request.path:
            name = "compute-2.json" if request.args.get("pageToken") == token else "compute-1.json"
        else:
            name = "tpu-1.json"
        return Response(respond.get("body", pages[name]), status=respond.get("status", 200),
                        content_type="application/json")  # fmt: skip

    server.expect_request("/gcp/v1/services/6F81-5844-456A/skus").respond_with_handler(handler)
    server.expect_request("/gcp/v1/services/E000-3F24-B8AA/skus").respond_with_handler(handler)


def _serve_oci(server: HTTPServer, edit: Edit = lambda d: d, **respond: Any) -> None:
    body = respond.get("body", _json(edit(_load(RECORDED / "oci-products.json"))))
    server.expect_request("/oci/products/", query_string="currencyCode=USD").respond_with_data(
        body, status=respond.get("status", 200), content_type="application/json"
    )


def _serve_runpod(server: HTTPServer, edit: Edit = lambda d: d, **respond: Any) -> None:
    def handler(request: WRequest) -> Response:
        query = json.loads(request.get_data())
        assert query["query"] == runpod_graphql.QUERY
        centre = query["variables"]["lowestPriceInput"]["dataCenterId"]
        body = respond.get("body", _json(edit(_load(RUNPOD / f"{centre}.json"))))
        return Response(body, status=respond.get("status", 200), content_type="application/json")

    server.expect_request("/runpod/graphql", method="POST").respond_with_handler(handler)


def _serve_vast(server: HTTPServer, edit: Edit = lambda d: d, **respond: Any) -> None:
    def handler(request: WRequest) -> Response:
        assert json.loads(request.get_data()) == vast_search.search_filter()
        body = respond.get("body", _json(edit(_load(RECORDED / "vast-bundles.json"))))
        return Response(body, status=respond.get("status", 200), content_type="application/json")

    server.expect_request("/vast/api/v0/bundles/", method="POST").respond_with_handler(handler)


SERVE = {"gcp": _serve_gcp, "oci": _serve_oci, "runpod": _serve_runpod, "vast": _serve_vast}


def _refresh(server: HTTPServer, data: Path, providers: list[str], **kwargs: Any) -> RefreshResult:
    args: dict[str, Any] = {
        "providers": providers,
        "data_dir": data,
        "now": NOW,
        "env": {"GOOGLE_BILLING_API_KEY": KEY},
        "urls": {
            "gcp-billing": server.url_for("/gcp"),
            "oci-pricelist": server.url_for("/oci"),
            "runpod-graphql": server.url_for("/runpod"),
            "vast-search": server.url_for("/vast"),
            "gpuhunt": server.url_for("/gh/v2"),
        },
        "base_url": server.url_for("/sky"),
        "transport": HttpxTransport(timeout_s=5, sleep=lambda _s: None),
    }
    args.update(kwargs)
    return refresh_catalog(MARKET, **args)


def _offers(path: Path, provider: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return {
        (o["instance_type"], o["region"], o["pricing"]): o for o in doc["offers"] if o["provider"] == provider
    }


def _unmapped(result: RefreshResult, provider: str) -> dict[str, int]:
    [outcome] = [o for o in result.outcomes if o.provider == provider]
    return {u.reason: u.count for u in outcome.unmapped}


def _unit(sku: Doc) -> float:
    price = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
    return int(price["units"]) + price["nanos"] / 1e9


def _sku(description: str) -> Doc:
    for name in ("compute-1.json", "compute-2.json", "tpu-1.json"):
        for sku in _load(GCP / name)["skus"]:
            if sku["description"] == description:
                return sku
    raise KeyError(description)


# -- GCP ---------------------------------------------------------------------------------------------


def test_gcp_follows_next_page_token_and_assembles_machine_prices(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_gcp(httpserver)
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", ["gcp"], progress=lines.append)
    assert result.providers == ("gcp",) and not result.refused
    tokens = [r.args.get("pageToken") for r, _ in httpserver.log if "6F81" in r.path]
    assert tokens == [None, _load(GCP / "compute-1.json")["nextPageToken"]]
    offers = _offers(result.catalog_path, "gcp")
    # a2-highgpu-4g = 48 vCPUs x A2 core + 340 GiB x A2 RAM + 4 x A100, each from its SKU
    core = _unit(_sku("A2 Instance Core running in us-central1"))
    ram = _unit(_sku("A2 Instance Ram running in us-central1"))
    gpu = _unit(_sku("Nvidia Tesla A100 GPU running in us-central1"))
    got = offers[("a2-highgpu-4g", "us-central1", "on_demand")]
    assert got["hourly_usd"] == pytest.approx(48 * core + 340 * ram + 4 * gpu, abs=2e-6)
    assert got["source"].startswith("GCP Cloud Billing Catalog API")
    spot_gpu = _unit(_sku("Nvidia Tesla A100 GPU attached to Spot Preemptible VMs running in us-central1"))
    spot = offers[("a2-highgpu-4g", "us-central1", "spot")]["hourly_usd"]
    spot_host = 48 * _unit(_sku("Spot Preemptible A2 Instance Core running in us-central1"))
    spot_host += 340 * _unit(_sku("Spot Preemptible A2 Instance Ram running in us-central1"))
    assert spot == pytest.approx(spot_host + 4 * spot_gpu, abs=2e-6)
    # TPU: a v5p SKU prices a chip (2 cores): v5p-8 = 4 chips; a v2 Pod SKU prices 8 cores: v2-32 = 4 units
    v5p = _sku("TpuV5p running in europe-west4")
    assert offers[("tpu-v5p-8", "europe-west4", "on_demand")]["hourly_usd"] == pytest.approx(
        4 * _unit(v5p), abs=2e-6
    )
    pod = _sku("Tpu-v2 Pod running in us-central1")
    assert offers[("tpu-v2-32", "us-central1", "on_demand")]["hourly_usd"] == pytest.approx(
        4 * _unit(pod), abs=2e-6
    )
    reasons = _unmapped(result, "gcp")
    assert reasons["committed-use SKUs (Commit1Yr/Commit3Yr: no reserved GCP offers from this feed)"] == 1
    assert reasons["GPU SKUs naming a GPU the catalog has no name for"] == 1  # the RTX PRO 6000 SKU
    assert reasons["not compute SKUs (storage, network, licences)"] == 1
    # no A4 SKUs: the a4 host rows cannot be priced; reported, and a4 leaves the refreshed catalog
    dropped = reasons["catalog rows whose parts the SKUs do not price in that region (dropped)"]
    assert dropped == sum(1 for o in _embedded_rows("gcp") if o.startswith("host_vm,a4-"))
    assert not any(k[0].startswith("a4-") for k in offers)
    assert "SKU prices no catalog row uses (other machine series, GPUs or regions)" in reasons  # N2
    assert any(line.startswith("gcp: 3 page(s)") for line in lines)


def _embedded_rows(provider: str) -> list[str]:
    return (MARKET / "raw" / f"{provider}.csv").read_text(encoding="utf-8").splitlines()[1:]


def test_gcp_without_a_key_is_skipped_not_refused_and_asks_nothing(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    result = _refresh(httpserver, tmp_path / "data", ["gcp"], env={})
    [outcome] = result.outcomes
    assert outcome.status == "skipped" and not result.refused and result.providers == ()
    assert [r.detail for r in outcome.refusals] == [
        "gcp-billing needs $GOOGLE_BILLING_API_KEY (To fix: set it in the environment)"
    ]
    assert httpserver.log == []


def test_gcp_key_never_reaches_output_logs_or_errors(
    httpserver: HTTPServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("GOOGLE_BILLING_API_KEY", KEY)
    for status in (403, 200):
        httpserver.clear()
        if status == 403:  # the error names the URL; the key rides in a header and is redacted anyway
            _serve_gcp(httpserver, status=403, body=b'{"error": {"code": 403, "message": "denied"}}')
        else:
            _serve_gcp(httpserver)
        code = main([
            "catalog", "refresh", "--provider", "gcp", "--source", str(MARKET),
            "--data-dir", str(tmp_path / "d"),
            "--feed-url", f"gcp-billing={httpserver.url_for('/gcp')}", "--json",
        ])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == (4 if status == 403 else 0)
        assert KEY not in out and KEY not in err and KEY not in caplog.text
        assert httpserver.log and all(r.headers["X-goog-api-key"] == KEY for r, _ in httpserver.log)
        assert all(KEY not in r.url for r, _ in httpserver.log)
    state = (tmp_path / "d").rglob("*")
    assert not any(KEY in p.read_text(encoding="utf-8", errors="replace") for p in state if p.is_file())


# -- OCI ---------------------------------------------------------------------------------------------


def test_oci_price_list_prices_every_region_of_a_shape_and_halves_for_preemptible(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_oci(httpserver)
    result = _refresh(httpserver, tmp_path / "data", ["oci"])
    assert result.providers == ("oci",) and not result.refused
    offers = _offers(result.catalog_path, "oci")
    items = {i["displayName"]: i for i in _load(RECORDED / "oci-products.json")["items"]}
    h100 = items["OCI - Compute - GPU - H100"]["currencyCodeLocalizations"][0]["prices"][0]["value"]
    regions = {k[1] for k in offers if k[0] == "BM.GPU.H100.8" and k[2] == "on_demand"}
    assert regions == {"af-casablanca-1", "af-johannesburg-1", "us-phoenix-1", "us-sanjose-1"}
    assert {offers[("BM.GPU.H100.8", r, "on_demand")]["hourly_usd"] for r in regions} == {8 * h100}
    v100 = offers[("VM.GPU3.2", "us-phoenix-1", "on_demand")]["hourly_usd"]
    assert offers[("VM.GPU3.2", "us-phoenix-1", "spot")]["hourly_usd"] == pytest.approx(v100 / 2)
    assert ("BM.GPU.H100.8", "us-phoenix-1", "spot") not in offers  # not preemptible in the catalog
    reasons = _unmapped(result, "oci")
    assert reasons["GPU items that are not cloud rentals (Metered, Cloud@Customer, licences)"] == 2
    assert reasons["GPU items not billed per GPU-hour"] == 1  # H100T per OCPU
    assert reasons["GPU price-list items with no shape in the catalog"] == 1  # X1
    assert reasons["catalog shapes the price list does not price (dropped)"] == 4  # RTXPRO x 4 regions


def test_oci_falls_back_to_gpuhunt_when_the_price_list_fails(httpserver: HTTPServer, tmp_path: Path) -> None:
    import io
    import zipfile

    _serve_oci(httpserver, status=500, body=b"oops")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("oci.csv", (RECORDED / "gpuhunt" / "oci.csv").read_bytes())
    httpserver.expect_request("/gh/v2/version").respond_with_data(b"20261201\n")
    httpserver.expect_request("/gh/v2/20261201/catalog.zip").respond_with_data(
        buffer.getvalue(), content_type="application/zip"
    )
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", ["oci"], progress=lines.append)
    assert result.providers == ("oci",)
    assert result.outcomes[0].source.startswith("gpuhunt: dstackai/gpuhunt published catalog")
    assert "oci: oci-pricelist failed (fetch); falling back to the next feed" in lines


# -- RunPod ------------------------------------------------------------------------------------------


def test_runpod_graphql_prices_secure_pods_and_keeps_stock_as_capacity(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_runpod(httpserver)
    result = _refresh(httpserver, tmp_path / "data", ["runpod"])
    assert result.providers == ("runpod",) and not result.refused
    centres = {
        json.loads(r.get_data())["variables"]["lowestPriceInput"]["dataCenterId"] for r, _ in httpserver.log
    }
    assert len(centres) == 24 and len(httpserver.log) == 24  # one query per data centre
    offers = _offers(result.catalog_path, "runpod")
    gpu = {g["displayName"]: g for g in _load(RUNPOD / "US-TX-3.json")["data"]["gpuTypes"]}["H100 SXM"]
    got = offers[("8x_H100-SXM_SECURE", "US-TX-3", "on_demand")]["hourly_usd"]
    assert got == pytest.approx(8 * gpu["securePrice"])
    reasons = _unmapped(result, "runpod")
    assert reasons["GPU types the catalog has no instance type for"] == 1  # RTX 5090
    assert reasons["community-cloud prices (the catalog lists secure-cloud pods only)"] >= 1
    # the data centre's stock is the offer's capacity: High with 8 GPUs free, Low with 2 (so an 8x
    # pod is "none" there), null where the type is not offered now
    stock = {
        (runpod_graphql.catalog_gpu_name(g["displayName"]), dc.stem): g["lowestPrice"]
        for dc in sorted(RUNPOD.glob("*.json"))
        for g in _load(dc)["data"]["gpuTypes"]
    }
    seen = set()
    for (name, centre, pricing), offer in offers.items():
        count, gpu = name.split("_")[0].rstrip("x"), name.split("_", 1)[1].removesuffix("_SECURE")
        lowest = stock[(gpu, centre)]
        free = lowest["stockStatus"] and lowest["maxUnreservedGpuCount"] >= int(count)
        want = lowest["stockStatus"].lower() if free else "none"
        assert offer["capacity"] == want, (name, centre, pricing)
        seen.add(want)
    assert seen == {"high", "low", "none"}
    assert all(
        o.capacity in ("high", "low", "none")
        for o in load_catalog(result.catalog_path).offers
        if o.provider == "runpod"
    )


_DISPLAY = {
    "A100 PCIe": "A100-80GB",
    "A100 SXM": "A100-80GB-SXM",
    "H100 PCIe": "H100",
    "RTX 3090": "RTX3090",
    "RTX 4090": "RTX4090",
}


def test_runpod_display_names_become_the_catalogs_gpu_names() -> None:
    more = {"RTX 4000 Ada": "RTX4000-Ada", "RTX A6000": "RTXA6000", "H100 NVL": "H100-NVL", "L40S": "L40S"}
    for display, name in {**_DISPLAY, **more, "RTX PRO 6000": "RTXPRO6000"}.items():
        assert runpod_graphql.catalog_gpu_name(display) == name


def test_runpod_graphql_errors_envelope_is_refused_with_the_message(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    body = _json({"errors": [{"message": "Something went wrong", "path": ["gpuTypes"]}], "data": None})
    _serve_runpod(httpserver, body=body)
    result = _refresh(httpserver, tmp_path / "data", ["runpod"])
    [refusal] = result.refused["runpod"]
    assert refusal.check == "format" and "GraphQL errors: Something went wrong" in refusal.detail


# -- Vast --------------------------------------------------------------------------------------------


def test_vast_search_takes_the_median_of_reliable_rentable_listings(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    _serve_vast(httpserver)
    lines: list[str] = []
    result = _refresh(httpserver, tmp_path / "data", ["vast"], progress=lines.append)
    assert result.providers == ("vast",) and not result.refused
    # each listing counts once (it was counted once per catalog region of its type)
    assert "vast: 206 listing(s) read, 201 counted into 67 (type, region) rows" in lines
    listings = _load(RECORDED / "vast-bundles.json")["offers"]
    h200 = sorted(
        o["dph_total"]
        for o in listings
        if (o["gpu_name"], o["num_gpus"], o["geolocation"]) == ("H200", 1, "France, FR")
        and o["id"] > 5  # ids 1-5: the unreliable, unrentable, unknown, too small, nowhere listings
    )
    offers = _offers(result.catalog_path, "vast")
    got = offers[("1x-H200-32-65536", "fr-france", "on_demand")]
    assert len(h200) == 3 and got["hourly_usd"] == h200[1]  # the median, not the 0.01 unreliable host
    reasons = _unmapped(result, "vast")
    assert reasons == {
        "listings below the reliability floor of 0.95": 1,
        "listings not rentable now": 1,
        "listings of a GPU and count the catalog has no instance type for": 1,
        "listings whose geolocation is not 'place, CC' of a country the catalog lists": 1,
        "listings with fewer vCPUs or less RAM than the catalog's instance type": 1,
    }


# -- the same failure modes for every adapter --------------------------------------------------------


def _scale(provider: str, factor: float) -> Edit:
    def gcp(doc: Doc) -> Doc:
        for sku in doc["skus"]:
            price = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
            value = (int(price["units"]) + price["nanos"] / 1e9) * factor
            price["units"], price["nanos"] = str(int(value)), round((value - int(value)) * 1e9)
        return doc

    def oci(doc: Doc) -> Doc:
        for item in doc["items"]:
            for loc in item["currencyCodeLocalizations"]:
                for price in loc["prices"]:
                    price["value"] *= factor
        return doc

    def runpod(doc: Doc) -> Doc:
        for gpu in doc["data"]["gpuTypes"]:
            for field in ("securePrice", "secureSpotPrice", "communityPrice"):
                if gpu.get(field):
                    gpu[field] *= factor
        return doc

    def vast(doc: Doc) -> Doc:
        for listing in doc["offers"]:
            for field in ("dph_total", "dph_base", "min_bid"):
                listing[field] *= factor
        return doc

    return {"gcp": gcp, "oci": oci, "runpod": runpod, "vast": vast}[provider]


def _empty(provider: str) -> Edit:
    def edit(doc: Doc) -> Doc:
        key = {"gcp": "skus", "oci": "items", "vast": "offers"}.get(provider)
        if key is None:
            doc["data"]["gpuTypes"] = []
        else:
            doc[key] = []
        return doc

    return edit


PROVIDERS = ("gcp", "oci", "runpod", "vast")


def _pin(provider: str) -> dict[str, str]:
    """OCI falls back to gpuhunt when its price list fails: pin it to test the price list alone."""
    return {"oci": "oci-pricelist"} if provider == "oci" else {}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_100x_price_swing_is_refused_for_that_provider_only(
    httpserver: HTTPServer, tmp_path: Path, provider: str
) -> None:
    SERVE[provider](httpserver, _scale(provider, 100.0))
    other = "oci" if provider != "oci" else "vast"
    SERVE[other](httpserver)
    result = _refresh(httpserver, tmp_path / "data", [provider, other], feeds={"oci": "oci-pricelist"})
    checks = {r.check for r in result.refused[provider]}
    assert "price.swing" in checks or "value.range" in checks
    swing = [r for r in result.refused[provider] if r.check == "price.swing"]
    assert swing and "moved more than 3x" in swing[0].detail
    assert result.providers == (other,)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_empty_feed_is_refused(httpserver: HTTPServer, tmp_path: Path, provider: str) -> None:
    SERVE[provider](httpserver, _empty(provider))
    result = _refresh(httpserver, tmp_path / "data", [provider], feeds=_pin(provider))
    [refusal] = result.refused[provider]
    assert refusal.check == "rows.empty"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_http_500_is_refused_and_the_last_good_data_kept(
    httpserver: HTTPServer, tmp_path: Path, provider: str
) -> None:
    SERVE[provider](httpserver, status=500, body=b"internal error")
    result = _refresh(httpserver, tmp_path / "data", [provider], feeds=_pin(provider))
    [refusal] = result.refused[provider]
    assert refusal.check == "fetch" and "(HTTP 500)" in refusal.detail
    assert result.outcomes[0].rows_after == result.outcomes[0].rows_before


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_truncated_body_is_refused(httpserver: HTTPServer, tmp_path: Path, provider: str) -> None:
    whole = {
        "gcp": (GCP / "compute-1.json").read_bytes(),
        "oci": (RECORDED / "oci-products.json").read_bytes(),
        "runpod": (RUNPOD / "US-TX-3.json").read_bytes(),
        "vast": (RECORDED / "vast-bundles.json").read_bytes(),
    }[provider]
    SERVE[provider](httpserver, body=whole[: len(whole) // 2])
    result = _refresh(httpserver, tmp_path / "data", [provider], feeds=_pin(provider))
    [refusal] = result.refused[provider]
    assert refusal.check == "format" and "not JSON" in refusal.detail


@pytest.mark.parametrize("provider", PROVIDERS)
def test_429_with_retry_after_is_waited_out(httpserver: HTTPServer, tmp_path: Path, provider: str) -> None:
    path = {"gcp": "/gcp/v1/services/6F81-5844-456A/skus", "oci": "/oci/products/",
            "runpod": "/runpod/graphql", "vast": "/vast/api/v0/bundles/"}[provider]  # fmt: skip
    httpserver.expect_oneshot_request(path).respond_with_data(
        b"slow down", status=429, headers={"Retry-After": "7"}
    )
    SERVE[provider](httpserver)
    waits: list[float] = []
    transport = HttpxTransport(timeout_s=5, sleep=waits.append)
    result = _refresh(httpserver, tmp_path / "data", [provider], transport=transport, feeds=_pin(provider))
    assert result.providers == (provider,) and waits == [7.0]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_server_that_never_answers_times_out(httpserver: HTTPServer, tmp_path: Path, provider: str) -> None:
    def slow(_request: WRequest) -> Response:
        time.sleep(1.0)
        return Response(b"{}", content_type="application/json")

    path = {"gcp": "/gcp/v1/services/6F81-5844-456A/skus", "oci": "/oci/products/",
            "runpod": "/runpod/graphql", "vast": "/vast/api/v0/bundles/"}[provider]  # fmt: skip
    httpserver.expect_request(path).respond_with_handler(slow)
    transport = HttpxTransport(timeout_s=0.2, retries=0)
    result = _refresh(httpserver, tmp_path / "data", [provider], transport=transport, feeds=_pin(provider))
    [refusal] = result.refused[provider]
    assert refusal.check == "fetch" and "ReadTimeout" in refusal.detail


@pytest.mark.parametrize(
    "body",
    [b'{"data": {"gpuTypes": [{"id": "NVIDIA H1', b"<html>502 Bad Gateway</html>", b"[" * 100_000],
    ids=["cut mid-value", "an HTML error page", "nesting that exhausts the parser"],
)
def test_the_json_feeds_refuse_a_body_that_is_not_json_with_one_short_message(body: bytes) -> None:
    from computeops_cdk.catalog.feeds import parse_json
    from computeops_cdk.errors import CatalogRefreshError

    what = "runpod: US-CA-1: the GraphQL answer"
    with pytest.raises(CatalogRefreshError, match=rf"^{what} is not JSON \(") as err:
        parse_json(body, what)
    assert len(str(err.value)) < 200  # the parser's reason is cut, never the body echoed
