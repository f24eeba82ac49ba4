"""gpuhunt's published catalogs (dstackai/gpuhunt): an aggregated fallback for the providers it covers.

gpuhunt publishes ``<base>/version`` (e.g. ``20261201``) and ``<base>/<version>/catalog.zip``: one
CSV per provider (``FILES``), one row per instance type, location and price model (``spot``
True/False), price in USD per hour. Not read with the ``gpuhunt`` library: its ``Catalog.load()``
downloads outside our bounded transport and re-normalises GPU names to its own vocabulary.

The rows are mapped onto the instance types and regions of the provider's last good data (specs
from there, prices from gpuhunt); others are reported as not mapped. GCP (host + accelerator priced
apart) and RunPod (GPU ids, not instance types) are not mapped from gpuhunt.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile

from ...errors import CatalogRefreshError
from .._transport import Request, read_body
from . import FeedContext, FeedResult, map_prices

__all__ = ["DEFAULT_URL", "FILES", "GpuhuntFeed"]

DEFAULT_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v2"
FILES = {
    "aws": "aws.csv",
    "azure": "azure.csv",
    "oci": "oci.csv",
    "lambda": "lambdalabs.csv",
    "nebius": "nebius.csv",
}
"""Our provider id -> the CSV in gpuhunt's catalog.zip."""
_COLUMNS = ("instance_name", "location", "price", "spot")
_MAX_ZIP = 256 * 1024 * 1024
_MAX_MEMBER = 256 * 1024 * 1024
_ACCEPT = ("application/zip", "application/octet-stream", "binary/octet-stream", "application/x-zip")
_VERSION = re.compile(r"[0-9A-Za-z._-]{1,64}")


class GpuhuntFeed:
    """Adapter for one provider's CSV in gpuhunt's published catalog."""

    name = "gpuhunt"
    needs: tuple[str, ...] = ()

    def fetch(self, ctx: FeedContext) -> FeedResult:
        provider = ctx.feed.provider
        member = FILES.get(provider)
        if member is None:
            raise CatalogRefreshError(f"{provider}: gpuhunt's catalog has no file for this provider")
        base = ctx.url.rstrip("/")
        version = self._version(ctx, base)
        url = f"{base}/{version}/catalog.zip"
        if url not in ctx.cache:
            ctx.say(f"fetching gpuhunt catalog {version}: {url}")
            ctx.cache[url] = read_body(ctx.transport.fetch(Request(url=url, accept=_ACCEPT)), limit=_MAX_ZIP)
        text = _member_text(ctx.cache[url], member, provider)
        prices = _prices(text, provider, member)
        rows, unmapped = map_prices(ctx.last_good, prices, region_column="Region")
        return FeedResult(
            rows=rows,
            columns=ctx.columns,
            repo="dstackai/gpuhunt published catalog",
            path=f"v2/{version}/catalog.zip:{member}",
            ref=version,
            unmapped=unmapped,
        )

    @staticmethod
    def _version(ctx: FeedContext, base: str) -> str:
        url = f"{base}/version"
        if url not in ctx.cache:
            ctx.cache[url] = read_body(ctx.transport.fetch(Request(url=url)), limit=256)
        text = ctx.cache[url].decode("utf-8", "replace").strip()
        if not _VERSION.fullmatch(text):
            raise CatalogRefreshError(f"gpuhunt: {url} did not answer a catalog version ({text[:40]!r})")
        return text


def _member_text(body: bytes, member: str, provider: str) -> str:
    try:
        archive = zipfile.ZipFile(io.BytesIO(body))
        info = archive.getinfo(member)
    except (zipfile.BadZipFile, KeyError, OSError) as err:
        raise CatalogRefreshError(
            f"{provider}: gpuhunt catalog.zip has no readable {member} ({err})"
        ) from None
    if info.file_size > _MAX_MEMBER:
        raise CatalogRefreshError(f"{provider}: {member} inflates to {info.file_size:,} bytes; refused")
    parts, total = [], 0
    try:
        with archive.open(info) as handle:
            while chunk := handle.read(1 << 20):  # bounded even if the header under-states the size
                total += len(chunk)
                if total > _MAX_MEMBER:
                    raise CatalogRefreshError(f"{provider}: {member} inflates past {_MAX_MEMBER:,} bytes")
                parts.append(chunk)
        return b"".join(parts).decode("utf-8")
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError) as err:
        raise CatalogRefreshError(f"{provider}: {member} in gpuhunt catalog.zip is corrupt ({err})") from None


def _prices(text: str, provider: str, member: str) -> dict[tuple[str, str], dict[str, str]]:
    """(instance_name, location) -> {"Price": on-demand, "SpotPrice": spot} as text."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise CatalogRefreshError(
            f"{provider}: {member} is not a gpuhunt catalog CSV (missing {', '.join(missing)})"
        )
    out: dict[tuple[str, str], dict[str, str]] = {}
    try:
        for line, row in enumerate(reader, start=2):
            if None in row or None in row.values():
                raise CatalogRefreshError(f"{provider}: {member} line {line} is cut or malformed")
            spot = row["spot"].strip().lower()
            if spot not in ("true", "false"):
                raise CatalogRefreshError(
                    f"{provider}: {member} line {line}: spot {row['spot'][:20]!r} is not True/False"
                )
            column = "SpotPrice" if spot == "true" else "Price"
            entry = out.setdefault((row["instance_name"], row["location"]), {})
            entry[column] = _lowest(entry.get(column), row["price"])
    except csv.Error as err:
        raise CatalogRefreshError(f"{provider}: {member} is not valid CSV ({err})") from None
    return out


def _lowest(current: str | None, new: str) -> str:
    if current is None:
        return new
    try:
        return new if float(new) < float(current) else current
    except ValueError:
        return new  # the sanity checks refuse the non-number with its value
