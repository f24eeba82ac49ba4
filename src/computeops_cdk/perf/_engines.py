"""Serving engines and their generations: what a named engine changes in a serving estimate.

Without an engine the estimate describes the engines its constants were fitted on (TensorRT-LLM
tables, current vLLM and SGLang on GPUs; SGLang-JAX on TPUs) and says nothing more. A named engine
applies its generation's rule (benchmarks/preregistration/v14.md) and the estimate's assumptions
say which engine and version it assumed:

* vLLM before 0.6 pays host (CPU) time per decode step for every request in the batch
  (``HOST_S_PER_SEQ_PRE_V06``, from vLLM's own 0.6.0 release post);
* vLLM on TPU before 0.11 (the PyTorch/XLA backend) reaches 1/1.2 of the JAX engines' throughput
  (vLLM's tpu-inference launch post);
* vLLM on AMD GPUs reaches ``VLLM_ROCM_FACTOR`` of the MLPerf-fitted AMD roofline (AMD's own
  container README, benchmarks/preregistration/v17-vllm-rocm.md);
* every other engine and generation: factor 1, no host term (no release measurement separates it).

Each GPU engine prefills long prompts in chunks of its default per-step token budget
(``prefill_chunk``, v15 addendum).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import EstimateError, did_you_mean, did_you_mean_text, shown

__all__ = [
    "ENGINES",
    "PLATFORMS",
    "EngineRule",
    "engine_names",
    "engine_refusal",
    "engine_serves",
    "platform_of",
    "prefill_chunk",
    "release_of",
    "resolve_engine",
]

# Host time per request in flight per decode step of vLLM before 0.6 (seconds). Solved on
# CAL-ENG-1 (vLLM 0.6.0 vs 0.5.3 on Llama 3 8B, 1x H100: 2.7x throughput, blog.vllm.ai
# 2024-09-05 "perf-update"; the post's own profile: model forward 38 % of the time, API server
# 33 %, scheduling 29 %) at the pre-registered operating point (ShareGPT means 202 / 179, 256
# requests in flight, bf16): solved 1.367e-4, rounded to 1.37e-4. HO-ENG-1 (Llama 3 70B on
# 4x H100, 1.8x) is held out.
HOST_S_PER_SEQ_PRE_V06 = 1.37e-4
# vLLM TPU before tpu-inference (PyTorch/XLA backend): throughput relative to the JAX engines.
# vLLM's launch post for tpu-inference (blog.vllm.ai/2025/10/16/vllm-tpu.html): lowering every
# model through JAX gives "about 20% higher throughput even for PyTorch definitions".
PTXLA_FACTOR = 1 / 1.2
# vLLM on AMD GPUs: throughput relative to the AMD estimate naming no engine (ROCM_SERVING_EFF,
# fitted on AMD's MLPerf v4.1 stack). Solved (geometric mean of published / estimated = 1) on
# CAL-VROCM-1..20: AMD's rocm/vllm-dev README for MI300X (ROCm/vllm docs/dev-docker/README.md
# @7545048a0, vLLM 0.9.1), Llama 3.1 70B and 405B FP8 at TP8, 128-token prompts, its throughput
# and latency tables, named before any figure was read (v17 pre-registration). HO-AMD-3..12 stay
# held out.
VLLM_ROCM_FACTOR = 0.54


PLATFORMS: dict[str, str] = {"nvidia": "NVIDIA GPUs", "amd": "AMD GPUs", "tpu": "TPUs"}
"""Where an engine can serve: the catalog's accelerator vendors (a TPU is ``tpu``)."""


@dataclass(frozen=True, slots=True)
class _Engine:
    name: str
    default: str
    """The release the estimate assumes when no version is given (not "the newest": no clock is read)."""
    version_basis: str
    """``cited`` (a source read names that release) or ``assumed`` (none does; the estimate says so)."""
    version_source: str
    runs_on: tuple[str, ...]
    """``PLATFORMS`` keys: where the engine serves, as its own documentation says (``platform_source``)."""
    platform_source: str
    """The engine's own page that says where it runs."""
    aliases: tuple[str, ...] = ()


ENGINES: dict[str, _Engine] = {
    e.name: e
    for e in (
        _Engine(
            "vllm",
            "0.11.1",
            "cited",
            "github.com/vllm-project/vllm/releases/tag/v0.11.1",
            ("nvidia", "amd", "tpu"),
            "docs.vllm.ai installation (GPU: NVIDIA CUDA, AMD ROCm; Google TPU, from 0.11 through the "
            "tpu-inference plugin)",
            ("vllm-tpu",),
        ),
        _Engine(
            "sglang",
            "0.5.4.post1",
            "cited",
            "tag v0.5.4.post1 of sgl-project/sglang",
            ("nvidia", "amd"),
            "sgl-project/sglang README ('Runs on NVIDIA GPUs ..., AMD GPUs (MI355/MI300) ...'; on TPUs "
            "through SGLang-Jax, the engine sglang-jax here)",
        ),
        _Engine(
            "tensorrt-llm",
            "1.0.0",
            "assumed",
            "the 1.0 line is cited (nvidia.github.io/TensorRT-LLM/1.0.0rc4/), the 1.0.0 final release is not",
            ("nvidia",),
            "NVIDIA/TensorRT-LLM README ('inference efficiently on NVIDIA GPUs')",
            ("trtllm", "trt-llm"),
        ),
        _Engine(
            "sglang-jax",
            "0.0.2",
            "cited",
            "sgl-project/sglang-jax python/sgl_jax/version.py @3b79326",
            ("tpu",),
            "lmsys.org/blog/2025-10-29-sglang-jax ('native TPU inference')",
            ("sgl-jax",),
        ),
        _Engine(
            "jetstream",
            "0.2.2",
            "cited",
            "AI-Hypercomputer/JetStream setup.py @e78f9d9",
            ("tpu",),
            "AI-Hypercomputer/JetStream README ('LLM inference on XLA devices, starting with TPUs (and GPUs "
            "in future)')",
        ),
    )
}
"""Engine name -> its record (benchmarks/calibration/engines.csv, with the full sources, is kept
equal by a test). ``default`` is a release a source names, or an assumption that says so; each
engine's rule is the same for every release it does not single out."""


def platform_of(accelerator: object) -> str:
    """The ``PLATFORMS`` key of a catalog accelerator (its vendor, ``tpu`` for a TPU), else its vendor."""
    if getattr(accelerator, "is_tpu", False):
        return "tpu"
    vendor = f"{getattr(accelerator, 'vendor', '') or ''}".strip().lower()
    return vendor or "unknown"


def engine_refusal(name: str, platform: str) -> str | None:
    """None when engine ``name`` (a known one) serves on ``platform``, else why not and how to fix it."""
    engine = ENGINES[canonical_engine(name)]
    if platform in engine.runs_on:
        return None
    where = PLATFORMS.get(platform, f"{platform} accelerators")
    others = sorted(e.name for e in ENGINES.values() if platform in e.runs_on)
    serves = ", ".join(PLATFORMS[p] for p in engine.runs_on)
    fix = f"serve it with {' or '.join(others)}, or" if others else "no engine the model knows runs there:"
    return (
        f"serving engine {engine.name} does not run on {where}; it serves on {serves} "
        f"({engine.platform_source}). To fix: {fix} choose another accelerator"
    )


def engine_names() -> tuple[str, ...]:
    """Every engine name the model accepts (aliases included), sorted."""
    return tuple(sorted({*ENGINES, *(a for e in ENGINES.values() for a in e.aliases)}))


@dataclass(frozen=True, slots=True)
class EngineRule:
    """What a named engine generation changes in a serving estimate."""

    engine: str
    version: str
    defaulted: bool
    """True when no version was given (the default release, ``_Engine.default``, is assumed)."""
    throughput_factor: float = 1.0
    """Multiplies achieved FLOPs and bandwidth (the TPU PyTorch/XLA backend)."""
    host_s_per_seq: float = 0.0
    """Host time per request in flight added to every decode step (vLLM before 0.6)."""
    note: str = ""


_ROCM_NOTE = (
    f"; on AMD GPUs at {VLLM_ROCM_FACTOR:.2f}x the throughput of the AMD estimate naming no engine "
    "(VLLM_ROCM_FACTOR, fitted on AMD's vLLM 0.9.1 container tables for MI300X)"
)
_GIB = 2**30
_ASSUMED_CHUNK = (
    "TensorRT-LLM's default max_num_tokens, 8192: an assumption, no first-party page read states it"
)


def prefill_chunk(engine: str | None, memory_gb: float, accelerator: str) -> tuple[int, str]:
    """The default prefill chunk (tokens per step) of ``engine`` on a GPU of ``memory_gb`` GB named
    ``accelerator``, and where that number comes from (benchmarks/preregistration/v15 addendum)."""
    gib = memory_gb * 1e9 / _GIB
    if engine == "vllm":
        big = gib >= 70 and "a100" not in accelerator.lower()
        return (8192 if big else 2048), (
            "vLLM's default max_num_batched_tokens for its API server, engine/arg_utils.py of the "
            "0.11 line: 8192 on a GPU of 70 GiB or more that is not an A100, else 2048"
        )
    if engine == "sglang":
        chunk = 2048 if gib < 35 else 8192 if gib < 160 else 16384
        return chunk, (
            "SGLang's default chunked_prefill_size, srt/server_args.py: 2048 under 35 GB of GPU "
            "memory, 8192 under 160 GB, else 16384"
        )
    return 8192, _ASSUMED_CHUNK


_VERSION = re.compile(r"^v?(\d{1,4})(?:\.(\d{1,4}))?(?:\.(\d{1,4}))?(?:[.+-]?[A-Za-z0-9.+-]{0,40})?$")


def _version_tuple(engine: str, text: str) -> tuple[int, int, int]:
    found = _VERSION.match(text)
    if not found:
        raise EstimateError(
            f"engine_version {shown(text, limit=40)} of {engine} is not a release number. To fix: "
            f"give MAJOR.MINOR[.PATCH] (e.g. {ENGINES[engine].default}), or leave it out for the "
            "default release"
        )
    major, minor, patch = (int(g) if g else 0 for g in found.groups())
    return major, minor, patch


def _release(engine: _Engine, version: str | None) -> tuple[str, tuple[int, int, int]]:
    """``version`` of ``engine`` (None: its default release) as written and as a release tuple."""
    text = engine.default if version is None else str(version).strip()
    return text, _version_tuple(engine.name, text)


def release_of(engine: str, version: str | None) -> tuple[int, int, int]:
    """The release tuple of ``version`` of known ``engine`` (None: its default release).

    Raises:
        EstimateError: a version that is not a release number.
    """
    return _release(ENGINES[canonical_engine(engine)], version)[1]


def canonical_engine(name: object) -> str:
    """The engine record's name for ``name`` (case-insensitive, aliases accepted).

    Raises:
        EstimateError: an unknown engine, with the close names.
    """
    text = name if isinstance(name, str) else ""
    key = text.strip().lower()
    for engine in ENGINES.values():
        if key == engine.name or key in engine.aliases:
            return engine.name
    raise EstimateError(
        f"unknown serving engine {shown(name, limit=40)}. To fix: use one of "
        f"{', '.join(sorted(ENGINES))}" + did_you_mean_text(did_you_mean(text, engine_names()))
    )


def engine_serves(name: str, platform: str) -> bool:
    """Whether engine ``name`` (a known one) serves on ``platform`` (``platform_of``)."""
    return engine_refusal(name, platform) is None


def _default_label(engine: _Engine) -> str:
    """What the estimate says of a defaulted release: its source, or that it is an assumption."""
    if engine.version_basis == "cited":
        return f" (no version given: the model's default release, cited: {engine.version_source})"
    return f" (no version given: the model's default release, an assumption: {engine.version_source})"


@lru_cache(maxsize=64)
def resolve_engine(name: str, version: str | None, *, platform: str) -> EngineRule:
    """The rule of engine ``name`` at ``version`` (None: its default release) on ``platform``.

    Raises:
        EstimateError: an unknown engine (with did-you-mean), a version that is not a release
            number, or an engine that does not serve on this platform.
    """
    engine = ENGINES[canonical_engine(name)]
    refused = engine_refusal(engine.name, platform)
    if refused is not None:
        raise EstimateError(refused)
    tpu = platform == "tpu"
    given = version is not None
    text, release = _release(engine, version)
    label = f"serving engine: {engine.name} {text}" + ("" if given else _default_label(engine))
    rocm = engine.name == "vllm" and platform == "amd"
    factor, rocm_note = (VLLM_ROCM_FACTOR, _ROCM_NOTE) if rocm else (1.0, "")
    if engine.name == "vllm" and not tpu and release < (0, 6, 0):
        return EngineRule(
            engine=engine.name,
            version=text,
            defaulted=not given,
            throughput_factor=factor,
            host_s_per_seq=HOST_S_PER_SEQ_PRE_V06,
            note=f"{label}: before 0.6 each decode step waits on {HOST_S_PER_SEQ_PRE_V06 * 1e6:.0f} us of "
            "host scheduling per request in flight (HOST_S_PER_SEQ_PRE_V06, from vLLM's 0.6.0 release "
            "post: 2.7x throughput on Llama 3 8B, 1x H100)" + rocm_note,
        )
    if rocm:
        return EngineRule(
            engine=engine.name,
            version=text,
            defaulted=not given,
            throughput_factor=factor,
            note=label + rocm_note,
        )
    if engine.name == "vllm" and tpu and release < (0, 11, 0):
        return EngineRule(
            engine=engine.name,
            version=text,
            defaulted=not given,
            throughput_factor=PTXLA_FACTOR,
            note=f"{label}: the PyTorch/XLA TPU backend, at 1/1.2 of the JAX engines' throughput "
            "(vLLM's tpu-inference launch post: JAX lowering gives about 20 % more)",
        )
    return EngineRule(
        engine=engine.name,
        version=text,
        defaulted=not given,
        note=f"{label}: modelled as the engines the constants were fitted on (no release "
        "measurement separates this generation)",
    )
