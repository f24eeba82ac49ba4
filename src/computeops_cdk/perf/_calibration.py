"""Every tuned constant of the performance model, each with the measurements it was fitted to.

Row ids (INF-xx, TRN-xx) refer to benchmarks/calibration/benchmarks-calibration.csv (a copy of the
team's shared calibration set, with its sources); CAL-xx ids to the rows we added to the calibration
split of benchmarks/calibration/rows.csv (each first held out, then moved, and labelled so). The rows
still held out (split "heldout" in rows.csv) were never used to set anything in this file.
Changing any number here changes MODEL_VERSION (written in ``computeops_cdk/_version.py``, so that
`computeops --version` reports it without importing the model).
"""

from __future__ import annotations

from .._version import PERF_MODEL_VERSION

MODEL_VERSION: str = PERF_MODEL_VERSION
"""Label carried by every estimate; bumped whenever a constant below or the model's equations change.

v3: sliding-window KV caches; training layout by step time incl. data-parallel traffic.
v4: MoE serving factor and request overhead. v5: per-direction link bandwidth, MI300 link figure.
v6: AMD serving-stack efficiency (ROCM_SERVING_EFF), fitted to two MLPerf MI300X rows.
v7: prompt tokens prefilled inside a decode step pay their tensor-parallel all-reduce volume
(physics); PCIe collective efficiency (PCIE_LINK_EFF) fitted to CAL-TP-1; ROCM_SERVING_EFF
re-solved on its own rows (its reference row INF-01 moved with the physics change).
v8: physical training layouts (whole sequences per data-parallel replica, the interleaved pipeline
bubble for the real micro-batch count, replacing the flat per-stage loss); uncertainty bands
(BAND_VALIDATED, BAND_EXTRAPOLATED) from the held-out rows.
v9: a TPU slice holds at most the generation's largest ICI domain (_hardware._TPU_SLICE_CHIPS); more
chips are slices over the data-center network (physics, nothing fitted); the training band recomputed
with MaxText's v5e multi-slice rows held out; FP8_TRAIN_FACTOR re-solved on its own row (TRN-33, 0.85x
-> 1.00x: 0.9 -> 1.06).
v10: the peak law is not extrapolated beyond the largest peak a training calibration row reaches
(TRAIN_PEAK_RATIO_MAX, H100 FP8: Blackwell FP8 training 0.72-0.81x -> 0.93-1.03x); TPU serving
efficiency (TPU_SERVING_EFF) fitted to three pre-registered SGLang-JAX TPU v6e rows (CAL-TPU-1..3),
33 more TPU serving rows held out; TPU v6e serving carries its measured range.
v14-v15: named serving engines (``_engines``), context parallelism, long-prompt chunking (ACCURACY.md).
v17: vLLM named on an AMD part runs at ``_engines.VLLM_ROCM_FACTOR`` of the unnamed AMD estimate,
fitted on 20 pre-registered rows of AMD's vLLM 0.9.1 container README (CAL-VROCM-1..20), and
carries ENGINE_MEASURED_RANGE (v16 changed nothing, so no estimate was labelled v16)."""

VALIDATED_INFERENCE: frozenset[str] = frozenset(
    {"A100-80GB", "B200", "H100-SXM", "H200", "L40S", "MI300X", "TPU-v6e"}
)
VALIDATED_TRAINING: frozenset[str] = frozenset(
    {"A100-40GB", "A100-80GB", "B200", "GB200", "H100-SXM", "TPU-v5e", "TPU-v5p", "TPU-v6e"}
)
"""The two sets above: accelerators with at least one calibration or held-out measurement of serving
(inference) or training (benchmarks/calibration/rows.csv; a test keeps these sets equal to the
file). An estimate of a kind no measurement on its accelerator covers extrapolates from the datasheet
with constants fitted elsewhere, and says so in its assumptions (TPU serving, MI300X training: no
clean published measurement was found; TPU v6e serving has rows since v10, TPU v5e serving only
excluded early-JetStream ones)."""

MEASURED_RANGE: dict[tuple[str, str], tuple[float, float]] = {
    ("MI300X", "inference"): (0.53, 0.88),
    ("TPU-v6e", "inference"): (0.47, 1.41),
}
"""(accelerator, "inference" | "training") -> range of published / estimated over its held-out rows,
for the accelerators whose held-out median error exceeds the issue's 20 % target. Not a correction
(no constant is fitted to held-out rows): estimates on them carry this range in their assumptions
(in the long-prompt regime only where the rows reach it: ``MEASURED_LONG_PROMPTS``).
MI300X: even with ROCM_SERVING_EFF (fitted to AMD's MLPerf v4.1 submission, CAL-AMD-1..2), vLLM on
ROCm as AMD's 2025 performance page and OCI measured it reaches 0.53-0.88x of the estimate
(HO-AMD-3..12, median error 51 % in v7). TPU v6e serving (v10): with TPU_SERVING_EFF, SGLang-JAX's
held-out rows read 0.76-1.12x but vLLM's TPU backend of the same date, on the same chips and
lengths, reaches only 0.47-1.05x of the estimate (HO-TPUS-*, median error 24 %): the engine decides
half the speed, so TPU serving estimates carry the whole measured range. (v11: that vLLM ran the
PyTorch/XLA backend; the deployed v0.11.1 runs tpu-inference, so the low end stays in the band.)
v12: tpu-inference itself, measured since (HO-TPUI-*: Llama 3.3 70B on v6e-8, image of 2025-11-29),
reaches 1.31-1.41x of the estimate: the high end moved from 1.32 to 1.41, nothing was fitted on it.
B200 and GB200 training
left the table in v10 (held-out median 3 % with TRAIN_PEAK_RATIO_MAX; v9: 1.23-1.31x and
1.28-1.39x), H100 training in v9. A test recomputes the ranges from rows.csv."""

ENGINE_MEASURED_RANGE: dict[tuple[str, str], tuple[float, float]] = {("MI300X", "vllm"): (0.56, 1.56)}
"""(accelerator, engine) -> range of published / estimated over the calibration and held-out serving
rows on it that name the engine, evaluated with the engine's rule: what a serving estimate naming
that engine there carries instead of ``MEASURED_RANGE`` (a quoted range, not a correction). One
entry, MI300X with vLLM (v17): CAL-VROCM-1..20 and HO-AMD-3..12 read 0.56-1.56x. The pre-registered
range was the held-out rows' alone (0.80-1.45x); the post-evaluation revision
(benchmarks/preregistration/v17-revision.md) widened it because the held-out rows stop at batch 4
for Llama 3.1 70B, where the calibration rows at batch 32-128 read down to 0.56x. A test recomputes
it from rows.csv."""
ENGINE_MEASURED_SINCE: dict[tuple[str, str], tuple[int, int, int]] = {("MI300X", "vllm"): (0, 9, 0)}
"""(accelerator, engine) -> the earliest release the rows of ``ENGINE_MEASURED_RANGE`` measured
(MI300X with vLLM: 0.9.1 and 0.10.1). An estimate naming an older release carries the extrapolated
band: no row measures it."""

MEASURED_LONG_PROMPTS: frozenset[tuple[str, str]] = frozenset({("TPU-v6e", "inference")})
"""The keys of ``MEASURED_RANGE`` and ``ENGINE_MEASURED_RANGE`` whose rows include a prompt of the
long-prompt regime (``LONG_PROMPT_MIN_INPUT``): TPU v6e serving (4,096 and 8,192-token prompts).
Every other measured range comes from short prompts (MI300X: 128 tokens), so an estimate in the
regime does not carry it as measured: it extrapolates, with that range and ``BAND_LONG_PROMPT``
together (benchmarks/preregistration/v17-revision-2.md). A test derives the set from rows.csv."""

BAND_VALIDATED: dict[str, tuple[float, float]] = {"inference": (0.81, 1.23), "training": (0.83, 1.07)}
"""kind -> (p10, p90) of measured / estimated speed over the held-out rows of that kind on validated
hardware (throughput rows as published / estimated, latency rows as estimated / published; MI300X
serving, a known upper bound, left out). A test recomputes them from rows.csv."""
BAND_EXTRAPOLATED: tuple[float, float] = (0.63, 1.45)
"""Where no measurement of the kind covers the accelerator: the whole range of measured / estimated
speed over every held-out row of either kind (the estimate may be as far off as the worst
validated row). A test recomputes it."""

LONG_CONTEXT_TOKENS = 16384
"""From this sequence length a training layout may use context parallelism (v14, ``_training``)."""
BAND_LONG_CONTEXT: tuple[float, float] = (0.83, 1.11)
"""A training estimate of sequences of ``LONG_CONTEXT_TOKENS`` or more on validated hardware: the
validated training band widened to hold the p10-p90 of the 12 held-out long-context rows
(0.88-1.11; benchmarks/ACCURACY.md "v15"). Widened only: sizing keeps the training band's p10.
A test recomputes it."""
LONG_PROMPT_MIN_INPUT = 4096
LONG_PROMPT_INPUT_RATIO = 4
"""v15's long-prompt serving regime: at least 4,096 prompt tokens and 4x the completion's
(benchmarks/preregistration/v15-long-prompt.md)."""
BAND_LONG_PROMPT: tuple[float, float] = (0.68, 1.50)
"""A GPU serving estimate in the long-prompt regime on validated hardware (and, joined with the
range, on hardware whose measured range comes from short prompts only): the p10-p90 of the
regime's 6 held-out rows (0.96-1.23), widened about its midpoint to ``BAND_EXTRAPOLATED``'s width
(v15 addendum, section 3; benchmarks/ACCURACY.md "v15"). A test recomputes it."""

# --- achievable compute -------------------------------------------------------------------------
# Achieved dense-GEMM throughput grows slower than the datasheet peak: feeding tensor cores from
# memory, softmax/normalisation and launch gaps do not scale with it. We model achieved FLOPs as
#   achieved = peak * EFF_AT_REF * (peak / REF_PEAK_TFLOPS) ** -PEAK_EFF_EXPONENT
# The exponent is the one shared fit to two independent pairs: training MFU of MPT-7B on A100 vs
# H100 (TRN-06 64.2 % vs TRN-03 46.4 %: 0.72x at 3.17x the peak -> 0.285) and batch-1 prefill of
# Llama-2-7B, A100 FP16 vs H100 FP8 (INF-32 133 ms vs INF-31 36 ms: 0.59x at 6.34x the peak -> 0.285).
REF_PEAK_TFLOPS = 312.0
PEAK_EFF_EXPONENT = 0.285
# The law is a power law fitted between 1x and 6.3x of REF_PEAK_TFLOPS; it is not extrapolated beyond
# the largest peak a calibration row of the workload kind reaches. Training: TRN-33 (NeMo FP8 on H100,
# 1,979 TFLOPs = 6.34x), the row FP8_TRAIN_FACTOR is solved on; Blackwell FP8 (4,500-5,000 TFLOPs,
# 14-16x) keeps that efficiency instead of falling another (2.3)^-0.285 = 0.79x. Why the law stops
# there: it stands for the parts of a step that do not grow with the tensor peak (memory-bound
# element-wise work, the optimizer, collectives). From A100 to H100 the peak grew 3.2x (bf16) at
# 1.6x the HBM bandwidth; from H100 to B200 the FP8 peak grew 2.3x at 2.4x the bandwidth and 2x the
# NVLink, so those parts kept pace. Serving needs no bound: its calibration rows reach B200 FP4
# (CAL-MOE-3, 9,000 TFLOPs = 28.8x). Not fitted: the bound is a calibration row's own peak.
TRAIN_PEAK_RATIO_MAX = 1979.0 / REF_PEAK_TFLOPS

# Prefill (large GEMMs) on A100 FP16 reaches 0.66 of peak: INF-32 (2048-token prefill, 133 ms).
PREFILL_EFF_AT_REF = 0.66
# Training of a 4096-wide model on A100 without activation checkpointing reaches 0.64 MFU: TRN-06.
TRAIN_EFF_AT_REF = 0.64

# --- memory bandwidth ---------------------------------------------------------------------------
# Fraction of datasheet HBM bandwidth a decode step streams at. Fitted to the decode-dominated
# throughput rows INF-28, INF-29, INF-30 (7B, 128/128, static batches 768/384/64).
DECODE_BW_EFF = 0.75

# --- serving stack by vendor --------------------------------------------------------------------
# AMD CDNA serving (vLLM on ROCm) reaches this share of the serving roofline the NVIDIA-fitted
# constants above give: on AMD parts, for inference only, achieved FLOPs (prefill and decode GEMMs)
# and decode bandwidth are both multiplied by it (links and fixed per-step costs are not). Training
# keeps the datasheet physics (no AMD training row). Fitted (geometric mean of predicted/published
# = 1) to CAL-AMD-1 and CAL-AMD-2 in rows.csv: MLPerf Inference v4.1 closed, Llama-2-70B Offline on
# 8x and 1x MI300X (AMD's submission, vLLM 0.4.3 on ROCm 6.1, FP8), each relative to INF-01 (8x
# H100, same benchmark and round). Without the factor (v5) they were 1.32x and 1.26x optimistic;
# v6 solved 0.774 (0.77). v7 re-solved it, same rows and procedure, at 0.724 (0.72: 1.01x and
# 0.97x): the reference INF-01 runs at TP2 and its estimate fell 7 % with the v7 all-reduce
# physics, which moved both relative rows up by as much. Both rows are compute-bound in the model, so they
# set the value through the FLOPs term; applying it to bandwidth as well is an assumption (a serving
# stack's kernel maturity is not specific to GEMMs) that the held-out batch-1 rows (HO-AMD-3,
# HO-AMD-10) test. The datasheet (5.3 TB/s, 2.6 PFLOP/s FP8) does not explain the gap: the physics
# is unchanged. HO-AMD-3..12 stay held out.
ROCM_SERVING_EFF = 0.72
# TPU serving (JAX/XLA engines: SGLang-JAX, JetStream, vLLM TPU) reaches this share of the serving
# roofline the GPU-fitted constants above give: on TPUs, for inference only, achieved FLOPs and
# decode bandwidth are both multiplied by it, as ROCM_SERVING_EFF does on AMD parts. Fitted (geometric
# mean of predicted/published = 1) to CAL-TPU-1..3 in rows.csv: SGLang-JAX on TPU v6e-4 (TP4, bf16),
# Qwen3-8B at ISL/OSL 1024, 4096 and 8192 / 1024 and concurrency 64 (sgl-project/sglang-jax
# docs/performance/qwen3_benchmark.md, 2025-09-12), the rows chosen for it before any was evaluated
# (ACCURACY.md, "v10 pre-registration"). Without it they read 1.43, 1.50 and 1.54x. The datasheet
# (1,640 GB/s HBM, 918 TFLOPs bf16) does not explain the gap: the physics is unchanged; the stack's
# attention and decode kernels (ragged paged attention on the TPU's vector units) run further from
# the roofline than the GPU stacks the constants were fitted on. The other 33 rows of the same table
# stay held out, and TPU serving estimates carry their measured range (MEASURED_RANGE).
# Which engine it describes (v11, ACCURACY.md "v11 note"): the TPU targets deploy vllm/vllm-tpu:v0.11.1,
# whose backend is tpu-inference (JAX lowering, ragged paged attention v3, SPMD; vLLM PR #27277 pins
# tpu-inference==0.11.1). The same table's vLLM rows ran vLLM's PyTorch/XLA backend of 2025-09, the
# generation tpu-inference replaced, so they were not made calibration rows; SGLang-JAX, a JAX engine
# with a Pallas ragged paged attention kernel, is the nearest measured engine to the deployed one.
TPU_SERVING_EFF = 0.64

# --- serving runtime ----------------------------------------------------------------------------
# Share of device memory the serving runtime may use (vLLM's default gpu_memory_utilization 0.9,
# TensorRT-LLM's kv_cache_free_gpu_mem_fraction 0.9) and a fixed runtime reserve per device
# (CUDA context, cuBLAS/NCCL workspaces). Not fitted: taken from those defaults.
MEMORY_UTILIZATION = 0.90
RUNTIME_RESERVE_GB = 1.5
# Prefill activation workspace: a chunk of PREFILL_CHUNK_TOKENS tokens x hidden x 2 bytes x
# ACTIVATION_FACTOR live tensors (vLLM's default max_num_batched_tokens is 8192). Also the chunk
# budget of a GPU estimate without a named engine (v15: TensorRT-LLM's default max_num_tokens, the
# engine the NVIDIA constants were fitted on; an assumption, no first-party page read states it).
PREFILL_CHUNK_TOKENS = 8192
ACTIVATION_FACTOR = 8
# Largest batch a serving runtime schedules per replica (TensorRT-LLM's max_batch_size default is
# 2048 in recent releases; the throughput tables use 64-1024: INF-28 768, INF-29 384).
MAX_BATCH = 1024
# MoE kernels (routing, token permutation, grouped GEMMs over few tokens per expert) run below the
# roofline: an MoE model's decode step and prefill compute take MOE_DECODE_FACTOR times the
# roofline time. Fitted (geometric mean of predicted/published) to CAL-MOE-1..4 in rows.csv
# (Mixtral 8x7B H100/H200, Qwen3-30B-A3B B200 FP4, Qwen3-235B-A22B H200: TensorRT-LLM tables); the
# shared calibration set has no MoE row. The other MoE rows stay held out.
MOE_DECODE_FACTOR = 1.40

# Fixed host-side cost of admitting a request (tokenisation, scheduling, first sampling), added to
# TTFT only (it overlaps GPU work under load). Fitted to CAL-TTFT-1 (Llama-2-7B, 128-token prompt,
# H100 FP8: 7 ms measured vs 3.1 ms of prefill); HO-31 (the A100 twin) stays held out.
REQUEST_OVERHEAD_S = 0.0039

# Fixed cost per decode step per layer (kernel launches, sampling, scheduler), seconds. NOT fitted:
# no calibration row measures batch-1 TPOT; an assumed ~0.4 ms per step for a 32-layer model.
STEP_OVERHEAD_S_PER_LAYER = 12e-6

# --- interconnect -------------------------------------------------------------------------------
# Per-allreduce latency: NVLink/xGMI/ICI 10 us, PCIe 25 us, across nodes 40 us; effective share of
# a vendor link's (NVLink, Infinity Fabric, ICI) or the fabric's bandwidth 0.7. NOT fitted: assumed
# orders of magnitude of NCCL small-message latency and bus bandwidth. v7 examined HO-14 (A100 TP8
# over NVLink, 1.58x after the v7 physics) as a row to fit them on, and did not: matching it would
# take LINK_EFF = 0.16 (HO-10, HO-16, HO-52 then fall beyond 2x low) or 380 us per all-reduce
# (HO-NV-1..2 at 0.25x); its gap is not communication (ACCURACY.md), so both stay assumed.
ALLREDUCE_LATENCY_S = {"fast": 10e-6, "pcie": 25e-6, "network": 40e-6}
LINK_EFF = 0.7
# Share of PCIE_GBPS that tensor-parallel all-reduces (and data-parallel collectives) reach over PCIe.
# Fitted to CAL-TP-1 in rows.csv (was HO-15: TensorRT-LLM v0.17, Llama 3.1 70B FP8 at TP4 on L40S,
# 1000/1000, the only row with tensor parallelism over PCIe; moved to calibration after the v6
# evaluation): solved 0.445, rounded to 0.45 (1.01x; v6 1.83x, v7 physics alone 1.32x). At its
# operating point (373 requests, ~750 tokens per step) the all-reduces are volume-bound, so the row
# sets the bandwidth, not the latency. Why below LINK_EFF: over PCIe, NCCL traffic crosses the host
# root complex (between sockets also the CPU interconnect), which bounds it below the GPU's x16
# link. NCCL's own topology model counts a Gen4 x16 link as 24 GB/s and Intel P2P traffic at 6/5
# its size (github.com/NVIDIA/nccl src/graph/topo.h: PCI_BW 12 per Gen3 x16, INTEL_P2P_OVERHEAD,
# SKL_QPI_BW 10; "PCI[24.0]" for Gen4 in the log of github.com/NVIDIA/nccl-tests/issues/307), and
# NCCL's maintainer: "on PCI systems, the performance you get is usually determined by the
# bandwidth your CPU and memory can deliver" (github.com/NVIDIA/nccl/issues/1639: 8x PCIe Gen5
# GPUs reach 28 GB/s bus bandwidth, 0.44 of the link). HO-41 (Mixtral 8x7B TP4 on L40S) stays
# held out. TP8 over PCIe (a ring across both sockets) uses the same value: no row measures it.
PCIE_LINK_EFF = 0.45
# Without a vendor link the GPUs talk over PCIe Gen4 x16: 32 GB/s per direction.
PCIE_GBPS = 32.0
# Vendors quote accelerator links as bidirectional aggregates (NVLink 4: 900 GB/s = 18 links x 50 GB/s
# both ways); a ring all-reduce moves data one way per link, so the model uses half the catalog figure.
LINK_DIRECTIONS = 2
# Links the catalog names without a figure, by architecture: AMD MI300-series (CDNA 3) has seven
# Infinity Fabric links of 128 GB/s bidirectional each = 896 GB/s (wheelersnetwork.com/2024/01,
# "AMD Looks to Infinity for AI Interconnects": "up to seven Infinity Fabric links ... 128GB/s of
# bidirectional bandwidth per link").
LINK_GBPS_BY_ARCH = {"cdna 3": 896.0}
# Across nodes with an RDMA fabric: 400 Gb/s per GPU (ConnectX-7 per GPU in DGX/HGX H100 designs).
FABRIC_GBPS_PER_GPU = 50.0
# Across nodes without a fabric: 100 Gb/s Ethernet shared by the node's 8 GPUs.
ETHERNET_GBPS_PER_GPU = 12.5 / 8

# --- training -----------------------------------------------------------------------------------
# Hardware efficiency grows with the model width (bigger GEMMs): HFU 46 % at 4096 (TRN-03) vs 57 %
# at 8192 (TRN-01) on H100, 64 % vs 71 % on A100 (TRN-06, TRN-05): exponent 0.22 (mean of 0.29, 0.15),
# clamped to +-20 %.
WIDTH_REF = 4096
WIDTH_EXPONENT = 0.22
# Full activation recomputation spends a third more FLOPs: HFU/MFU = 56.76/42.57 = 1.333 (TRN-01).
RECOMPUTE_FACTOR = 0.75
# Each doubling of the node count beyond one loses 2 % to collectives and stragglers: Llama 3 405B on
# 1024 nodes reaches 0.43 MFU (TRN-25) where the single-node width law predicts ~0.53.
SCALE_LOSS_PER_DOUBLING = 0.02
# FP8 training (Transformer Engine): the share of the FP8 peak it reaches relative to what the peak
# law (fitted on BF16 training, TRN-03/TRN-06) extrapolates to the FP8 peak. Fitted to TRN-33 (NeMo
# Llama-3-70B FP8 on 64 H100, 1602 tokens/s/GPU) through the whole model: solved 1.0606, rounded to
# 1.06 (TRN-33 1.00x). Until v8 it was 0.9, taken from the width law alone (0.36 of the FP8 peak
# measured vs 0.40 predicted), which left its own row at 0.85x once the tensor/pipeline-parallel and
# bubble terms applied. HO-38, HO-NEMO-1..7 stay held out (v9: 0.65-0.89x -> 0.72-1.05x).
FP8_TRAIN_FACTOR = 1.06
# Bytes per parameter of mixed-precision Adam: bf16 weights 2 + bf16 grads 2 + fp32 master 4 +
# Adam moments 8 (ZeRO paper, arXiv:1910.02054, section 3.1).
ADAM_BYTES_PER_PARAM = 16
# Activation bytes per token per layer without recomputation: 34 * hidden (Korthikanti et al.,
# arXiv:2205.05198, eq. 1 with flash attention removing the s^2 term); with full recomputation only
# the layer input (2 * hidden bytes) stays per layer.
ACT_BYTES_PER_HIDDEN = 34
# LoRA adapters: ~0.5 % of the base parameters (rank 16 on all linear layers of a Llama-class model).
LORA_PARAM_FRACTION = 0.005
