"""Two scrapes of a vLLM server's /metrics -> an Observation compared with the locked estimate.

What is measured over the interval between the scrapes:
- output and prompt tokens per second: increase of ``vllm:generation_tokens_total`` and
  ``vllm:prompt_tokens_total`` divided by the interval (a counter that fell is a restart: refused);
- TTFT and TPOT percentiles: ``histogram_quantile`` over the increase of
  ``vllm:time_to_first_token_seconds`` and ``vllm:inter_token_latency_seconds`` (older servers:
  ``vllm:time_per_output_token_seconds``), linear within a bucket as Prometheus does;
- requests in flight: mean of ``vllm:num_requests_running`` over the two scrapes; KV-cache usage
  (``vllm:kv_cache_usage_perc``, older ``vllm:gpu_cache_usage_perc``); GPU utilisation from DCGM's
  ``DCGM_FI_DEV_GPU_UTIL`` when the scrape has it.

The efficiency (``Observation.efficiency``) compares like with like, at the *measured* load; an idle
server (under half a request in flight on average) teaches nothing: its efficiency is None.
"""

from __future__ import annotations

import math

from .. import perf
from ..catalog import Accelerator, Catalog
from ..engine import model_spec
from ..errors import EstimateError, MetricsError
from ..lockfile import LockEntry, Observation
from ._scrape import Labels, Scrape

__all__ = ["GENERATION", "PROMPT", "measure"]

GENERATION = "vllm:generation_tokens_total"
PROMPT = "vllm:prompt_tokens_total"
TTFT = ("vllm:time_to_first_token_seconds",)
TPOT = ("vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds")
RUNNING = "vllm:num_requests_running"
KV_CACHE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL"
_IDLE = 0.5


def _increase(first: Scrape, second: Scrape, name: str) -> float:
    before, after = first.samples.get(name, {}), second.samples.get(name, {})
    if not after:
        raise MetricsError(
            f"{second.source} has no {name} series: is this a vLLM server's /metrics? Nothing was recorded. "
            "To fix: point --metrics at the vLLM OpenAI server's /metrics (port 8000 by default)"
        )
    total = 0.0
    for labels, value in after.items():
        old = before.get(labels)
        if old is None:
            raise MetricsError(f"{name}{_shown(labels)} appears only in the second scrape: nothing recorded")
        if value < old:
            raise MetricsError(
                f"{name}{_shown(labels)} fell from {old:,.0f} to {value:,.0f} between the scrapes: "
                "the counter was reset (the server restarted). Nothing was recorded. "
                "To fix: scrape again"
            )
        total += value - old
    return total


def _shown(labels: Labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}" if labels else ""


def _quantile(q: float, first: Scrape, second: Scrape, names: tuple[str, ...]) -> float | None:
    """Prometheus' histogram_quantile over the increase between the scrapes, in milliseconds."""
    name = next((n for n in names if n in second.buckets), None)
    if name is None:
        return None
    merged: dict[float, float] = {}
    for labels, buckets in second.buckets[name].items():
        earlier = dict(first.buckets.get(name, {}).get(labels, ()))
        for bound, count in buckets:
            merged[bound] = merged.get(bound, 0.0) + count - earlier.get(bound, 0.0)
    bounds = sorted(merged)
    if not bounds or merged[bounds[-1]] <= 0 or not math.isinf(bounds[-1]):
        return None  # no request finished in the interval, or not a histogram Prometheus would accept
    rank = q * merged[bounds[-1]]
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = merged[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower * 1000  # in the open top bucket: its lower bound, as Prometheus answers
            inside = count - below
            fraction = (rank - below) / inside if inside > 0 else 1.0
            return (lower + (bound - lower) * fraction) * 1000
        lower, below = bound, count
    return None


def _gauge(first: Scrape, second: Scrape, names: tuple[str, ...]) -> float | None:
    for name in names:
        values = [v for v in (first.total(name), second.total(name)) if v is not None]
        if values:
            return sum(values) / len(values)
    return None


def measure(
    first: Scrape,
    second: Scrape,
    *,
    interval_s: float,
    entry: LockEntry,
    catalog: Catalog,
    replicas: int,
    observed_at: str,
) -> Observation:
    """The Observation of two scrapes ``interval_s`` apart, covering ``replicas`` of the deployment."""
    if not (isinstance(interval_s, int | float) and math.isfinite(interval_s) and interval_s > 0):
        raise MetricsError(f"the interval must be a positive number of seconds (got {interval_s!r})")
    serving = entry.intent.workload.serving
    if serving is None:
        raise MetricsError(
            "this entry is a training job: `computeops observe` reads a vLLM server's metrics "
            "(inference only)"
        )
    output = _increase(first, second, GENERATION) / interval_s
    prompt = _increase(first, second, PROMPT) / interval_s if PROMPT in second.samples else 0.0
    running = _gauge(first, second, (RUNNING,)) or 0.0
    total_replicas = int(entry.estimate.get("replicas") or 1)
    covered = min(replicas, total_replicas)
    estimated = float(entry.estimate["tokens_per_s"]) * covered / total_replicas
    per_replica_batch = entry.estimate.get("concurrency_per_replica")
    kv = _gauge(first, second, KV_CACHE)
    gpu = second.mean(GPU_UTIL)
    return Observation(
        observed_at=observed_at,
        source=second.source if second.source == first.source else f"{first.source} -> {second.source}",
        interval_s=round(float(interval_s), 3),
        output_tokens_per_s=round(output, 2),
        prompt_tokens_per_s=round(prompt, 2),
        estimated_tokens_per_s=round(estimated, 2),
        requests_running=round(running, 2),
        estimated_batch=float(per_replica_batch * covered) if per_replica_batch else None,
        ttft_ms_p50=_rounded(_quantile(0.5, first, second, TTFT)),
        ttft_ms_p90=_rounded(_quantile(0.9, first, second, TTFT)),
        tpot_ms_p50=_rounded(_quantile(0.5, first, second, TPOT)),
        tpot_ms_p90=_rounded(_quantile(0.9, first, second, TPOT)),
        kv_cache_usage=_rounded(kv, 4),
        gpu_utilization=_rounded(gpu),
        efficiency=_efficiency(
            entry, catalog, output / covered, running / covered, prompt / output if output else 0.0
        ),
        model=entry.intent.workload.model.name,
        accelerator=_accelerator(entry, catalog).id,
        precision=entry.intent.workload.model.precision,
    )


def _rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def _accelerator(entry: LockEntry, catalog: Catalog) -> Accelerator:
    locked = entry.placement
    try:
        itype = catalog.instance_type(locked.provider, locked.instance_type)
        return catalog.accelerator(itype.accelerator)
    except KeyError:
        raise MetricsError(
            f"the catalog no longer describes {locked.provider} {locked.instance_type}: cannot "
            "compare with an estimate. To fix: pass the catalog the lock was decided on (--catalog)"
        ) from None


def _efficiency(
    entry: LockEntry, catalog: Catalog, tokens_per_replica: float, batch: float, input_per_output: float
) -> float | None:
    """Measured tokens/s per replica / the estimate for one replica at the measured load (None when idle)."""
    if batch < _IDLE:
        return None
    serving = entry.intent.workload.serving
    assert serving is not None
    tp = int(entry.estimate.get("tensor_parallel") or 1)
    output_tokens = serving.output_tokens
    input_tokens = (
        max(1, round(output_tokens * input_per_output)) if input_per_output else serving.input_tokens
    )
    try:
        estimate = perf.estimate_inference(
            model_spec(entry.intent.workload),
            precision=entry.intent.workload.model.precision,
            accelerator=_accelerator(entry, catalog),
            count=tp,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            concurrency=max(1, round(batch)),
            tensor_parallel=tp,
            # the estimate the decision made: the same engine and prefix-cache share (a share
            # left out would count the cache's gain twice once the factor scales the next estimate)
            engine=serving.engine,
            engine_version=serving.engine_version,
            prefix_cache_share=serving.prefix_cache_share,
        )
    except EstimateError as err:
        raise MetricsError(f"cannot estimate the measured load to compare with ({err})") from None
    if not estimate.fits or estimate.tokens_per_s <= 0:
        return None
    return round(tokens_per_replica / estimate.tokens_per_s, 4)
