"""The bounded transport against a real HTTP server on 127.0.0.1: size caps, gzip bombs, deadlines,
timeouts, 429 with Retry-After, secrets kept out of messages (issue 10 section 3, issue 12 section 5)."""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator

import pytest
from catalog_offline import no_internet  # noqa: F401  (autouse: no test leaves 127.0.0.1)
from pytest_httpserver import HTTPServer
from werkzeug import Request as WRequest
from werkzeug import Response

from computeops_cdk.catalog._transport import FeedFetchError, HttpxTransport, Request, iter_lines, read_body
from computeops_cdk.errors import CatalogRefreshError


@pytest.fixture(scope="session")
def httpserver_listen_address() -> tuple[str, int]:
    return ("127.0.0.1", 0)


def _get(transport: HttpxTransport, url: str, **kwargs: object) -> bytes:
    return read_body(transport.fetch(Request(url=url, **kwargs)))  # type: ignore[arg-type]


def test_reads_a_local_server(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/ok").respond_with_data(b"hello", content_type="text/plain")
    assert _get(HttpxTransport(timeout_s=5), httpserver.url_for("/ok")) == b"hello"


def test_429_is_retried_after_the_servers_retry_after(httpserver: HTTPServer) -> None:
    httpserver.expect_oneshot_request("/feed").respond_with_data(
        b"slow down", status=429, headers={"Retry-After": "2"}
    )
    httpserver.expect_request("/feed").respond_with_data(b"a,b\n1,2\n", content_type="text/csv")
    waits: list[float] = []
    body = _get(HttpxTransport(timeout_s=5, sleep=waits.append), httpserver.url_for("/feed"))
    assert body == b"a,b\n1,2\n" and waits == [2.0]


def test_a_retry_after_longer_than_allowed_fails_at_once(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/feed").respond_with_data(b"", status=429, headers={"Retry-After": "3600"})
    waits: list[float] = []
    with pytest.raises(FeedFetchError, match=r"HTTP 429 asking to retry after 3600 s, longer than"):
        _get(HttpxTransport(timeout_s=5, sleep=waits.append), httpserver.url_for("/feed"))
    assert waits == []


def test_retries_are_bounded(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/feed").respond_with_data(b"", status=429, headers={"Retry-After": "1"})
    waits: list[float] = []
    with pytest.raises(FeedFetchError, match=r"\(HTTP 429\)$"):
        _get(HttpxTransport(timeout_s=5, retries=2, sleep=waits.append), httpserver.url_for("/feed"))
    assert waits == [1.0, 1.0]
    assert len(httpserver.log) == 3


def test_a_server_that_never_answers_times_out(httpserver: HTTPServer) -> None:
    def stall(_request: WRequest) -> Response:
        time.sleep(1.5)
        return Response(b"late")

    httpserver.expect_request("/feed").respond_with_handler(stall)
    with pytest.raises(FeedFetchError, match=r"ReadTimeout"):
        _get(HttpxTransport(timeout_s=0.3), httpserver.url_for("/feed"))


def test_a_trickling_body_is_cut_at_the_deadline(httpserver: HTTPServer) -> None:
    def trickle() -> Iterator[bytes]:
        for _ in range(20):
            yield b"x"
            time.sleep(0.2)

    httpserver.expect_request("/feed").respond_with_handler(
        lambda _r: Response(trickle(), mimetype="text/csv")
    )
    started = time.monotonic()
    with pytest.raises(FeedFetchError, match=r"not complete within the 1 s deadline"):
        _get(HttpxTransport(timeout_s=5, deadline_s=1), httpserver.url_for("/feed"))
    assert time.monotonic() - started < 3  # bounded by the deadline, not the 4 s the server wanted


def test_a_body_over_the_declared_cap_is_refused(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/feed").respond_with_data(b"x" * 5000, content_type="text/csv")
    with pytest.raises(FeedFetchError, match=r"body of 5,000 bytes exceeds the 1,000 cap"):
        _get(HttpxTransport(max_bytes=1000), httpserver.url_for("/feed"))


def test_a_chunked_body_over_the_cap_is_cut(httpserver: HTTPServer) -> None:
    def endless() -> Iterator[bytes]:
        for _ in range(100):
            yield b"y" * 1000

    httpserver.expect_request("/feed").respond_with_handler(
        lambda _r: Response(endless(), mimetype="text/csv")
    )
    with pytest.raises(FeedFetchError, match=r"exceeds the 10,000-byte cap \(decompressed\)"):
        _get(HttpxTransport(max_bytes=10_000), httpserver.url_for("/feed"))


def test_a_gzip_bomb_stops_at_the_cap(httpserver: HTTPServer) -> None:
    bomb = gzip.compress(b"0" * 64 * 1024 * 1024, compresslevel=9)  # ~64 KiB on the wire, 64 MiB inside
    assert len(bomb) < 200_000
    httpserver.expect_request("/feed").respond_with_data(
        bomb, content_type="text/csv", headers={"Content-Encoding": "gzip"}
    )
    with pytest.raises(FeedFetchError, match=r"exceeds the 1,048,576-byte cap \(decompressed\)"):
        _get(HttpxTransport(max_bytes=1024 * 1024), httpserver.url_for("/feed"))


def test_a_secret_never_reaches_the_message(httpserver: HTTPServer) -> None:
    secret = "sk-test-0123456789abcdef"
    httpserver.expect_request("/prices").respond_with_data(b"no", status=403)
    url = httpserver.url_for("/prices") + f"?key={secret}"
    with pytest.raises(FeedFetchError) as info:
        _get(
            HttpxTransport(timeout_s=5),
            url,
            secrets=(secret,),
            headers=(("Authorization", f"Bearer {secret}"),),
        )
    assert secret not in str(info.value) and "key=***" in str(info.value)
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {secret}"  # it was sent, only hidden


def test_iter_lines_detects_a_cut_body_and_long_lines() -> None:
    assert list(iter_lines([b"a,b\r\n1,", b"2\r\n"], what="x")) == ["a,b\r\n", "1,2\r\n"]
    with pytest.raises(CatalogRefreshError, match=r"stops mid-line \(3 bytes after the last line end\)"):
        list(iter_lines([b"a,b\n1,2"], what="x"))
    with pytest.raises(CatalogRefreshError, match=r"a line longer than"):
        list(iter_lines([b"z" * (2 * 1024 * 1024)], what="x"))
    with pytest.raises(CatalogRefreshError, match=r"not UTF-8"):
        list(iter_lines([b"\xff\xfe\n"], what="x"))


def test_the_offline_guard_refuses_any_address_but_the_loopback() -> None:
    with pytest.raises(AssertionError, match=r"tried to reach \('192\.0\.2\.1', 80\)"):
        _get(HttpxTransport(timeout_s=2), "http://192.0.2.1/feed")
