"""`computeops estimate`: the performance model on its own, for one model on one accelerator type.

Exit codes: 0 estimated, 2 invalid input, 3 the model does not fit in ``--count`` accelerators, or
a latency target is missed even at batch 1 (the estimate is still printed, so CI can read it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from .._limits import (
    MAX_ACCELERATORS,
    MAX_ACCELERATORS_PER_INSTANCE,
    MAX_BATCH_PER_REPLICA,
    MAX_CONCURRENCY,
    MAX_GLOBAL_BATCH_TOKENS,
    MAX_INSTANCES,
    MAX_PARAMS_B,
    MAX_TOKENS,
)
from ..errors import DoesNotFitError, EstimateError, did_you_mean, did_you_mean_text
from ..perf import (
    PRECISIONS,
    InferenceEstimate,
    ModelSpec,
    TrainingEstimate,
    estimate_inference,
    estimate_training,
    model_from_params,
    model_names,
    resolve_model,
)
from ..perf._engines import ENGINES
from ._parser import HelpFormatter

__all__ = ["register"]

_EPILOG = """\
examples:
  computeops estimate --workload inference --model llama-3.1-70b --precision fp8 \\
      --accelerator H100 --count 8 --input-tokens 1024 --output-tokens 256
  computeops estimate --workload inference --model mixtral-8x7b --precision bf16 \\
      --accelerator A100-80GB --count 2 --concurrency 1 --format json
  computeops estimate --workload training --params-b 13 --precision bf16 \\
      --accelerator H100 --count 64 --seq-len 4096 --global-batch-tokens 4194304
  computeops estimate --workload fine_tuning --model llama-3.1-8b --precision int4 \\
      --accelerator L4 --count 1 --seq-len 2048

Without --concurrency an inference estimate is the maximum sustained throughput (the largest
batch that fits, as a throughput benchmark runs it); --concurrency 1 gives single-request
latency. fine_tuning is LoRA (int4/int8 = QLoRA); training is full-parameter mixed-precision
Adam with ZeRO-3 sharding. A precision the accelerator lacks (FP8 before Ada/Hopper/MI300, FP4
before Blackwell/MI355X) falls back and says so under "assumptions".

known models: {models}
"""


def _whole(value: str, high: int | None = None, what: str = "") -> int:
    """argparse type: a whole number >= 1 and, given ``high``, <= ``high`` (the physical range of
    ``what``; the flag is named by argparse in the error)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number (got {_cut(value)})") from None
    if number < 1:
        # a long one as the given text, cut (a 4,000-digit negative was echoed whole)
        got = number if len(value) <= 40 else _cut(value.strip())
        raise argparse.ArgumentTypeError(f"must be >= 1 (got {got})")
    if high is not None and number > high:
        raise argparse.ArgumentTypeError(_out_of_range(value, high, what))
    return number


def _positive(value: str, high: float | None = None, what: str = "") -> float:
    """argparse type: a finite number > 0 and, given ``high``, <= ``high``."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number (got {_cut(value)})") from None
    if not (number > 0 and math.isfinite(number)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0 (got {_cut(value)})")
    if high is not None and number > high:
        raise argparse.ArgumentTypeError(_out_of_range(value, high, what))
    return number


def _cut(value: str) -> str:
    """The flag's value as echoed: 40 characters at most (a 5,000-digit number was echoed whole)."""
    return repr(value if len(value) <= 40 else value[:40] + "...")


def _out_of_range(value: str, high: float, what: str) -> str:
    shown = value if len(value) <= 40 else value[:40] + "..."
    return f"must be in 1..{high:,} ({what}; got {shown}). To fix: give a value in that range"


def _share(value: str) -> float:
    """argparse type: a number from 0 to 1."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(
            f"must be a number from 0 to 1 (got {_cut(value)}). To fix: give the share of each prompt "
            "served from the prefix cache, e.g. 0.5"
        )
    return number


def _at_most(kind: Callable[[str, Any, str], Any], high: float, what: str) -> Callable[[str], Any]:
    """``kind`` bounded by ``high``, named for argparse's "invalid ... value" fallback."""

    def parse(value: str) -> Any:
        return kind(value, high, what)

    parse.__name__ = kind.__name__.lstrip("_")
    return parse


# The physical ranges the intent models accept for the same quantities (one number each, _limits).
_COUNT = _at_most(_whole, MAX_ACCELERATORS, f"the largest deployment: {MAX_INSTANCES} instances "
                  f"of {MAX_ACCELERATORS_PER_INSTANCE:,} accelerators")  # fmt: skip
_CONCURRENCY = _at_most(_whole, MAX_CONCURRENCY, f"requests the largest deployment can hold: "
                        f"{MAX_BATCH_PER_REPLICA:,} per replica on each of "
                        f"{MAX_ACCELERATORS:,} accelerators")  # fmt: skip
_PER_NODE = _at_most(_whole, MAX_ACCELERATORS_PER_INSTANCE, "accelerators of the largest instance")
_TOKENS = _at_most(_whole, MAX_TOKENS, "the tokens an intent accepts")
_BATCH_TOKENS = _at_most(_whole, MAX_GLOBAL_BATCH_TOKENS, "the tokens per step an intent accepts")
_PARAMS_B = _at_most(_positive, MAX_PARAMS_B, "the billions of parameters an intent accepts")


# Flags of one workload kind with their defaults, applied in run() so the other kind's are reported.
_INFERENCE_ONLY = {"input_tokens": 1024, "output_tokens": 256, "concurrency": None, "ttft_ms": None,
                   "tpot_ms": None, "engine": None, "engine_version": None,
                   "prefix_cache_share": 0.0}  # fmt: skip
_TRAINING_ONLY = {"seq_len": 4096, "global_batch_tokens": None, "no_fabric": False}


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "estimate",
        help="estimate throughput, latency, memory and MFU for one model on one accelerator type",
        description=(
            "Estimate what a model does on COUNT accelerators: tokens/s, TTFT and TPOT for\n"
            "inference; MFU, step time and tokens/s for training and fine-tuning. A calibrated\n"
            "roofline model; every estimate is labelled with its model_version and assumptions.\n"
            "Exit codes: 0 estimated, 2 invalid input, 3 the model does not fit in COUNT accelerators\n"
            "or a --ttft-ms/--tpot-ms target is missed (slo_met false)."
        ),
        epilog=_EPILOG.format(models=", ".join(model_names())),
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "--workload",
        required=True,
        choices=("inference", "training", "fine_tuning"),
        help="what to estimate: serving, full-parameter training, or LoRA fine-tuning",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", metavar="NAME", help="a registry model (e.g. llama-3.1-70b) or HF repo id")
    which.add_argument(
        "--params-b", type=_PARAMS_B, metavar="N", help="unknown model: total params (billions)"
    )
    parser.add_argument(
        "--active-params-b", type=_PARAMS_B, metavar="N", help="with --params-b, MoE: params active per token"
    )
    parser.add_argument(
        "--precision",
        required=True,
        choices=PRECISIONS,
        help="weights (inference) or compute (training) precision; falls back where the hardware lacks it",
    )
    parser.add_argument(
        "--accelerator",
        required=True,
        metavar="ACC",
        help="catalog id or alias: H100, A100-80GB, TPU-v5e, ...",
    )
    parser.add_argument(
        "--count", type=_COUNT, default=1, metavar="N", help="accelerators (TPU chips). Default: 1"
    )
    parser.add_argument(
        "--gpus-per-node",
        type=_PER_NODE,
        metavar="N",
        help="accelerators per node. Default: 8 (TPU: the slice)",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output. Default: table")
    parser.add_argument("--catalog", metavar="FILE", help="catalog JSON. Default: the embedded one")
    serving = parser.add_argument_group("inference only")
    serving.add_argument(
        "--input-tokens", type=_TOKENS, metavar="N", help="mean prompt length. Default: 1024"
    )
    serving.add_argument(
        "--output-tokens", type=_TOKENS, metavar="N", help="mean completion length. Default: 256"
    )
    serving.add_argument(
        "--concurrency",
        type=_CONCURRENCY,
        metavar="N",
        help=f"requests in flight, 1..{MAX_CONCURRENCY:,} (each replica batches at most "
        f"{MAX_BATCH_PER_REPLICA:,}). Default: the most that fit",
    )
    serving.add_argument("--ttft-ms", type=_positive, metavar="MS", help="largest batch meeting this TTFT")
    serving.add_argument("--tpot-ms", type=_positive, metavar="MS", help="largest batch meeting this TPOT")
    serving.add_argument(
        "--engine",
        metavar="NAME",
        help=f"serving engine ({', '.join(sorted(ENGINES))}). Default: none named (the engines the "
        "model was fitted on)",
    )
    serving.add_argument(
        "--engine-version",
        metavar="V",
        help="the engine's release (with --engine). Default: the model's default release (cited, or "
        "said to be an assumption)",
    )
    serving.add_argument(
        "--prefix-cache-share",
        type=_share,
        metavar="S",
        help="share of each prompt's tokens served from the prefix cache, 0..1 (your own figure). Default: 0",
    )
    training = parser.add_argument_group("training and fine_tuning only")
    training.add_argument("--seq-len", type=_TOKENS, metavar="N", help="tokens per sequence. Default: 4096")
    training.add_argument(
        "--global-batch-tokens",
        type=_BATCH_TOKENS,
        metavar="N",
        help="tokens per optimizer step (>= --seq-len). Default: 1024 x seq-len",
    )
    training.add_argument(
        "--no-fabric", action="store_true", default=None, help="nodes joined by Ethernet, not RDMA"
    )
    parser.set_defaults(handler=run)


def _apply_workload_defaults(args: argparse.Namespace) -> None:
    """Reject flags of the other workload kind, then fill the defaults of this one."""
    ours, theirs = (
        (_INFERENCE_ONLY, _TRAINING_ONLY)
        if args.workload == "inference"
        else (_TRAINING_ONLY, _INFERENCE_ONLY)
    )
    given = [name for name in theirs if getattr(args, name) is not None]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        kinds = "training and fine_tuning" if args.workload == "inference" else "inference"
        verb = "applies" if len(given) == 1 else "apply"
        raise EstimateError(
            f"{flags} only {verb} to {kinds}, not to --workload {args.workload}. "
            f"To fix: drop {flags}, or change --workload."
        )
    for name, default in ours.items():
        if getattr(args, name) is None:
            setattr(args, name, default)


def _model(args: argparse.Namespace) -> ModelSpec:
    if args.model is not None:
        if args.active_params_b is not None:
            raise EstimateError("--active-params-b goes with --params-b, not --model")
        return resolve_model(args.model)
    return model_from_params(args.params_b, active_params_b=args.active_params_b)


def _accelerator(args: argparse.Namespace) -> Any:
    from ..catalog import load_catalog

    catalog = load_catalog(args.catalog)
    found = catalog.find_accelerator(args.accelerator)
    if found is None:
        names = catalog.accelerator_names()
        raise EstimateError(
            f"unknown accelerator {args.accelerator!r}. To fix: use a catalog id or alias "
            "(`computeops catalog accelerators`)" + did_you_mean_text(did_you_mean(args.accelerator, names))
        )
    return found


def run(args: argparse.Namespace) -> int:
    _apply_workload_defaults(args)
    model = _model(args)
    acc = _accelerator(args)
    est: InferenceEstimate | TrainingEstimate
    if args.workload == "inference":
        est = estimate_inference(
            model,
            precision=args.precision,
            accelerator=acc,
            count=args.count,
            input_tokens=args.input_tokens,
            output_tokens=args.output_tokens,
            concurrency=args.concurrency,
            ttft_ms=args.ttft_ms,
            tpot_ms=args.tpot_ms,
            gpus_per_node=args.gpus_per_node,
            engine=args.engine,
            engine_version=args.engine_version,
            prefix_cache_share=args.prefix_cache_share,
        )
    else:
        est = estimate_training(
            model,
            precision=args.precision,
            accelerator=acc,
            count=args.count,
            seq_len=args.seq_len,
            global_batch_tokens=args.global_batch_tokens or 1024 * args.seq_len,
            method="lora" if args.workload == "fine_tuning" else "full",
            gpus_per_node=args.gpus_per_node,
            multi_node_fabric=not args.no_fabric,
        )
    doc = _document(args, model, acc, est)
    if args.format == "json":
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        _print_table(doc)
    if not est.fits:
        need = est.memory_gb_per_accelerator
        raise DoesNotFitError(
            f"{model.name} at {est.precision} does not fit on {args.count} x {acc.id}: needs "
            f"{need:.1f} GB per accelerator, {est.memory_available_gb_per_accelerator:g} GB available. "
            "To fix: raise --count, pick an accelerator with more memory or a smaller precision.",
            needed_gb=need,
            available_gb=est.memory_available_gb_per_accelerator,
        )
    if isinstance(est, InferenceEstimate) and est.slo_met is False:  # None: no target given
        given = (("--ttft-ms", args.ttft_ms), ("--tpot-ms", args.tpot_ms))
        targets = " and ".join(f"{flag} {value:g}" for flag, value in given if value)
        where = f"at --concurrency {args.concurrency}" if args.concurrency else "even at batch 1"
        print(
            f"error: {model.name} on {args.count} x {acc.id} misses {targets} {where} "
            f"(TTFT {est.ttft_ms:,.1f} ms, TPOT {est.tpot_ms:,.2f} ms; slo_met false). To fix: raise "
            "--count, pick a faster accelerator or a smaller precision, or relax the target.",
            file=sys.stderr,
        )
        return _EXIT_SLO_MISSED
    return 0


_EXIT_SLO_MISSED = 3


def _num(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else round(value, 4)


def _document(args: argparse.Namespace, model: ModelSpec, acc: Any, est: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "workload": args.workload,
        "model": model.name,
        "model_source": model.source,
        "accelerator": acc.id,
        "count": args.count,
        "precision": est.precision,
        "requested_precision": args.precision,
        "tokens_per_s": _num(est.tokens_per_s),
        "tokens_per_s_per_accelerator": _num(est.tokens_per_s_per_accelerator),
        **_band(est),
        "memory_gb_per_accelerator": _num(est.memory_gb_per_accelerator),
        "memory_available_gb_per_accelerator": est.memory_available_gb_per_accelerator,
        "fits": est.fits,
        "bound": est.bound,
        "tensor_parallel": est.tensor_parallel,
        "replicas": est.replicas,
        "model_version": est.model_version,
        "assumptions": list(est.assumptions),
    }
    if isinstance(est, InferenceEstimate):
        doc |= {
            "ttft_ms": _num(est.ttft_ms),
            "tpot_ms": _num(est.tpot_ms),
            "concurrency_per_replica": est.concurrency,
            "input_tokens": args.input_tokens,
            "output_tokens": args.output_tokens,
            "slo_met": est.slo_met,
        }
    else:
        doc |= {
            "mfu": _num(est.mfu),
            "step_time_s": _num(est.step_time_s),
            "activation_checkpointing": est.activation_checkpointing,
            "seq_len": args.seq_len,
        }
    return doc


def _band(est: Any) -> dict[str, Any]:
    """The estimate's band as a decision states it: throughput at its p10 and p90, and its evidence
    (None for an estimate that does not fit: the keys stay, so the document's shape does not vary)."""
    band = est.uncertainty
    if band is None or not est.fits:
        return {"tokens_per_s_p10": None, "tokens_per_s_p90": None, "evidence": None}
    return {
        "tokens_per_s_p10": _num(est.tokens_per_s * band.low),
        "tokens_per_s_p90": _num(est.tokens_per_s * band.high),
        "evidence": band.evidence,
    }


def _print_table(doc: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{doc['model']} on {doc['count']} x {doc['accelerator']} ({doc['workload']})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    skip = {"assumptions", "model", "accelerator", "count", "workload", "model_source"}
    for key, value in doc.items():
        if key not in skip:
            table.add_row(key, _fmt(value))
    console = Console(file=sys.stdout, width=110)
    console.print(table)
    for note in doc["assumptions"]:
        console.print(f"  - {note}", markup=False)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return "-" if value is None else str(value)
