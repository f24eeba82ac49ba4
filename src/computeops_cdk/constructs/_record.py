"""Synth-time hooks: the decision record and ``.checkov.yaml`` beside the stack, and checks that
need the final tree.

cdktn exposes a stack's output directory only to its synthesizer (``session.outdir`` plus the
stack manifest's ``working_directory``), so the record is written by a thin synthesizer that wraps
the stack's own one: it delegates first, then writes one JSON file per workload. Stacks
synthesized in memory (``Testing.synth``) never call it, so tests stay free of files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, cast

import jsii
from constructs import IValidation

from .. import _compat
from .._compat import IStackSynthesizer, framework_for
from ..checkov_policies import write_config
from ..engine import Decision
from ..engine._decision import DEFAULT_REJECTIONS, RejectionListing

__all__ = [
    "DECISION_FILE",
    "STACK_COST_FILE",
    "InheritedAspect",
    "record_decision",
    "record_stack_cost",
    "single_default_provider",
]

DECISION_FILE = "computeops-decision.json"
STACK_COST_FILE = "computeops-stack-cost.json"


@jsii.implements(
    IStackSynthesizer
)  # default core's: jsii matches implementers by shape, so it serves either core's app
class _DecisionRecordSynthesizer:
    """Delegates to the stack's synthesizer, then writes each workload's decision record."""

    def __init__(self, stack: Any, inner: Any) -> None:
        self._stack = stack
        self._inner = inner
        self.records: dict[str, tuple[Decision, RejectionListing]] = {}
        self.costs: dict[str, Mapping[str, Any]] = {}
        """Decision record file -> its workload's stack-cost document (embedded in the record)."""
        self.texts: dict[str, str] = {}

    def synthesize(self, session: Any) -> None:
        with framework_for(self._stack):
            _apply_inherited_guards(self._stack)
        self._inner.synthesize(session)
        manifest = session.manifest.for_stack(self._stack)
        directory = os.path.join(session.outdir, manifest.working_directory)
        files = {name: record_text(d, r, self.costs.get(name)) for name, (d, r) in self.records.items()}
        for filename, text in {**files, **self.texts}.items():
            with open(os.path.join(directory, filename), "w", encoding="utf-8") as handle:
                handle.write(text)
        write_config(directory, self.checkov_skips())

    def checkov_skips(self) -> dict[str, str]:
        """Check id -> reason of every checkov check this stack's targets fail on purpose."""
        from ..targets import checkov_skips

        skips: dict[str, str] = {}
        for decision, _ in self.records.values():
            if decision.chosen is not None:
                skips.update(checkov_skips(decision.chosen.provider))
        return skips


class InheritedAspect:
    """An aspect that also visits the stacks under the scope it is added to (``BudgetGuard``).

    Defined here so that the synthesizer needs no import of ``_aspects``, which imports the workload,
    which imports this module.
    """

    def visit(self, node: Any) -> None:
        raise NotImplementedError


def _apply_inherited_guards(stack: Any) -> None:
    """Visit ``stack`` with the ``InheritedAspect`` aspects added to its ancestors (the App).

    cdktn invokes aspects from each stack down, so an aspect added with ``Aspects.of(app)`` never visits
    a stack; a guard added on the stack itself is left to cdktn (visited once, not twice).
    """
    own = list(_compat.Aspects.of(stack).all)
    for scope in stack.node.scopes[:-1]:
        for aspect in _compat.Aspects.of(scope).all:
            if isinstance(aspect, InheritedAspect) and aspect not in own:
                aspect.visit(stack)


def record_text(decision: Decision, rejections: RejectionListing, cost: Mapping[str, Any] | None) -> str:
    """The decision record: the ``decide --format json`` document, plus (with ``cost``) the stack's
    cost as ``stack_cost`` and its line at the end of ``explanation``; nothing else changes.
    """
    if cost is None:
        return decision.to_json(rejections=rejections)
    document = decision.to_dict(rejections=rejections)
    document["explanation"] = [*document["explanation"], cost["explanation"]]
    document["stack_cost"] = dict(cost)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def record_decision(workload: Any, decision: Decision, *, rejections: str = DEFAULT_REJECTIONS) -> str:
    """Have ``workload``'s stack write ``decision`` at synth (the CLI's ``--format json`` output for
    ``rejections``, plus the stack's cost, ``record_text``); returns the file name used: the first
    workload of a stack writes ``computeops-decision.json``, a further one
    ``computeops-decision.<construct id>.json``.
    """
    stack = _compat.TerraformStack.of(workload)
    synthesizer = stack.synthesizer
    if not isinstance(synthesizer, _DecisionRecordSynthesizer):
        synthesizer = _DecisionRecordSynthesizer(stack, synthesizer)
        stack.synthesizer = synthesizer
    name = DECISION_FILE if not synthesizer.records else f"computeops-decision.{workload.node.id}.json"
    synthesizer.records[name] = (decision, cast(RejectionListing, rejections))
    return name


def record_stack_cost(workload: Any, decision_file: str, document: Mapping[str, Any]) -> str:
    """Have ``workload``'s stack write its stack-cost ``document`` beside its decision record at synth,
    and embed it in that record (``stack_cost``, and its ``explanation`` line appended to the record's).

    Named like the decision record: ``computeops-stack-cost.json``, or ``computeops-stack-cost.<id>.json``
    for a further workload. Returns the file name.
    """
    stack = _compat.TerraformStack.of(workload)
    synthesizer = stack.synthesizer
    assert isinstance(synthesizer, _DecisionRecordSynthesizer)  # record_decision ran first
    name = decision_file.replace("computeops-decision", "computeops-stack-cost")
    synthesizer.texts[name] = json.dumps(document, indent=2, sort_keys=True) + "\n"
    synthesizer.costs[decision_file] = document
    return name


@jsii.implements(IValidation)
class _SingleDefaultProvider:
    def __init__(self, stack: Any, provider_type: str, path: str) -> None:
        self._stack = stack
        self._type = provider_type
        self._path = path

    def validate(self) -> list[str]:
        with framework_for(self._stack):
            provider_class = _compat.TerraformProvider
        defaults = [
            node.node.path
            for node in self._stack.node.find_all()
            if isinstance(node, provider_class)
            and node.terraform_resource_type == self._type
            and not node.alias
        ]
        if len(defaults) <= 1:
            return []
        return [
            f"[{self._path}] the stack has {len(defaults)} default {self._type} provider blocks "
            f"({', '.join(defaults)}); Terraform rejects duplicate provider configurations. "
            "To fix: pass configure_provider=False to the workload to use your block, or give yours an alias."
        ]


def single_default_provider(workload: Any, provider_type: str) -> None:
    """Deferred check: by synth time the stack holds one unaliased ``provider_type`` block only."""
    stack = _compat.TerraformStack.of(workload)
    workload.node.add_validation(_SingleDefaultProvider(stack, provider_type, workload.node.path))
