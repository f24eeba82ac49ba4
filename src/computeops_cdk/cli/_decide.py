"""``computeops decide``: run the engine on an intent file and print the decision.

Formats: ``table`` (rich, the chosen row marked), ``json`` (the decision document, byte-identical
for equal inputs), ``markdown`` (for a pull request) and ``csv`` (one row per ranked placement and
per listed rejection). Exit codes: 0 decided, 2 invalid input, 3 no feasible placement (json,
markdown and csv still print the rejections; json and markdown the nearest misses too).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from ..catalog import load_catalog
from ..engine import Decision, Placement, Rejection, decide
from ..engine._accounts import UNLISTED
from ..engine._decision import DEFAULT_REJECTIONS, REJECTION_LISTINGS, Rejections
from ..errors import IntentError, NoFeasiblePlacementError
from ..intent import WorkloadIntent
from ..targets import placement_pin
from ._args import whole_at_least
from ._parser import HelpFormatter

__all__ = [
    "CSV_COLUMNS",
    "register",
    "render_csv",
    "render_infeasible_markdown",
    "render_markdown",
    "render_table",
]

EXIT_OK = 0
EXIT_INFEASIBLE = 3

_DESCRIPTION = """\
Decide where a workload runs: provider, instance type, number of instances, region and price
model. Every offer in the catalog is a candidate; hard constraints reject candidates (each
rejection names its rule and the numbers), the performance model sizes the rest, and the feasible
ones are ranked by a weighted score led by cost per unit of useful work (USD per 1M output tokens
for inference, USD per training step for training). Same intent + same catalog = same bytes.

An intent is YAML or JSON:

  apiVersion: computeops.dev/v1
  kind: WorkloadIntent
  name: support-chat
  workload:
    type: inference                # inference | training | fine_tuning
    model: {name: llama-3.1-70b, precision: fp8}    # or params_b: 70 for other models
    serving: {output_tokens_per_s: 20000, input_tokens: 1024, output_tokens: 256,
              ttft_ms: 800, tpot_ms: 60}            # inference only
    # training: {tokens: 1.0e11, seq_len: 8192, global_batch_tokens: 4194304,
    #            deadline_hours: 240, method: full}  # training / fine_tuning (method lora)
  constraints:                     # hard filters, never traded off
    compliance: [hipaa]            # soc2 iso27001 hipaa fedramp_moderate fedramp_high pci_dss gdpr
    residency: {countries: [US]}   # or continents: [EU] or regions: ["aws:us-east-1"]
    providers: {allow: [aws, gcp]} # or exclude: [vast]
    accelerators: {allow: [H100, H200]}
    pricing: [on_demand]           # default; add spot / reserved to allow them
    max_hourly_usd: 400
    max_monthly_usd: 250000
    max_total_usd: 2000000         # training / fine_tuning only
  preferences:                     # soft: ranking only
    weights: {cost: 5, performance: 2, availability: 1, reliability: 1, compliance: 1, residency: 1}
    regions: ["aws:us-east-1"]
"""

_EPILOG = """\
examples:
  computeops decide examples/support-chat.yaml
  computeops decide examples/llama-8b-pretrain.yaml --format json > decision.json
  computeops decide examples/eu-residency.yaml --format markdown --top 5
  computeops decide examples/infeasible-budget.yaml   # exit 3 with the nearest misses
  computeops decide examples/support-chat.yaml --format csv --rejections all > candidates.csv
  computeops decide examples/support-chat.yaml --plot trade-off.svg   # needs computeops-cdk[plot]

exit codes: 0 decided, 2 invalid input (intent or catalog), 3 no feasible placement
"""


_FORMATS = ("table", "json", "markdown", "csv")


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "decide",
        help="decide where a workload intent runs (provider, instance, region, price model)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("intent", metavar="INTENT", help="workload intent file (.yaml, .yml or .json)")
    output = parser.add_argument_group("output")
    inputs = parser.add_argument_group("market data and accounts")
    pins = parser.add_argument_group("placement pins")
    output.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="output format (default: table)",
    )
    output.add_argument(
        "--rejections",
        choices=REJECTION_LISTINGS,
        default=DEFAULT_REJECTIONS,
        help="rejected candidates to list: 'summary', the first one per rule (counts by rule are always "
        f"complete), or 'all' (thousands over the embedded catalog) (default: {DEFAULT_REJECTIONS}, as the "
        "constructs' computeops-decision.json)",
    )
    output.add_argument(
        "--plot",
        metavar="FILE",
        default=None,
        help="also draw unit cost against speed for the feasible candidates, the Pareto front and the "
        "chosen one, as FILE.png or FILE.svg (needs the 'plot' extra: pip install 'computeops-cdk[plot]')",
    )
    output.add_argument(
        "--top",
        type=whole_at_least("--top", 0),
        default=10,
        metavar="N",
        help="ranked alternatives to list after the chosen placement (default: 10)",
    )
    inputs.add_argument(
        "--catalog",
        metavar="FILE",
        default=None,
        help="market catalog JSON to decide over (default: $COMPUTEOPS_CATALOG, else the embedded catalog)",
    )
    inputs.add_argument(
        "--accounts",
        metavar="FILE",
        default=None,
        help="the team's accounts (computeops.accounts.yaml: enabled providers, quotas, negotiated "
        "discounts, owned capacity); a region or instance type the catalog does not list is a "
        "warning (it limits or prices nothing), a malformed one an error. Default: "
        "$COMPUTEOPS_ACCOUNTS, else every provider at list price",
    )
    pins.add_argument(
        "--provider",
        metavar="P",
        default=None,
        help="pin the provider, as ComputeWorkload(provider=...) does; still checked against every hard "
        "constraint (default: the engine chooses)",
    )
    pins.add_argument(
        "--region",
        metavar="R",
        default=None,
        help="pin the region code, as ComputeWorkload(region=...) does (default: the engine chooses)",
    )
    pins.add_argument(
        "--cluster",
        action="store_true",
        help="place the GPUs as a node pool of an existing Kubernetes cluster, as "
        "ComputeWorkload(cluster=...) does (default: standalone machines)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``computeops decide``; errors other than infeasibility propagate to ``cli.main``."""
    if args.plot is not None:
        from ._plot import check_plot_path

        check_plot_path(args.plot)  # before deciding: a wrong suffix or a missing extra is exit 2 now
    intent = WorkloadIntent.from_file(args.intent)
    catalog = load_catalog(args.catalog) if args.catalog else None
    try:
        # The same pin as the constructs: only what a Terraform target can express is a candidate,
        # so this answer and a construct's computeops-decision.json are the same bytes.
        pin = placement_pin(provider=args.provider, region=args.region, cluster=args.cluster)
        decision = decide(intent, catalog=catalog, pin=pin, alternatives=args.top, accounts=args.accounts)
    except IntentError as err:
        if err.path.startswith("pin."):
            raise _flag_error(err) from None
        raise
    except NoFeasiblePlacementError as err:
        _print_infeasible(err, args)
        print(f"error: {err}", file=sys.stderr)
        return EXIT_INFEASIBLE
    if args.format in ("json", "csv"):
        # The table and markdown show them in the explanation; a machine format's reader sees stderr.
        for line in decision.explanation:
            if line.startswith(UNLISTED):
                print(f"warning: {line.removeprefix('Warning: ')}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(decision.to_json(rejections=args.rejections))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(decision))
    elif args.format == "csv":
        sys.stdout.write(render_csv(decision, rejections=args.rejections))
    else:
        render_table(decision)
    if args.plot is not None:
        from ._plot import plot_decision

        # Every distinct feasible (provider, instance type, pricing), not just the --top listed.
        # The same accounts as the decision printed: the chosen one marked is the one printed.
        everything = decide(
            intent, catalog=catalog, pin=pin, alternatives=_ALL_FEASIBLE, accounts=args.accounts
        )
        plot_decision(everything, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return EXIT_OK


_ALL_FEASIBLE = 1_000_000
"""``alternatives=`` large enough to list every distinct feasible candidate (for the plot)."""


def _print_infeasible(err: NoFeasiblePlacementError, args: argparse.Namespace) -> None:
    draft: Decision | None = err.decision
    if args.format == "json" and draft is not None:
        sys.stdout.write(draft.to_json(rejections=args.rejections))
    elif args.format == "json" and err.document is not None:
        sys.stdout.write(json.dumps(err.document, indent=2, ensure_ascii=False) + "\n")
    elif args.format == "markdown" and err.document is not None:
        sys.stdout.write(render_infeasible_markdown(err))
    elif args.format == "csv" and draft is not None:
        sys.stdout.write(render_csv(draft, rejections=args.rejections))


def _flag_error(err: IntentError) -> IntentError:
    """The engine's ``pin.<x>: <what>. To fix: pin ...`` said about the ``--<x>`` flag that set it."""
    prop = err.path.removeprefix("pin.")
    flag = f"--{prop}"
    body = str(err).removeprefix(f"{err.path}: ").split(" (did you mean")[0]
    what, found, fix = body.partition(". To fix: pin ")
    if not found:  # a value the Pin itself refuses (an empty --region): same text, the flag's name
        return IntentError(body.replace(f"{prop}=", f"{flag} "), path=flag, suggestions=err.suggestions)
    fix = fix.removesuffix(f", or no {prop}")
    return IntentError(
        f"{what}. To fix: pass {flag} {fix}, or leave {flag} out to let the engine choose",
        path=flag,
        suggestions=err.suggestions,
    )


# -- shared cell text ---------------------------------------------------------------------------


def _accelerators(p: Placement) -> str:
    return f"{p.instances} x {p.accelerators_per_instance} {p.accelerator}"


def _unit(p: Placement) -> str:
    label = "/1M tok" if p.unit_cost.unit == "usd_per_million_output_tokens" else "/step"
    return f"{p.unit_cost.value:g} USD{label}"


def _pricing(p: Placement) -> str:
    """The price model, with a reservation's term ("reserved 12 mo")."""
    return p.pricing if p.term_months is None else f"{p.pricing} {p.term_months} mo"


def _cells(p: Placement) -> list[str]:
    return [
        p.provider,
        p.instance_type,
        _accelerators(p),
        p.region,
        _pricing(p),
        f"{p.hourly_usd:,.2f}",
        f"{p.monthly_usd:,.0f}",
        _unit(p),
        f"{p.score:.3f}",
    ]


_HEADERS = [
    "provider",
    "instance type",
    "accelerators",
    "region",
    "pricing",
    "USD/h",
    "USD/month",
    "unit cost (est.)",  # price / estimated throughput: the performance model's, not a measurement
    "score",
]


def _examples_by_rule(rejected: Sequence[Rejection]) -> dict[str, str]:
    """One example message per rule (the first rejection that carries it), in first-seen order.
    Reads the reasons first, so a lazy ``Rejections`` makes only the example records."""
    examples: dict[str, str] = {}
    reasons_of = rejected.reasons() if isinstance(rejected, Rejections) else (r.reasons for r in rejected)
    for index, reasons in enumerate(reasons_of):
        for reason in reasons:
            if reason.rule not in examples:
                rejection = rejected[index]
                where = f"{rejection.provider} {rejection.instance_type} in {rejection.region}"
                examples[reason.rule] = f"{where}: {reason.message}"
    return examples


_OWN_SECTIONS = ("Trade-off:", "Rejections by rule")


# -- table ------------------------------------------------------------------------------------

_NUMERIC = {"USD/h", "USD/month", "score"}
_DROP_ORDER = ("USD/month", "score", "pricing", "accelerators", "USD/h")
"""Columns a narrow terminal loses first (provider, instance type, region and unit cost stay)."""
_DEFAULT_WIDTH = 160
"""Width when neither the terminal nor COLUMNS says (output piped to a file keeps every column)."""


def _fitting_columns(rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Indexes of the ``_HEADERS`` columns to show in ``width`` characters: drop by ``_DROP_ORDER``
    until the natural widths (plus rich's borders and padding) fit; the rest then wraps."""
    natural = [max([len(_HEADERS[i]), *(len(r[i]) for r in rows)]) for i in range(len(_HEADERS))]
    shown = list(range(len(_HEADERS)))

    def needed() -> int:
        return 4 + sum(natural[i] + 3 for i in shown) + 1  # mark column, separators, padding

    for name in _DROP_ORDER:
        if needed() <= width:
            break
        shown.remove(_HEADERS.index(name))
    return shown


def render_table(decision: Decision) -> None:
    """Print the considered-resources table, the reasons and the rejections by rule (rich). At the
    terminal's width (or ``COLUMNS``) the least needed columns go first, then cells wrap, never cut.
    """
    # imported here: the JSON, CSV and markdown paths never need rich
    import shutil

    from rich.console import Console
    from rich.table import Table

    width = shutil.get_terminal_size((_DEFAULT_WIDTH, 40)).columns
    console = Console(file=sys.stdout, width=width, highlight=False)
    rows = [_cells(p) for p in decision.ranked]
    shown = _fitting_columns(rows, width)
    table = Table(
        title=f"Considered placements for {decision.intent_name} (best first)", title_justify="left"
    )
    table.add_column("", no_wrap=True)
    for i in shown:
        header = _HEADERS[i]
        table.add_column(header, justify="right" if header in _NUMERIC else "left", overflow="fold")
    for rank, cells in enumerate(rows):
        chosen = rank == 0
        table.add_row(
            "✔" if chosen else "", *(cells[i] for i in shown), style="bold green" if chosen else None
        )
    console.print(table)
    hidden = [_HEADERS[i] for i in range(len(_HEADERS)) if i not in shown]
    if hidden:
        console.print(
            f"({', '.join(hidden)} hidden at {width} columns; --format markdown, json or csv show them)",
            markup=False,
        )
    console.print("[bold]Why[/bold]")
    for line in decision.explanation:
        if not line.startswith(_OWN_SECTIONS):  # printed below in their own sections
            console.print(f"  - {line}", markup=False)
    by_rule = decision.rejections_by_rule()
    if by_rule:
        rules = Table(title="Rejected candidates by rule", title_justify="left")
        rules.add_column("rule", overflow="fold")
        rules.add_column("candidates", justify="right", no_wrap=True)
        rules.add_column("example", overflow="fold")
        examples = _examples_by_rule(decision.rejected)
        for rule, count in by_rule.items():
            rules.add_row(rule, f"{count:,}", examples[rule])
        console.print(rules)
    console.print(f"[bold]Trade-off[/bold]: {decision.trade_off.removeprefix('Trade-off: ')}")


# -- csv --------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "status", "rank", "provider", "instance_type", "accelerator", "accelerators_per_instance",
    "instances", "region", "country", "pricing", "hourly_usd", "monthly_usd", "unit_cost", "unit",
    "total_usd", "hours", "tokens_per_s", "ttft_ms", "tpot_ms", "score", "price_source",
    "price_as_of", "term_months", "upfront", "commitment_usd", "rules", "reasons",
)  # fmt: skip
"""``--format csv`` columns: ``status`` is chosen, alternative or rejected; ``rules`` and
``reasons`` (``;``-separated) are filled for rejected rows, the placement columns for the others;
``term_months``, ``upfront`` and ``commitment_usd`` only for reserved placements (else empty)."""


def render_csv(decision: Decision, *, rejections: str = DEFAULT_REJECTIONS) -> str:
    """The ranked placements, then the listed rejections, as CSV with a header row."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n", extrasaction="raise")
    writer.writeheader()
    for rank, p in enumerate(decision.ranked, start=1):
        writer.writerow(_csv_placement(p, rank))
    for r in decision.listed_rejections(rejections):  # type: ignore[arg-type]  # argparse checked it
        writer.writerow(
            {
                "status": "rejected",
                "provider": r.provider,
                "instance_type": r.instance_type,
                "region": r.region,
                "pricing": r.pricing,
                "rules": ";".join(reason.rule for reason in r.reasons),
                "reasons": "; ".join(reason.message for reason in r.reasons),
            }
        )
    return out.getvalue()


def _csv_placement(p: Placement, rank: int) -> dict[str, object]:
    return {
        "status": "chosen" if rank == 1 else "alternative",
        "rank": rank,
        "provider": p.provider,
        "instance_type": p.instance_type,
        "accelerator": p.accelerator,
        "accelerators_per_instance": p.accelerators_per_instance,
        "instances": p.instances,
        "region": p.region,
        "country": p.country or "",
        "pricing": p.pricing,
        "hourly_usd": p.hourly_usd,
        "monthly_usd": p.monthly_usd,
        "unit_cost": p.unit_cost.value,
        "unit": p.unit_cost.unit,
        "total_usd": "" if p.total_usd is None else p.total_usd,
        "hours": "" if p.hours is None else p.hours,
        "tokens_per_s": p.estimate.tokens_per_s,
        "ttft_ms": "" if p.estimate.ttft_ms is None else p.estimate.ttft_ms,
        "tpot_ms": "" if p.estimate.tpot_ms is None else p.estimate.tpot_ms,
        "score": p.score,
        "price_source": p.price_source,
        "price_as_of": p.price_as_of,
        "term_months": "" if p.term_months is None else p.term_months,
        "upfront": "" if p.term_months is None else "none",
        "commitment_usd": "" if p.commitment_usd is None else p.commitment_usd,
    }


# -- markdown ---------------------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(decision: Decision) -> str:
    """The decision as Markdown, fit to paste into a pull request."""
    chosen = decision.chosen
    assert chosen is not None  # decide raises instead of returning a decision without a choice
    lines = [
        f"### computeops decision: `{decision.intent_name}`",
        "",
        f"**Chosen:** {chosen.provider} `{chosen.instance_type}` ({_accelerators(chosen)}) in "
        f"`{chosen.region}` ({_pricing(chosen)}): {chosen.hourly_usd:,.2f} USD/h, "
        f"{chosen.monthly_usd:,.2f} USD/month, {_unit(chosen)}.",
        "",
        "| | " + " | ".join(_HEADERS) + " |",
        "|---|" + "---|" * len(_HEADERS),
    ]
    for rank, placement in enumerate(decision.ranked):
        mark = "✔" if rank == 0 else str(rank + 1)
        lines.append(f"| {mark} | " + " | ".join(_md(c) for c in _cells(placement)) + " |")
    lines += ["", "**Why**", ""]
    lines += [f"- {_md(line)}" for line in decision.explanation]
    lines += _md_rejections(decision.rejections_by_rule(), decision.rejected)
    d = decision
    lines += _md_footer(d.intent_sha256, d.catalog_version, d.catalog_as_of, d.catalog_sha256)
    return "\n".join(lines)


def render_infeasible_markdown(err: NoFeasiblePlacementError) -> str:
    """No feasible placement, as Markdown: the rejections by rule, the nearest misses and the fix."""
    doc = err.document
    assert doc is not None  # decide always attaches the document
    explanation: list[str] = list(doc["explanation"])
    lines = [
        f"### computeops decision: `{doc['intent']['name']}`: no feasible placement",
        "",
        f"**{_md(explanation[0])}.**" if explanation else "",
    ]
    lines += _md_rejections(doc["rejections_by_rule"], err.rejections)
    if err.nearest_misses:
        lines += ["", "**Nearest misses**", ""] + [f"- {_md(m)}" for m in err.nearest_misses]
    fix = [line for line in explanation if line.startswith("To fix:")]
    lines += ["", *(f"**{_md(line)}**" for line in fix)]
    catalog = doc["catalog"]
    lines += _md_footer(doc["intent"]["sha256"], catalog["version"], catalog["as_of"], catalog["sha256"])
    return "\n".join(lines)


def _md_rejections(by_rule: Mapping[str, int], rejected: Sequence[Rejection]) -> list[str]:
    if not by_rule:
        return []
    examples = _examples_by_rule(rejected)
    lines = ["", "**Rejected candidates by rule**", "", "| rule | candidates | example |", "|---|---|---|"]
    return lines + [f"| `{rule}` | {n:,} | {_md(examples[rule])} |" for rule, n in by_rule.items()]


def _md_footer(intent_sha256: str, version: str, as_of: str, catalog_sha256: str) -> list[str]:
    return [
        "",
        f"<sub>intent sha256 `{intent_sha256[:16]}`, catalog {version} "
        f"(as of {as_of}, sha256 `{catalog_sha256[:16]}`)</sub>",
        "",
    ]
