"""``computeops catalog show`` and ``accelerators``: an instance type's specs, offers and attestations."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ...catalog import HOURS_PER_MONTH, PROVIDER_IDS, Catalog, InstanceType, load_catalog
from .._parser import HelpFormatter
from ._text import (
    EXIT_OK,
    age,
    catalog_header,
    catalog_option,
    error,
    hourly,
    num,
    offer_json,
    price_model,
    rich_console,
    rich_table,
    unknown,
)


def register(sub: Any) -> None:
    """Add ``catalog show`` and ``catalog accelerators``."""
    _register_show(sub)
    _register_accelerators(sub)


def _register_show(sub: Any) -> None:
    p = sub.add_parser(
        "show",
        help="one instance type: specs and every offer",
        description="Show an instance type's accelerator specs and all its offers with price age.",
        epilog="examples:\n  computeops catalog show gpu_8x_h100_sxm5\n"
        "  computeops catalog show tpu-v5p-8 --json",
        formatter_class=HelpFormatter,
    )
    p.add_argument("instance_type", metavar="INSTANCE_TYPE", help="instance type name (case-insensitive)")
    p.add_argument("--provider", metavar="P", help="when several providers use the same name")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    catalog_option(p)
    p.set_defaults(handler=_cmd_show)


def _register_accelerators(sub: Any) -> None:
    p = sub.add_parser(
        "accelerators",
        help="canonical accelerator ids, specs and aliases",
        description="Accelerators with their published specs (empty where no source states the number).",
        epilog="example:\n  computeops catalog accelerators --json",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    catalog_option(p)
    p.set_defaults(handler=_cmd_accelerators)


def _cmd_show(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog)
    provider = args.provider.lower() if args.provider else None
    if provider is not None and catalog.find_provider(provider) is None:
        return unknown("provider", args.provider, list(PROVIDER_IDS))
    found = catalog.find_instance_type(args.instance_type, provider)
    if not found:
        elsewhere = sorted({t.provider for t in catalog.find_instance_type(args.instance_type)})
        if elsewhere:  # the name exists, just not at --provider: say where it is
            return error(
                f"{provider} has no instance type {args.instance_type!r}; {', '.join(elsewhere)} "
                f"{'has' if len(elsewhere) == 1 else 'have'} one. To fix: use --provider {elsewhere[0]} "
                "or leave --provider out."
            )
        return unknown("instance type", args.instance_type, sorted({t.name for t in catalog.instance_types}))
    if args.json:
        docs = [_show_json(catalog, t) for t in found]
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=2, sort_keys=True))
        return EXIT_OK
    for itype in found:
        _print_instance_type(catalog, itype)
    return EXIT_OK


def _cmd_accelerators(args: argparse.Namespace) -> int:
    catalog = load_catalog(args.catalog)
    if args.json:
        from dataclasses import asdict

        print(json.dumps([asdict(a) for a in catalog.accelerators], indent=2, sort_keys=True))
        return EXIT_OK
    table = rich_table(f"{len(catalog.accelerators)} accelerators", "id", "vendor", "memory GB", "BW GB/s",
                   "BF16 TF", "FP8 TF", "FP4 TF", "aliases")  # fmt: skip
    for a in catalog.accelerators:
        nums = (a.memory_gb, a.memory_bw_gbps, a.bf16_tflops, a.fp8_tflops, a.fp4_tflops)
        table.add_row(a.id, a.vendor, *(num(n) for n in nums), ", ".join(a.aliases))
    rich_console().print(table)
    return EXIT_OK


def _show_json(catalog: Catalog, itype: InstanceType) -> dict[str, Any]:
    from dataclasses import asdict

    return {
        "catalog": catalog_header(catalog),
        "instance_type": asdict(itype),
        "accelerator": asdict(catalog.accelerator(itype.accelerator)),
        "offers": [offer_json(catalog, o) for o in catalog.offers_of(itype.provider, itype.name)],
        "attestations": [asdict(a) for a in catalog.provider(itype.provider).attestations],
    }


def _print_instance_type(catalog: Catalog, itype: InstanceType) -> None:
    acc = catalog.accelerator(itype.accelerator)
    console = rich_console()
    console.print(
        f"[bold]{itype.provider} {itype.name}[/bold]: {itype.accelerator_count} x {acc.id}", markup=True
    )
    specs = {
        "accelerator": f"{acc.vendor} {acc.id} ({acc.architecture}, {acc.form_factor or 'form factor n/a'})",
        "memory per accelerator": num(acc.memory_gb, "{:g} GB") or "not sourced (cannot size on it)",
        "memory bandwidth": num(acc.memory_bw_gbps, "{:g} GB/s") or "not sourced",
        "dense BF16/FP8/FP4": " / ".join(
            num(x, "{:g}") or "-" for x in (acc.bf16_tflops, acc.fp8_tflops, acc.fp4_tflops)
        )
        + " TFLOPs",
        "vCPUs / RAM": f"{num(itype.vcpus) or '-'} / {num(itype.ram_gb, '{:g} GB') or '-'}",
        "multi-node fabric": itype.interconnect
        if itype.multi_node
        else f"none ({itype.interconnect or 'single node'})",
        "source": itype.source,
    }
    if itype.notes:
        specs["notes"] = itype.notes
    for key, value in specs.items():
        console.print(f"  {key}: {value}", markup=False)
    offers = catalog.offers_of(itype.provider, itype.name)
    table = rich_table(
        f"{len(offers)} offers", "region", "country", "pricing", "USD/h", "USD/month", "as_of", "source"
    )
    for o in offers:
        region = catalog.find_region(o.provider, o.region)
        country = (region.country or "?") if region else "?"
        monthly = "" if o.hourly_usd is None else f"{o.hourly_usd * HOURS_PER_MONTH:,.0f}"
        table.add_row(o.region, country, price_model(o), hourly(o), monthly, age(o.as_of), o.source)
    console.print(table)
    _print_attestations(catalog, itype.provider)


def _print_attestations(catalog: Catalog, provider_id: str) -> None:
    """The provider's compliance attestations with their evidence grade, regional scope and source:
    only provider_claimed evidence satisfies a hard compliance constraint."""
    provider = catalog.provider(provider_id)
    table = rich_table(
        f"{provider_id} attestations ({len(provider.attestations)}; only provider_claimed satisfies a "
        "constraint)",
        "scope", "evidence", "regions", "source", "note",
    )  # fmt: skip
    for a in provider.attestations:
        regions = "all" if a.regions is None else ", ".join(a.regions)
        table.add_row(a.scope, a.evidence, regions, a.source, a.note)
    rich_console().print(table)
    scoped = [a for a in provider.attestations if a.services is not None]
    if not scoped:
        return
    services = rich_table(
        f"{provider_id} service scope (authorised service by service: a placement satisfies the "
        "attestation only if every service it runs on is in_scope)",
        "scope", "service", "name", "status", "read", "requires", "source", "note",
    )  # fmt: skip
    for a in scoped:
        for entry in a.services or ():
            # requires: what the user must set up for the authorisation to hold (the stack does not)
            services.add_row(
                a.scope, entry.service, entry.name, entry.status, entry.read, entry.requires or "-",
                entry.source, entry.note,
            )  # fmt: skip
    rich_console().print(services)
