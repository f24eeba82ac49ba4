"""`computeops observe`: Prometheus text from a real HTTP server on 127.0.0.1 (and files) -> an
observation in the lock entry, compared with the estimate; bad metrics record nothing; the measured
efficiency feeds the next decision. The recorded scrapes are in tests/observe/recorded/."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from computeops_cdk import WorkloadIntent, decide, load_catalog, perf
from computeops_cdk.cli import main
from computeops_cdk.engine import LockedPlacement, model_spec, placement_of
from computeops_cdk.errors import MetricsError
from computeops_cdk.lockfile import LockEntry, Lockfile, Pins, estimate_of
from computeops_cdk.observe import parse_scrape, read_scrape
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).parent / "recorded"
INTENT = ROOT / "examples" / "support-chat.yaml"
BEFORE, AFTER, RESTARTED = (RECORDED / f"vllm_{n}.prom" for n in ("before", "after", "restarted"))


MEASURED = {
    "provider": "lambda",
    "instance_type": "gpu_1x_gh200",
    "region": "us-east-1",
    "pricing": "on_demand",
}
"""The machine the recorded scrapes come from (one GH200 server), locked whatever the engine prefers."""


@pytest.fixture
def lockfile(tmp_path: Path) -> Path:
    pins = Pins(provider="lambda", region="us-east-1")
    placement = placement_of(INTENT, **MEASURED, pin=placement_pin(provider="lambda", region="us-east-1"))
    entry = LockEntry(
        intent=WorkloadIntent.from_file(INTENT),
        pins=pins,
        placement=LockedPlacement.from_placement(placement, locked_at="2026-11-01T00:00:00Z"),
        engine_version="test",
        estimate=estimate_of(placement.estimate),
    )
    path = tmp_path / "computeops.lock.json"
    Lockfile(path=path).with_entry("chat/workload", entry).write()
    return path


def _observe(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["observe", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_two_files_give_rates_percentiles_and_utilisation(
    lockfile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _observe(
        capsys,
        "--metrics",
        str(BEFORE),
        "--metrics",
        str(AFTER),
        "--interval",
        "60",
        "--lockfile",
        str(lockfile),
    )
    assert (code, err) == (0, "")
    (o,) = [json.loads(lockfile.read_text())["workloads"]["chat/workload"]["observations"][0]]
    # 31,800 output and 127,200 prompt tokens over 60 s; 124 first tokens and 31,800 inter-token gaps
    # (bucket increases, see recorded/README.md), quantiles interpolated inside a bucket as Prometheus does.
    rates = (o["output_tokens_per_s"], o["prompt_tokens_per_s"], o["requests_running"])
    assert rates == (530.0, 2120.0, 42.0)
    assert o["ttft_ms_p50"] == pytest.approx(250 + 250 * (62 - 60) / 50, abs=0.01)
    assert o["ttft_ms_p90"] == pytest.approx(500 + 250 * (111.6 - 110) / 10, abs=0.01)
    assert o["tpot_ms_p50"] == pytest.approx(75 + 25 * (15900 - 10500) / 18000, abs=0.01)
    assert o["tpot_ms_p90"] == pytest.approx(100 + 50 * (28620 - 28500) / 3000, abs=0.01)
    assert (o["kv_cache_usage"], o["gpu_utilization"]) == (0.635, 88.0)
    assert "estimate" in out and "observed 530 tok/s" in out and "recorded in" in out
    assert "Does NOT meet its intent" in out and "p90 TPOT" in out  # 102 ms against tpot_ms 60


def _measured(entry: LockEntry, **estimated: object) -> tuple[Any, Any, Any]:
    """The observation of the recorded scrapes for ``entry``, the estimate at the measured load it is
    compared with (``estimated``: more arguments of it), and the machine's accelerator."""
    from computeops_cdk.observe import measure

    catalog = load_catalog()
    o = measure(
        parse_scrape(BEFORE.read_text(), source="a"),
        parse_scrape(AFTER.read_text(), source="b"),
        interval_s=60,
        entry=entry,
        catalog=catalog,
        replicas=1,
        observed_at="2026-12-01T12:00:00Z",
    )
    accelerator = catalog.accelerator(
        catalog.instance_type(entry.placement.provider, entry.placement.instance_type).accelerator
    )
    expected = perf.estimate_inference(
        model_spec(entry.intent.workload),
        precision="fp8",
        accelerator=accelerator,
        count=int(entry.estimate["tensor_parallel"]),
        input_tokens=round(256 * 2120 / 530),  # the measured prompt/completion ratio
        output_tokens=256,
        concurrency=42,
        tensor_parallel=int(entry.estimate["tensor_parallel"]),
        **estimated,  # type: ignore[arg-type]
    )
    return o, expected, accelerator


def test_efficiency_is_measured_against_the_estimate_at_the_measured_load(lockfile: Path) -> None:
    entry = Lockfile.read(lockfile).workloads["chat/workload"]
    o, expected, accelerator = _measured(entry)
    assert o.efficiency == pytest.approx(530 / expected.tokens_per_s, rel=1e-3)
    assert 0 < o.efficiency < 1  # production is slower than the datasheet extrapolation here
    assert o.accelerator == accelerator.id and o.model == "llama-3.1-70b"
    per_replica = entry.estimate["tokens_per_s"] / entry.estimate["replicas"]
    assert o.estimated_tokens_per_s == pytest.approx(per_replica, rel=1e-3)


def test_a_counter_reset_records_nothing(lockfile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = lockfile.read_bytes()
    code, _, err = _observe(
        capsys, "--metrics", str(BEFORE), "--metrics", str(RESTARTED), "--lockfile", str(lockfile)
    )
    assert code == 2 and "counter was reset" in err and "Traceback" not in err
    assert lockfile.read_bytes() == before


@pytest.mark.parametrize(
    "text",
    [
        '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 91\n',  # DCGM only: no vLLM series
        "<html><body>502 Bad Gateway</body></html>\n",  # not the exposition format
        "",
    ],
)
def test_scrapes_without_vllm_series_are_refused(
    lockfile: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    bad = tmp_path / "bad.prom"
    bad.write_text(text)
    before = lockfile.read_bytes()
    code, _, err = _observe(capsys, "--metrics", str(bad), "--metrics", str(bad), "--lockfile", str(lockfile))
    assert code == 2 and "error:" in err and "Traceback" not in err
    assert lockfile.read_bytes() == before


def test_one_url_is_scraped_twice_over_http(
    lockfile: Path, httpserver: HTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    for path in (BEFORE, AFTER):
        httpserver.expect_ordered_request("/metrics").respond_with_data(
            path.read_text(), content_type="text/plain; version=0.0.4; charset=utf-8"
        )
    code, _, err = _observe(
        capsys, "--metrics", httpserver.url_for("/metrics"), "--interval", "0.1", "--lockfile", str(lockfile)
    )
    assert (code, err) == (0, ""), err
    httpserver.check_assertions()
    # The interval is what the command waited, so the rate is 31,800 tokens / 0.1 s here.
    observed = json.loads(lockfile.read_text())["workloads"]["chat/workload"]["observations"][0]
    assert observed["output_tokens_per_s"] == pytest.approx(318_000.0)
    assert observed["source"] == httpserver.url_for("/metrics")


def test_a_slow_server_times_out_and_records_nothing(
    lockfile: Path, httpserver: HTTPServer, capsys: pytest.CaptureFixture[str]
) -> None:
    def slow(_: Request) -> Response:
        time.sleep(1.5)
        return Response(BEFORE.read_text(), content_type="text/plain")

    httpserver.expect_request("/metrics").respond_with_handler(slow)
    before = lockfile.read_bytes()
    code, _, err = _observe(
        capsys, "--metrics", httpserver.url_for("/metrics"), "--timeout", "0.3", "--lockfile", str(lockfile)
    )
    assert code == 2 and "did not answer within 0.3 s" in err
    assert lockfile.read_bytes() == before


def test_http_errors_and_oversized_bodies_are_metrics_errors(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/down").respond_with_data("no", status=503)
    with pytest.raises(MetricsError, match="HTTP 503"):
        read_scrape(httpserver.url_for("/down"))
    with pytest.raises(MetricsError, match="not a file or an http"):
        read_scrape("/no/such/metrics")


def test_the_measured_efficiency_feeds_the_next_decision(lockfile: Path) -> None:
    assert (
        main(["observe", "--metrics", str(BEFORE), "--metrics", str(AFTER), "--lockfile", str(lockfile)]) == 0
    )
    lock = Lockfile.read(lockfile)
    (calibration,) = lock.calibrations()
    assert calibration.factor < 1
    # Without latency targets the same offer simply needs more instances at the measured throughput.
    spec = {**WorkloadIntent.from_file(INTENT).to_dict()}
    spec["workload"]["serving"].pop("tpot_ms")
    spec["workload"]["serving"].pop("ttft_ms")
    pin = placement_pin()
    baseline = decide(spec, pin=pin, alternatives=300)
    informed = decide(spec, pin=pin, calibrations=lock.calibrations(), alternatives=300)
    before = next(p for p in baseline.ranked if p.accelerator == calibration.accelerator)
    after = next(
        p for p in informed.ranked if (p.instance_type, p.region) == (before.instance_type, before.region)
    )
    # The measurement replaces the uncertainty band: the sizing's conservative point is x factor.
    assert after.estimate.tokens_per_s_p10 == pytest.approx(
        after.estimate.tokens_per_s * calibration.factor, rel=1e-3
    )
    intent = WorkloadIntent.from_dict(spec)
    needed = intent.workload.serving.output_tokens_per_s * (1 + intent.preferences.capacity_headroom)  # type: ignore[union-attr]
    central_per_instance = after.estimate.tokens_per_s / after.instances
    assert after.instances == math.ceil(needed / (central_per_instance * calibration.factor) - 1e-9)
    assert after.instances != before.instances  # the measurement, not the prior band, sized it
    assert any("measured in production" in a for a in after.estimate.assumptions)
    other = next(p for p in informed.ranked if p.accelerator != calibration.accelerator)
    assert not any("measured in production" in a for a in other.estimate.assumptions)


def test_reevaluate_shows_estimate_vs_observed(lockfile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["observe", "--metrics", str(BEFORE), "--metrics", str(AFTER), "--lockfile", str(lockfile)]) == 0
    )
    capsys.readouterr()
    assert main(["reevaluate", str(lockfile), "--format", "json", "--now", "2026-12-01T12:00:00Z"]) in (0, 4)
    report = json.loads(capsys.readouterr().out)["workloads"][0]
    notes: list[Any] = report["notes"]
    # The re-evaluation sizes the locked offer at the measured efficiency, not the prior band.
    assert any("today's sizing gives" in line for line in report["detail"]), report["detail"]
    assert any("observed 530 tok/s" in n for n in notes)
    assert any("does not meet its intent" in n.lower() for n in notes)


def test_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (["--interval", "0"], ["--interval", "nan"], ["--replicas", "0"], ["--timeout", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            main(["observe", "--metrics", "x", *flags])
        assert exit_.value.code == 2


def test_efficiency_compares_with_the_estimate_of_the_intents_prefix_cache(lockfile: Path) -> None:
    # the estimate observe compared with left the share out: a cache's gain showed as efficiency,
    # and the next decision, already estimating with the share, counted it twice
    import dataclasses

    import yaml

    entry = Lockfile.read(lockfile).workloads["chat/workload"]
    doc = yaml.safe_load(INTENT.read_text())
    doc["workload"]["serving"]["prefix_cache_share"] = 0.5
    cached = dataclasses.replace(entry, intent=WorkloadIntent.from_dict(doc))
    o, expected, _ = _measured(cached, prefix_cache_share=0.5)
    assert o.efficiency == pytest.approx(530 / expected.tokens_per_s, rel=1e-3)
