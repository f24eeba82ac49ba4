"""Hostile feed servers against the real transport on 127.0.0.1 (red team, after issue 10 section 3)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog._transport import HttpxTransport, Request, read_body

KEY = "AIzaTESTKEY0123456789"


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


@pytest.fixture
def elsewhere() -> Iterator[HTTPServer]:
    """A second server: another port of 127.0.0.1 is another origin, as another host would be."""
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()
    yield server
    server.clear()
    server.stop()


def test_a_redirect_to_another_origin_does_not_carry_the_api_key(
    httpserver: HTTPServer, elsewhere: HTTPServer
) -> None:
    # GCP's billing feed sends its key in X-goog-api-key; httpx strips only Authorization on a
    # cross-origin redirect, so a 302 from the feed (or a mirror given with --feed-url) handed the key
    # to whatever host it named.
    seen: list[dict[str, str]] = []

    def record(request: WRequest) -> Response:
        seen.append(dict(request.headers))
        return Response(b'{"skus": []}', content_type="application/json")

    elsewhere.expect_request("/collect").respond_with_handler(record)
    location = elsewhere.url_for("/collect")
    redirect = {"Location": location}
    httpserver.expect_request("/v1/services").respond_with_data(b"", status=302, headers=redirect)
    request = Request(
        url=httpserver.url_for("/v1/services"),
        headers=(("X-goog-api-key", KEY), ("Authorization", f"Bearer {KEY}"), ("X-Trace", "kept")),
        accept=("application/json",),
        secrets=(KEY,),
    )
    assert read_body(HttpxTransport(timeout_s=5).fetch(request)) == b'{"skus": []}'
    (headers,) = seen
    assert not [name for name, value in headers.items() if KEY in value]
    assert headers["X-Trace"] == "kept"  # only the headers carrying a secret are dropped


def test_a_redirect_within_the_origin_keeps_the_key(httpserver: HTTPServer) -> None:
    seen: list[str | None] = []

    def record(request: WRequest) -> Response:
        seen.append(request.headers.get("X-goog-api-key"))
        return Response(b"{}", content_type="application/json")

    httpserver.expect_request("/new").respond_with_handler(record)
    httpserver.expect_request("/old").respond_with_data(b"", status=301, headers={"Location": "/new"})
    request = Request(url=httpserver.url_for("/old"), headers=(("X-goog-api-key", KEY),), secrets=(KEY,))
    assert read_body(HttpxTransport(timeout_s=5).fetch(request)) == b"{}"
    assert seen == [KEY]
