"""One scrape of Prometheus text from a file or an HTTP ``/metrics`` URL, parsed by
``prometheus_client``'s text parser (the exposition format's reference implementation).

Reading is bounded: a body larger than ``MAX_SCRAPE_BYTES``, a server slower than the timeout and
text the parser rejects are ``MetricsError``s. No value is guessed: a missing series is absent.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import MetricsError

__all__ = ["MAX_SCRAPE_BYTES", "SCRAPE_TIMEOUT_S", "Scrape", "parse_scrape", "read_scrape"]

MAX_SCRAPE_BYTES = 16 * 1024 * 1024
"""A vLLM server's /metrics is tens of kilobytes; far more is not a metrics endpoint."""
SCRAPE_TIMEOUT_S = 10.0
"""Whole-request deadline for one scrape (connect, headers and body)."""

Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Scrape:
    """Samples of one scrape: sample name -> {labels (sorted, without ``le``) -> value}, and buckets."""

    source: str
    samples: Mapping[str, Mapping[Labels, float]]
    buckets: Mapping[str, Mapping[Labels, tuple[tuple[float, float], ...]]]
    """Histogram name -> labels -> ((upper bound, cumulative count), ...) sorted by bound."""

    def total(self, name: str) -> float | None:
        """Sum of a sample over its label sets, None when the scrape has no such series."""
        series = self.samples.get(name)
        return None if not series else math.fsum(series.values())

    def mean(self, name: str) -> float | None:
        """Mean of a sample over its label sets (e.g. one GPU each), None when absent."""
        series = self.samples.get(name)
        return None if not series else math.fsum(series.values()) / len(series)


def parse_scrape(text: str, *, source: str) -> Scrape:
    """Parse Prometheus text exposition (0.0.4) into a Scrape; MetricsError when it is not that."""
    from prometheus_client.parser import text_string_to_metric_families

    samples: dict[str, dict[Labels, float]] = defaultdict(dict)
    buckets: dict[str, dict[Labels, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                value = float(sample.value)
                if math.isnan(value):
                    continue  # a NaN gauge says "no value": absent, never 0
                labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
                if sample.name.endswith("_bucket") and "le" in sample.labels:
                    bound = float(sample.labels["le"])
                    buckets[sample.name.removesuffix("_bucket")][labels].append((bound, value))
                else:
                    samples[sample.name][labels] = value
    except (ValueError, TypeError, IndexError, KeyError) as err:
        raise MetricsError(
            f"{source} is not Prometheus text exposition ({err}). "
            "To fix: point at a vLLM server's /metrics (or a file saved from it)"
        ) from None
    return Scrape(
        source=source,
        samples={k: dict(v) for k, v in samples.items()},
        buckets={name: {lab: tuple(sorted(b)) for lab, b in by.items()} for name, by in buckets.items()},
    )


def read_scrape(source: str, *, timeout_s: float = SCRAPE_TIMEOUT_S) -> Scrape:
    """One scrape of ``source``: an ``http(s)://`` URL (answering within ``timeout_s``) or a file path."""
    if source.startswith(("http://", "https://")):
        return parse_scrape(_fetch(source, timeout_s), source=source)
    path = Path(source)
    if not path.is_file():
        raise MetricsError(
            f"{source} is not a file or an http(s) URL. To fix: e.g. --metrics http://HOST:8000/metrics"
        )
    if path.stat().st_size > MAX_SCRAPE_BYTES:
        raise MetricsError(
            f"{source} is larger than {MAX_SCRAPE_BYTES // (1024 * 1024)} MiB: not a metrics scrape"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise MetricsError(f"cannot read {source} ({err})") from None
    return parse_scrape(text, source=source)


def _fetch(url: str, timeout_s: float) -> str:
    import httpx

    chunks: list[bytes] = []
    size = 0
    # httpx's timeout bounds each read, not the whole body: a server trickling a byte a second would
    # never trip it, so the deadline is checked between chunks too.
    deadline = time.monotonic() + timeout_s
    try:
        timeout = httpx.Timeout(timeout_s)
        with httpx.stream("GET", url, timeout=timeout, headers={"Accept": "text/plain"}) as response:
            if response.status_code != 200:
                raise MetricsError(
                    f"{url} answered HTTP {response.status_code}. To fix: check the URL and port"
                )
            for chunk in response.iter_bytes():
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("deadline")
                size += len(chunk)
                if size > MAX_SCRAPE_BYTES:
                    raise MetricsError(
                        f"{url} sent more than {MAX_SCRAPE_BYTES // (1024 * 1024)} MiB: not /metrics"
                    )
                chunks.append(chunk)
    except httpx.TimeoutException:
        raise MetricsError(
            f"{url} did not answer within {timeout_s:g} s. To fix: check the server is up and reachable"
        ) from None
    except httpx.HTTPError as err:
        raise MetricsError(f"cannot scrape {url} ({err}). To fix: check the URL, port and network") from None
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise MetricsError(f"{url} did not send UTF-8 text: not Prometheus metrics") from None
