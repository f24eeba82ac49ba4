"""The one seam to the network, with bounds on everything a feed can do to us.

A feed adapter describes what it wants as a ``Request`` and reads the body as a stream of chunks
from ``Transport.fetch``. The real transport (httpx) enforces, per request: a cap on the body size
counted *after* decompression (a gzip bomb stops at the cap), a read timeout, an overall deadline
(a server trickling one byte every few seconds is cut off), the content types the feed may have
(an HTML error page served with 200 is refused), and bounded retries that honour ``Retry-After``
on 429/503. Secrets (API keys) ride in ``Request.secrets`` and are blanked from every message.
"""

from __future__ import annotations

import email.utils
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

import httpx

from ..errors import CatalogRefreshError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FeedFetchError",
    "HttpxTransport",
    "Request",
    "Transport",
    "iter_lines",
    "read_body",
    "redact",
]

DEFAULT_MAX_BYTES = 512 * 1024 * 1024
"""Largest body (decompressed) one request may deliver; an AWS region's EC2 price CSV is far below."""

_STEP = 1024 * 1024  # largest piece inflated at once
_MAX_LINE = 1024 * 1024  # one CSV line; a longer one is not a price row
_RETRY_STATUSES = (429, 503)


class FeedFetchError(CatalogRefreshError):
    """One request failed for good (status, timeout, deadline, size, content type); message redacted."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One HTTP request of a feed adapter.

    Attributes:
        url: the address (may carry a key in the query; list the key in ``secrets``).
        method: "GET" or "POST".
        headers: extra request headers (an ``Authorization`` value belongs in ``secrets`` too).
        body: the POST body, or None.
        accept: content types the response may have (prefix match, e.g. ``"text/csv"``); empty means
            anything but HTML.
        secrets: strings that must never appear in a message, a log line or an exception.
    """

    url: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    accept: tuple[str, ...] = ()
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def shown_url(self) -> str:
        """The URL with every secret blanked, for messages."""
        return redact(self.url, self.secrets)


class Transport(Protocol):
    """The one seam to the network: the response body of ``request`` as chunks, or FeedFetchError."""

    def fetch(self, request: Request) -> Iterator[bytes]: ...


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every non-empty secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


class HttpxTransport:
    """The real transport: httpx with a body cap, a read timeout, a deadline and bounded retries.

    Args:
        timeout_s: connect/read timeout of one request. Default: 30 s.
        deadline_s: the whole fetch (retries and waits included) must end within this. Default: 300 s.
        max_bytes: largest decompressed body. Default: DEFAULT_MAX_BYTES (512 MiB).
        retries: how many times a 429/503 is retried. Default: 3.
        max_wait_s: longest Retry-After honoured; a longer one fails at once. Default: 60 s.
        sleep: how to wait between attempts. Default: time.sleep.
    """

    def __init__(
        self,
        *,
        timeout_s: float = 30.0,
        deadline_s: float = 300.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        retries: int = 3,
        max_wait_s: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.timeout_s = timeout_s
        self.deadline_s = deadline_s
        self.max_bytes = max_bytes
        self.retries = retries
        self.max_wait_s = max_wait_s
        self.sleep = sleep

    def fetch(self, request: Request) -> Iterator[bytes]:
        """Stream the body of ``request``; raises FeedFetchError (redacted) on any failure."""
        deadline = time.monotonic() + self.deadline_s
        try:
            yield from self._fetch(request, deadline)
        except httpx.HTTPError as err:
            if isinstance(err, httpx.TimeoutException) and time.monotonic() >= deadline - 0.05:
                detail = f"not complete within the {self.deadline_s:g} s deadline"
                raise self._error(request, detail) from None
            raise self._error(request, f"{type(err).__name__}: {err}") from None

    def _fetch(self, request: Request, deadline: float) -> Iterator[bytes]:
        headers = dict(request.headers)
        headers.setdefault("Accept-Encoding", "gzip, deflate")
        hooks = {"request": [_secrets_stay_home(request)]}
        with httpx.Client(timeout=self.timeout_s, follow_redirects=True, event_hooks=hooks) as client:
            for attempt in range(self.retries + 1):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._error(request, f"no answer within the {self.deadline_s:g} s deadline")
                timeout = httpx.Timeout(min(self.timeout_s, remaining))
                with client.stream(
                    request.method, request.url, headers=headers, content=request.body, timeout=timeout
                ) as response:
                    if response.status_code in _RETRY_STATUSES and attempt < self.retries:
                        wait = _retry_after(response.headers.get("Retry-After"), default=2.0**attempt)
                        self._check_wait(request, response.status_code, wait, deadline)
                        self.sleep(wait)
                        continue
                    if response.status_code >= 400:
                        raise self._error(request, f"HTTP {response.status_code}")
                    self._check_type(request, response.headers.get("Content-Type", ""))
                    yield from self._body(request, response, deadline)
                    return
        raise self._error(request, f"still refused after {self.retries} retries")  # pragma: no cover

    def _check_wait(self, request: Request, status: int, wait: float, deadline: float) -> None:
        if wait > self.max_wait_s or time.monotonic() + wait > deadline:
            raise self._error(
                request,
                f"HTTP {status} asking to retry after {wait:g} s, longer than this refresh may wait",
            )

    def _check_type(self, request: Request, content_type: str) -> None:
        kind = content_type.split(";")[0].strip().lower()
        allowed = request.accept
        ok = kind.startswith(allowed) if allowed else kind != "text/html"
        if not ok:
            raise self._error(
                request,
                f"Content-Type {kind or '(none)'!r}, expected "
                + (" or ".join(repr(a) for a in allowed) if allowed else "anything but an HTML page"),
            )

    def _body(self, request: Request, response: httpx.Response, deadline: float) -> Iterator[bytes]:
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise self._error(request, f"body of {int(declared):,} bytes exceeds the {self.max_bytes:,} cap")
        total = 0
        for chunk in self._decoded(request, response):
            total += len(chunk)
            if total > self.max_bytes:
                raise self._error(request, f"body exceeds the {self.max_bytes:,}-byte cap (decompressed)")
            if time.monotonic() > deadline:
                raise self._error(request, f"body not complete within the {self.deadline_s:g} s deadline")
            yield chunk

    def _decoded(self, request: Request, response: httpx.Response) -> Iterator[bytes]:
        """The body decoded in steps of at most 1 MiB: a gzip bomb never inflates more than a step
        past the cap (httpx's own decoder inflates each network chunk whole, ~1000x for zeros)."""
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        if encoding in ("", "identity"):
            yield from response.iter_raw()
            return
        if encoding not in ("gzip", "x-gzip", "deflate"):
            raise self._error(request, f"Content-Encoding {encoding[:20]!r} is not gzip or deflate")
        inflater = zlib.decompressobj(47 if "gzip" in encoding else 15)  # 47: gzip or zlib header
        try:
            for raw in response.iter_raw():
                pending = raw
                while pending:
                    yield inflater.decompress(pending, _STEP)
                    pending = inflater.unconsumed_tail
            yield inflater.flush()
        except zlib.error as err:
            raise self._error(request, f"the {encoding} body is corrupt ({err})") from None

    @staticmethod
    def _error(request: Request, detail: str) -> FeedFetchError:
        return FeedFetchError(redact(f"could not fetch {request.shown_url()} ({detail})", request.secrets))


def _secrets_stay_home(request: Request) -> Callable[[httpx.Request], None]:
    """A request hook dropping every header that carries a secret once a redirect leaves the
    request's origin (scheme, host, port): httpx drops only ``Authorization`` there, so a key in any
    other header (GCP's ``X-goog-api-key``) reached whatever host the redirect named."""
    home = httpx.URL(request.url)
    origin = (home.scheme, home.host, home.port)
    carrying = [name for name, value in request.headers if any(s and s in value for s in request.secrets)]

    def hook(outgoing: httpx.Request) -> None:
        if (outgoing.url.scheme, outgoing.url.host, outgoing.url.port) != origin:
            for name in carrying:
                outgoing.headers.pop(name, None)

    return hook


def _retry_after(value: str | None, *, default: float) -> float:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return default
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def read_body(chunks: Iterable[bytes], *, limit: int = DEFAULT_MAX_BYTES) -> bytes:
    """All of a (small) body in memory, bounded by ``limit``."""
    parts: list[bytes] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise FeedFetchError(f"the body exceeds {limit:,} bytes")
        parts.append(chunk)
    return b"".join(parts)


def iter_lines(chunks: Iterable[bytes], *, what: str) -> Iterator[str]:
    """UTF-8 text lines (with their line end) from a chunk stream, in bounded memory.

    Raises:
        CatalogRefreshError: the body is not UTF-8, a line exceeds 1 MiB, or the body stops
            mid-line (no final line end: a truncated transfer).
    """
    pending = b""
    for chunk in chunks:
        pending += chunk
        if b"\n" not in chunk:
            if len(pending) > _MAX_LINE:
                raise CatalogRefreshError(f"{what}: a line longer than {_MAX_LINE:,} bytes; not a price feed")
            continue
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield _decode(line + b"\n", what)
    if pending:
        raise CatalogRefreshError(
            f"{what}: the body stops mid-line ({len(pending)} bytes after the last line end): the "
            "transfer was cut short"
        )


def _decode(line: bytes, what: str) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise CatalogRefreshError(f"{what}: the feed is not UTF-8 text ({err.reason})") from None
