"""Hostile values inside a feed's own format, served from 127.0.0.1 (red team, after issue 10 section 3):
each is a refusal of that provider with its reason, never a traceback or a price made up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from pytest_httpserver import HTTPServer
from test_feed_live_adapters import _refresh, _serve_gcp


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _first_unit_price(**money: Any) -> Any:
    def edit(doc: dict[str, Any]) -> dict[str, Any]:
        doc = json.loads(json.dumps(doc))
        rate = doc["skus"][0]["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
        rate.update(money)
        return doc

    return edit


@pytest.mark.parametrize(
    "money",
    [
        {"units": float("inf")},  # json.loads reads Infinity / 1e400 as inf: int(inf) raised OverflowError
        {"units": 1.75},  # int(1.75) == 1: a dollar per hour silently dropped from the price
        {"nanos": float("nan")},  # refused before too (int(nan) is a ValueError); kept as a guard
        {"units": "12345678901234567890123"},  # beyond int64: refused, not priced at 1.2e22 USD
        {"units": "9999999999999999999"},  # 19 digits, still beyond int64
        {"units": "0", "nanos": 2_000_000_000},  # a nanos beyond a dollar: two dollars no units says
        {"units": "1", "nanos": -500_000_000},  # units and nanos of opposite signs
    ],
    ids=[
        "units-infinity",
        "units-fraction",
        "nanos-nan",
        "units-huge",
        "units-19-digits",
        "nanos-huge",
        "signs",
    ],
)
def test_a_gcp_unit_price_outside_the_money_format_is_refused(
    httpserver: HTTPServer, tmp_path: Path, money: dict[str, Any]
) -> None:
    _serve_gcp(httpserver, _first_unit_price(**money))
    result = _refresh(httpserver, tmp_path / "data", ["gcp"])
    assert result.providers == () and "unitPrice" in result.refused["gcp"][0].detail
