"""Refresh wall time and peak memory per feed adapter, on the recorded responses, served from 127.0.0.1.

Run: ``.venv/bin/python benchmarks/bench_refresh.py [--write benchmarks/REFRESH.md] [--repeat N]``

Each case is a fresh process (so its peak RSS is its own) running ``refresh_catalog`` against a
local HTTP server that serves tests/catalog/recorded/ in each source's format, into a temporary
data directory: fetch, parse, sanity checks, staged rebuild of the whole catalog, atomic commit.
Side by side, the same process shape doing only ``build_catalog`` (the floor every refresh pays:
the staged rebuild), and ``decide`` over the refreshed catalog vs the embedded one. Also the
transport alone streaming a 64 MiB body and a gzip bomb that inflates past a 32 MiB cap, to show the
memory stays bounded by the cap, not the body. The AWS bulk offer file parser alone, through the
transport, on one region's file at its recorded size and on a 256 MiB file in the same real format
(the recorded rows repeated, streamed by the server as it writes them): its peak RSS stays flat
(the ratio of the two is printed), as a real region file of hundreds of MB needs.
"""

from __future__ import annotations

import argparse
import http.server
import io
import itertools
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "catalog" / "recorded"
sys.path.insert(0, str(ROOT / "tests" / "catalog"))  # the tests' offer-file builder (aws_bulk_testdata)
LARGE_AWS = 256 << 20

_CHILD = r"""
import json, sys, time
def peak():  # this process's own high-water RSS (MB)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
case, base, data = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
if case == "build":
    from computeops_cdk.catalog._build import build_catalog
    build_catalog("data/market")
elif case.startswith("transport"):
    from computeops_cdk.catalog._transport import FeedFetchError, HttpxTransport, Request
    path, cap = ("/big", 1 << 30) if case == "transport-64MiB" else ("/bomb", 32 << 20)
    total = 0
    try:
        for chunk in HttpxTransport(max_bytes=cap).fetch(Request(url=base + path)):
            total += len(chunk)
    except FeedFetchError:
        pass
elif case.startswith("aws-parse"):
    from computeops_cdk.catalog._transport import HttpxTransport, Request
    from computeops_cdk.catalog.feeds.aws_bulk import Tally, parse_offer_file
    path = "/aws/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv"
    path = "/aws-synth/large" if case == "aws-parse-large" else path
    raw = open("data/market/raw/aws.csv").read().splitlines()[1:]
    types = frozenset(line.split(",")[0] for line in raw)
    prices, skipped = {}, Tally()
    chunks = HttpxTransport(deadline_s=600).fetch(Request(url=base + path, accept=("text/csv",)))
    offer = parse_offer_file(chunks, region="us-east-1", types=types, prices=prices, skipped=skipped)
    assert prices and offer.lines > 0
    print(json.dumps({"s": time.perf_counter() - t0, "rss_mb": peak(), "lines": offer.lines}))
    sys.exit(0)
elif case.startswith("decide"):
    from computeops_cdk.catalog import load_catalog
    from computeops_cdk.engine import decide
    catalog = load_catalog(data + "/current/catalog.json") if case == "decide-refreshed" else load_catalog()
    from computeops_cdk.intent import WorkloadIntent
    intent = WorkloadIntent.from_file("examples/support-chat.yaml")
    decide(intent, catalog=catalog)  # the first call builds the engine's index
    t0 = time.perf_counter()
    for _ in range(20):
        decide(intent, catalog=catalog)
    print(json.dumps({"s": (time.perf_counter() - t0) / 20, "rss_mb": peak()}))
    sys.exit(0)
else:
    from computeops_cdk.catalog._refresh import refresh_catalog
    providers, feeds = {
        "skypilot": (["lambda", "nebius"], {"lambda": "skypilot"}),
        "gpuhunt": (["aws", "azure", "oci"], {"aws": "gpuhunt", "azure": "gpuhunt", "oci": "gpuhunt"}),
        "lambda-api": (["lambda"], {"lambda": "lambda-api"}),
        "gcp-billing": (["gcp"], {}),
        "oci-pricelist": (["oci"], {"oci": "oci-pricelist"}),
        "runpod-graphql": (["runpod"], {}),
        "vast-search": (["vast"], {}),
        "aws-bulk": (["aws"], {"aws": "aws-bulk"}),
    }[case]
    result = refresh_catalog(
        "data/market", providers=providers, feeds=feeds, data_dir=data, base_url=base + "/sky",
        urls={"gpuhunt": base + "/gh/v2", "lambda-api": base + "/lambda/api/v1",
              "gcp-billing": base + "/gcp", "oci-pricelist": base + "/oci",
              "runpod-graphql": base + "/runpod", "vast-search": base + "/vast",
              "aws-bulk": base + "/aws"},
        env={"LAMBDA_API_KEY": "bench-key", "GOOGLE_BILLING_API_KEY": "bench-key"},
    )
    assert not result.refused, result.refused
print(json.dumps({"s": time.perf_counter() - t0, "rss_mb": peak()}))
"""


def _gpuhunt_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member in ("aws.csv", "azure.csv", "oci.csv", "lambdalabs.csv"):
            archive.writestr(member, (RECORDED / "gpuhunt" / member).read_bytes())
    return buffer.getvalue()


def _aws_routes() -> dict[str, tuple[bytes, str, dict[str, str]]]:
    from aws_bulk_testdata import OFFER_PATH, offer_file, regions

    return {"/aws" + OFFER_PATH.format(region=r): (offer_file(r), "text/csv", {}) for r in regions()}


def _large_aws() -> tuple[bytes, list[bytes]]:
    """The head (metadata + header) and the row lines a LARGE_AWS body repeats (real format)."""
    from aws_bulk_testdata import offer_file

    lines = offer_file("us-east-1").splitlines(keepends=True)
    return b"".join(lines[:6]), lines[6:]


def _routes() -> dict[str, tuple[bytes, str, dict[str, str]]]:
    big = b"0123456789abcdef" * (4 << 20)  # 64 MiB
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing, built in 1 MiB steps (no 256 MiB buffer)
    zeros = b"0" * (1 << 20)
    bomb = b"".join(packer.compress(zeros) for _ in range(256)) + packer.flush()
    return {
        "/sky/catalogs/v8/lambda/vms.csv": ((RECORDED / "lambda-vms.csv").read_bytes(), "text/csv", {}),
        "/sky/catalogs/v8/nebius/vms.csv": ((RECORDED / "nebius-vms.csv").read_bytes(), "text/csv", {}),
        "/gh/v2/version": (b"20261201\n", "binary/octet-stream", {}),
        "/gh/v2/20261201/catalog.zip": (_gpuhunt_zip(), "application/zip", {}),
        "/lambda/api/v1/instance-types": (
            (RECORDED / "lambda-instance-types.json").read_bytes(),
            "application/json",
            {},
        ),
        "/oci/products/?currencyCode=USD": (
            (RECORDED / "oci-products.json").read_bytes(),
            "application/json",
            {},
        ),
        "/vast/api/v0/bundles/": ((RECORDED / "vast-bundles.json").read_bytes(), "application/json", {}),
        "/big": (big, "text/csv", {}),
        "/bomb": (bomb, "text/csv", {"Content-Encoding": "gzip"}),
        **_aws_routes(),
    }


def _gcp_or_runpod(path: str, post: bytes) -> tuple[bytes, str, dict[str, str]] | None:
    """GCP's paged SKU lists (the page token picks page 2) and RunPod's per-data-centre answers."""
    if path.startswith("/gcp/v1/services/"):
        name = (
            "tpu-1.json"
            if "E000-3F24-B8AA" in path
            else "compute-2.json"
            if "pageToken=" in path
            else "compute-1.json"
        )
        return (RECORDED / "gcp-billing" / name).read_bytes(), "application/json", {}
    if path == "/runpod/graphql" and post:
        centre = json.loads(post)["variables"]["lowestPriceInput"]["dataCenterId"]
        return (RECORDED / "runpod-graphql" / f"{centre}.json").read_bytes(), "application/json", {}
    return None


def _serve() -> tuple[http.server.ThreadingHTTPServer, str]:
    routes = _routes()
    head, rows = _large_aws()

    class Handler(http.server.BaseHTTPRequestHandler):
        def _large(self) -> None:  # streamed as written: the server never holds the 256 MiB
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.send_header("Content-Length", str(LARGE_AWS))
            self.end_headers()
            self.wfile.write(head)
            sent, block = len(head), b"".join(rows)
            while sent + len(block) <= LARGE_AWS - 1024:
                self.wfile.write(block)
                sent += len(block)
            for line in itertools.cycle(rows):  # fill to the exact length with whole lines
                if sent + len(line) > LARGE_AWS:
                    break
                self.wfile.write(line)
                sent += len(line)
            self.wfile.write(b"\n" * (LARGE_AWS - sent))  # blank lines: skipped as not catalog rows

        def do_POST(self) -> None:
            self.do_GET(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

        def do_GET(self, post: bytes = b"") -> None:
            if self.path == "/aws-synth/large":
                self._large()
                return
            found = _gcp_or_runpod(self.path, post) or routes.get(self.path)
            body, kind, headers = found or (b"", "text/plain", {})
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _run(case: str, base: str, repeat: int) -> dict[str, float]:
    times, peaks = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as data:
            if case == "decide-refreshed":
                _child("gpuhunt", base, data)
            out = _child(case, base, data)
        times.append(out["s"])
        peaks.append(out["rss_mb"])
    result = {"median_s": statistics.median(times), "min_s": min(times), "peak_mb": max(peaks)}
    if case == "aws-parse-small":
        from aws_bulk_testdata import offer_file

        result["bytes"] = len(offer_file("us-east-1"))
    return result


def _child(case: str, base: str, data: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, case, base, data],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    loaded: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


CASES = (
    ("build", "`build_catalog` only (the staged rebuild every refresh pays)"),
    ("skypilot", "SkyPilot feed: lambda + nebius (2 CSVs, 482 rows)"),
    ("gpuhunt", "gpuhunt catalog.zip: aws + azure + oci (one download, 995 rows)"),
    ("lambda-api", "Lambda instance-types API: lambda (23 types -> 374 rows)"),
    ("gcp-billing", "GCP Cloud Billing Catalog API: gcp (3 pages, 473 SKUs -> 661 rows)"),
    ("oci-pricelist", "OCI price list: oci (one document, 19 items -> 80 rows)"),
    ("runpod-graphql", "RunPod GraphQL: runpod (24 data-centre queries -> 1,600 rows)"),
    ("vast-search", "Vast.ai offer search: vast (206 listings -> 67 rows)"),
    ("aws-bulk", "AWS bulk offer files: aws (23 regional CSVs, 2.7 MB, 3,849 rows of 91 columns)"),
    ("aws-parse-small", "AWS offer file parser alone: us-east-1 as recorded (270 KB)"),
    ("aws-parse-large", "AWS offer file parser alone: a 256 MiB region file in the same format"),
    ("transport-64MiB", "transport alone: stream a 64 MiB body"),
    ("transport-bomb", "transport alone: 256 MiB gzip bomb against a 32 MiB cap (refused)"),
    ("decide-embedded", "`decide` support-chat, warm, embedded catalog (per call)"),
    ("decide-refreshed", "`decide` support-chat, warm, gpuhunt-refreshed catalog (per call)"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="FILE", help="write the Markdown table here")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    server, base = _serve()
    try:
        rows = [(label, _run(case, base, args.repeat)) for case, label in CASES]
    finally:
        server.shutdown()
    lines = [
        f"Measured with `benchmarks/bench_refresh.py --repeat {args.repeat}` on {platform.machine()}, "
        f"Python {platform.python_version()}, {platform.system()} (2 shared cores: wall times vary with "
        "load; compare rows of one run).",
        "",
        "| case | median | min | peak RSS |",
        "|---|---|---|---|",
    ]
    for label, r in rows:
        scale, unit = (1000, "ms") if r["median_s"] < 1 else (1, "s")
        lines.append(
            f"| {label} | {r['median_s'] * scale:,.1f} {unit} | {r['min_s'] * scale:,.1f} {unit} | "
            f"{r['peak_mb']:,.0f} MB |"
        )
    measured = {case: r for (case, _), (_, r) in zip(CASES, rows, strict=True)}
    small, large = measured["aws-parse-small"], measured["aws-parse-large"]
    lines += [
        "",
        f"AWS offer file parser, bounded memory: peak RSS on the 256 MiB file / on the recorded-size file = "
        f"{large['peak_mb'] / small['peak_mb']:.2f}x ({large['peak_mb']:,.0f} vs {small['peak_mb']:,.0f} MB) "
        f"for a body {LARGE_AWS / small['bytes']:,.0f}x larger; "
        f"{LARGE_AWS / (1 << 20) / large['median_s']:,.0f} MiB/s parsed.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        Path(args.write).write_text("# Refresh benchmark\n\n" + __doc__.split("\n\n", 1)[1] + "\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
