"""``ComputeWorkload``: an intent in, the engine's placement out as the chosen provider's Terraform."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from constructs import Construct

from .. import _compat
from ..accounts import load_accounts
from ..catalog import PROVIDER_IDS, Catalog, load_catalog
from ..engine import Calibration, Decision, Pin, Placement, decide
from ..engine._accounts import UNLISTED
from ..engine._decision import DEFAULT_REJECTIONS
from ..engine._resolve import INTENT_UNLISTED
from ..errors import (
    EstimateError,
    IntentError,
    NoFeasiblePlacementError,
    PinnedPlacementError,
    TargetError,
    described,
    did_you_mean,
    did_you_mean_text,
)
from ..intent import WorkloadIntent
from ..lockfile import Pins, cluster_problem
from ..perf import resolve_model
from ..targets import TARGETS, Target, TargetProps, get_target, placement_pin, supported_providers
from ..targets._billed import BilledPart
from ..targets._boot import boot_warnings, public_access_note, refuse_unrun_engine
from ..targets.k8s import KubeConnection, KubernetesLayer, WorkloadSpec
from ._app import app_directory
from ._lock import apply_lock, emitted_placement, lockfile_path, report_stale_entries
from ._props import check_options, check_types
from ._record import record_decision, record_stack_cost, single_default_provider

__all__ = ["ComputeWorkload"]


class ComputeWorkload(Construct):  # type: ignore[misc]  # constructs ships no type stubs
    """Decide where an AI workload runs and emit that provider's Terraform.

    The engine runs once, at construction: same intent + same catalog = the same resources.

    Args:
        scope: parent construct (inside a ``TerraformStack``).
        id: construct id (outputs are named ``<id>_provider`` ...).
        intent: a ``WorkloadIntent``, a mapping as parsed from YAML/JSON, or a path to a YAML/JSON
            intent file, relative to the app's directory (``app_directory()``). An invalid intent is
            an ``IntentError`` starting with this construct's path.
        provider: pin the provider (``aws``, ``gcp``, ...), still checked against the intent's hard
            constraints (``PinnedPlacementError``). Default: the engine chooses.
        region: pin the region code of that provider. Default: the engine chooses the region.
        catalog: the market catalog. Default: the catalog embedded in the package.
        cluster: name of an existing managed Kubernetes cluster (EKS, GKE, AKS) to add a GPU node
            pool to, then run the workload on it (vLLM release or training Job). Default: standalone
            GPU instances, no Kubernetes.
        kubernetes: how the kubernetes/helm providers reach ``cluster``. Default: the target's own
            connection (EKS: endpoint + ``aws eks get-token``), else the kubeconfig context named
            like the cluster.
        deploy_workload: with ``cluster``, also emit the Kubernetes workload. Default: True.
        tags: tags/labels on every taggable resource. Default: ``{"computeops/workload": id}``.
        options: target-specific options (each target's ``options``) plus ``KubernetesLayer.options``
            with ``cluster``. Default: none, every option takes its documented default.
        name: base name of the cloud and Kubernetes resources (lowercase, digits, dashes; at most 32
            characters). Default: derived from ``id``.
        configure_provider: add the provider block for the chosen region. Default: True (a second
            region of the same provider in one stack gets an aliased block).
        lock: the lockfile that keeps this workload's placement between synths (a path), or False for
            none. Default: ``$COMPUTEOPS_LOCKFILE`` when set (``off`` disables), else
            ``computeops.lock.json`` in the app directory when it holds ``cdktf.json`` (as under
            ``cdktn synth``), else none. See README "Keeping a decision".
        rejections: which rejected candidates ``computeops-decision.json`` lists: ``"summary"`` (the
            first one per rule) or ``"all"``. Default: ``"summary"``, as ``computeops decide``.
        accounts: the team's accounts file (``computeops.accounts.yaml``: enabled providers, quotas,
            negotiated discounts, owned capacity). Default: ``$COMPUTEOPS_ACCOUNTS``, else list prices
            at every provider. The decision record carries its sha256.
    """

    @_compat.in_scope_framework  # built with the core of the app it is in (cdktn or cdktf)
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        intent: WorkloadIntent | Mapping[str, Any] | str | Path,
        provider: str | None = None,
        region: str | None = None,
        catalog: Catalog | None = None,
        cluster: str | None = None,
        kubernetes: KubeConnection | None = None,
        deploy_workload: bool = True,
        tags: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        name: str | None = None,
        configure_provider: bool = True,
        lock: str | Path | bool | None = None,
        rejections: str = DEFAULT_REJECTIONS,
        accounts: str | Path | None = None,
    ) -> None:
        super().__init__(scope, id)
        if accounts is not None and not isinstance(accounts, str | Path):
            raise TargetError(
                f"[{self.node.path}] 'accounts' must be a path or None (got {described(accounts)}). To "
                "fix: pass accounts='computeops.accounts.yaml', or leave it out ($COMPUTEOPS_ACCOUNTS, "
                "else list prices)."
            )
        self._accounts = load_accounts(accounts)
        check_types(
            self.node.path,
            {
                "provider": provider,
                "region": region,
                "catalog": catalog,
                "cluster": cluster,
                "kubernetes": kubernetes,
                "deploy_workload": deploy_workload,
                "tags": tags,
                "options": options,
                "name": name,
                "configure_provider": configure_provider,
                "rejections": rejections,
            },
        )
        self._intent = _load_intent(intent, self.node.path)
        self._check_props(provider, region, cluster)
        check_options(self.node.path, options, provider, bool(cluster))
        catalog = catalog if catalog is not None else load_catalog()
        self.decision: Decision = self._locked_decision(catalog, provider, region, cluster, lock)
        """The engine's full answer (chosen placement, alternatives, rejections, explanation)."""
        chosen = self.decision.chosen
        assert chosen is not None  # decide() raises rather than return a Decision without a choice
        self.placement: Placement = emitted_placement(self.decision)
        """The placement emitted (provider, instance type, region, pricing, instances, costs): the
        decision's choice; from a lock, with the figures as locked (the record has today's)."""
        chosen = self.placement
        self.target: Target = get_target(chosen.provider)
        # A target error (a bad option value, a shape it cannot map) gets the construct path too.
        with _at(self.node.path):
            # One kubernetes provider block per stack: a target whose capacity is itself a Kubernetes
            # object (CoreWeave's NodePool) shares the block the workload layer configures.
            kube = None
            if cluster and (deploy_workload or self.target.runs_on_kubernetes):
                kube = self._kube_providers(chosen, cluster, kubernetes)
            shares_kube = kube is not None and self.target.runs_on_kubernetes
            shared = {"kubernetes_provider": kube["kubernetes"]} if kube and shares_kube else {}
            workload = self._intent.workload
            refuse_unrun_engine(
                workload.serving.engine if workload.serving else None,
                cluster=bool(cluster),
                deploy_workload=deploy_workload,
                own_script=(options or {}).get("user_data") is not None,
            )
            self.props = TargetProps(
                name=_resource_name(name or id),
                cluster=cluster,
                tags=dict(tags) if tags is not None else {"computeops/workload": id},
                # chosen_by: targets name who picked them when their binding is missing.
                options={"chosen_by": "your pin" if provider else "the engine", **shared, **(options or {})},
                # Standalone machines boot a script that runs this model (the Kubernetes layer runs it
                # on a cluster instead).
                model=None
                if cluster
                else str((options or {}).get("model_url") or _model_url(workload.model.name)),
                workload_type=workload.type,
                precision=workload.model.precision if workload.type == "inference" else None,
                # The image the lock recorded (it stays until a relock), else the target's pinned one.
                image=self._image(chosen, cluster),
            )
            provider_block = self._configure(chosen) if configure_provider else None
            self.resources: dict[str, Any] = self.target.emit(
                self, chosen, provider=provider_block, props=self.props
            )
            """Main resources by role (``instance``, ``launch_template``, ``node_group``, ``release``...)."""
            if cluster and deploy_workload:
                self.resources.update(KubernetesLayer().emit(self, chosen, self._workload_spec()))
        self.billed: tuple[BilledPart, ...] = tuple(self.resources.get("billed", ()))
        """The billed parts the stack creates besides the instances (root volumes, NAT, load balancer),
        each with its sourced hourly price or None; the decision's prices are the instances' only."""
        self._outputs(chosen)
        self._annotate(chosen)
        self.decision_file = record_decision(self, self.decision, rejections=rejections)
        """File name of the decision record in the stack's output directory."""
        self.stack_cost_file = record_stack_cost(self, self.decision_file, self.stack_cost())
        """File name of the stack-cost record (instances and billed extras) beside the decision record."""

    def stack_cost(self) -> dict[str, Any]:
        """The instances' cost (the decision's) and, separately, the other billed parts the stack creates."""
        priced = [p.hourly_usd for p in self.billed if p.hourly_usd is not None]
        return {
            "workload": self.node.path,
            "instances": {
                "hourly_usd": self.placement.hourly_usd,
                "monthly_usd": self.placement.monthly_usd,
                "note": "from the decision: what the engine ranks and max_hourly_usd / max_monthly_usd limit",
            },
            "billed_extras": [p.to_dict() for p in self.billed],
            "billed_extras_hourly_usd": round(sum(priced), 4) if priced else None,
            # What that figure covers: every part, or only the sourced ones (a subtotal, not the total).
            "billed_extras_hourly_usd_covers": "all parts"
            if len(priced) == len(self.billed)
            else f"sourced parts only: a subtotal, {len(self.billed) - len(priced)} of "
            f"{len(self.billed)} parts unpriced (unpriced_parts)",
            "unpriced_parts": [p.part for p in self.billed if p.hourly_usd is None],
            "note": "billed extras are shown beside the instances' cost and do not change the ranking; "
            "a part without a sourced price is null with a note, never 0; traffic-billed parts are "
            "listed unpriced",
            "explanation": self._cost_line(),
        }

    def _cost_line(self) -> str:
        """Both figures in one line of the decision record's explanation: the instances' (the decision's,
        which the budgets limit) and, beside it, the other billed parts the stack creates."""
        instances = (
            f"Stack cost: the instances {self.placement.hourly_usd:,.2f} USD/h (the decision's cost; "
            "max_hourly_usd / max_monthly_usd limit it)"
        )
        if not self.billed:
            return f"{instances}; the target lists no other billed part."
        priced = [p.hourly_usd for p in self.billed if p.hourly_usd is not None]
        unknown = [p.part for p in self.billed if p.hourly_usd is None]
        if not priced:
            extras = f"billed extras unpriced (no sourced price for any of its {len(self.billed)} parts)"
        elif unknown:
            extras = (
                f"billed extras {sum(priced):,.4f} USD/h for the sourced parts, partly unpriced "
                f"({len(unknown)} of {len(self.billed)} parts have no sourced price: {', '.join(unknown)})"
            )
        else:
            extras = f"billed extras {sum(priced):,.4f} USD/h (every part priced)"
        return f"{instances}; besides them, {extras}. The extras do not change the ranking."

    # -- construction steps -------------------------------------------------------------------

    def _image(self, chosen: Placement, cluster: str | None) -> Mapping[str, str] | None:
        lock = self.decision.lock
        if lock is not None and lock.get("image") is not None:
            recorded: Mapping[str, str] = lock["image"]
            return recorded
        return self.target.image_reference(chosen, cluster=bool(cluster))

    def _check_props(self, provider: str | None, region: str | None, cluster: str | None) -> None:
        if provider is not None and provider not in PROVIDER_IDS:
            hint = did_you_mean_text(did_you_mean(provider, PROVIDER_IDS))
            raise TargetError(
                f"[{self.node.path}] 'provider' ({provider!r}) is not a known provider{hint}. "
                f"To fix: use one of {', '.join(PROVIDER_IDS)}, or leave it out to let the engine choose."
            )
        if provider is not None and provider not in supported_providers():
            raise TargetError(
                f"[{self.node.path}] 'provider' ({provider!r}) has no Terraform target in this version. "
                f"To fix: use one of {', '.join(supported_providers())}."
            )
        if region is not None and not region.strip():
            raise TargetError(
                f"[{self.node.path}] 'region' is empty. To fix: give a region code or leave it out."
            )
        if cluster is not None and not cluster.strip():
            raise TargetError(
                f"[{self.node.path}] 'cluster' is empty. To fix: name an existing cluster or leave it out."
            )
        problem = cluster_problem(cluster) if cluster is not None else None
        if problem is not None:  # the lock's cluster pin is checked by the same rule
            raise TargetError(
                f"[{self.node.path}] 'cluster': {problem}. To fix: name an existing cluster (its name "
                "or resource id, or another resource's attribute) or leave it out."
            )
        # Eager: a pinned provider without node pools can never take `cluster=`; say so before deciding.
        # (Unpinned, the engine only considers providers whose target has node pools.)
        if cluster and provider is not None and "kubernetes_node_pool" in get_target(provider).unsupported:
            reason = get_target(provider).unsupported["kubernetes_node_pool"]
            pools = [p for p, t in TARGETS.items() if "kubernetes_node_pool" not in t.unsupported]
            raise TargetError(
                f"[{self.node.path}] 'cluster' ({cluster!r}) cannot be used on {provider}: {reason}. "
                f"To fix: pin provider= one of {', '.join(pools)} (targets with GPU node pools), "
                "or leave cluster out."
            )

    def _locked_decision(
        self,
        catalog: Catalog,
        provider: str | None,
        region: str | None,
        cluster: str | None,
        lock: str | Path | bool | None,
    ) -> Decision:
        pin = placement_pin(provider=provider, region=region, cluster=bool(cluster))
        path = lockfile_path(lock, self.node.path)
        self.lockfile: Path | None = path
        """The lockfile that keeps this workload's placement (None: decided afresh on every synth)."""
        if path is None:
            return self._decide(catalog, pin, provider, region)
        report_stale_entries(self, path)
        return apply_lock(
            path=path,
            workload=self.node.path,
            intent=self._intent,
            pins=Pins(provider=provider, region=region, cluster=cluster),
            pin=pin,
            catalog=catalog,
            fresh=lambda calibrations, locked: self._decide(
                catalog, pin, provider, region, calibrations, locked=locked
            ),
            accounts=self._accounts,
            image_of=lambda placement: get_target(placement.provider).image_reference(
                placement, cluster=bool(cluster)
            ),
        )

    def _decide(
        self,
        catalog: Catalog,
        pin: Pin,
        provider: str | None,
        region: str | None,
        calibrations: tuple[Calibration, ...] = (),
        *,
        locked: bool = False,
    ) -> Decision:
        try:
            decision: Decision = decide(
                self._intent,
                catalog=catalog,
                pin=pin,
                calibrations=calibrations,
                accounts=self._accounts,
                locked=locked,
            )
            return decision
        except IntentError as err:
            if err.path.startswith("pin."):
                raise _prop_error(self.node.path, err) from None
            raise at_construct(self.node.path, err) from None
        except NoFeasiblePlacementError as err:
            if provider is None and region is None:
                original = err  # `err` is unbound after the except block; the document is built on read
                raise NoFeasiblePlacementError(
                    f"[{self.node.path}] {err}",
                    rejections=err.rejections,
                    nearest_misses=err.nearest_misses,
                    document=lambda: original.document,
                    decision=err.decision,
                ) from None
            raise _pinned_error(self.node.path, provider, region, err) from None

    def _configure(self, chosen: Placement) -> Any:
        stack = _compat.TerraformStack.of(self)
        key = f"computeops_{chosen.provider}_{_resource_name(chosen.region)}"
        holder = stack.node.try_find_child(key)
        if holder is not None:
            return holder.node.default_child
        first = not any(c.node.id.startswith(f"computeops_{chosen.provider}_") for c in stack.node.children)
        holder = Construct(stack, key)
        block = self.target.configure(holder, region=chosen.region, props=self.props)
        holder.node.default_child = block
        if not first:
            block.alias = key
        else:
            single_default_provider(self, block.terraform_resource_type)
        return block

    def _kube_providers(
        self, chosen: Placement, cluster: str, connection: KubeConnection | None
    ) -> dict[str, Any]:
        """The kubernetes and helm provider blocks that reach ``cluster``."""
        if connection is None:
            settings = self.target.kube_connection(self, cluster=cluster, region=chosen.region)
            connection = (
                KubeConnection(settings=settings) if settings else KubeConnection.kubeconfig(context=cluster)
            )
        return KubernetesLayer().configure(self, connection)

    def _workload_spec(self) -> WorkloadSpec:
        options = self.props.options
        workload = self._intent.workload
        spec = WorkloadSpec(
            kind=workload.type,
            name=self.props.name,
            model_url=str(options.get("model_url") or _model_url(workload.model.name)),
            namespace=options.get("namespace"),
            image=options.get("image"),
        )
        command = options.get("command")
        return dataclasses.replace(spec, command=tuple(command)) if command else spec

    def _outputs(self, chosen: Placement) -> None:
        total = chosen.instances * chosen.accelerators_per_instance
        values: dict[str, Any] = {
            "provider": chosen.provider,
            "instance_type": chosen.instance_type,
            "region": chosen.region,
            "accelerators": (
                f"{total} x {chosen.accelerator} ({chosen.instances} x {chosen.accelerators_per_instance})"
            ),
            "hourly_usd": chosen.hourly_usd,
            "unit_cost": f"{chosen.unit_cost.value:g} {chosen.unit_cost.unit}",
        }
        # Where the service answers (a load balancer), the public address to point a DNS record at, and
        # a script nothing could boot (Lambda).
        for extra in ("endpoint", "address", "boot_script"):
            if self.resources.get(extra) is not None:
                values[extra] = self.resources[extra]
        prefix = _resource_name(self.node.id).replace("-", "_")
        for name, value in values.items():
            output = _compat.TerraformOutput(
                self, name, value=value, description=f"computeops decision: {name}"
            )
            output.override_logical_id(f"{prefix}_{name}")

    def _annotate(self, chosen: Placement) -> None:
        """What was chosen, as an info annotation ``cdktn synth`` shows (the library prints nothing);
        a warning for a public service, for machines that boot nothing, and for a target's own notes."""
        notes = _compat.Annotations.of(self)
        count = f"{chosen.instance_type} x {chosen.instances}"
        notes.add_info(
            f"computeops placement: {chosen.provider} {count} ({chosen.accelerators_per_instance} x "
            f"{chosen.accelerator} each) in {chosen.region}, {chosen.pricing}, "
            f"{chosen.hourly_usd:,.2f} USD/h, "
            f"{chosen.unit_cost.value:g} {chosen.unit_cost.unit} (estimate){self._extras_text()}"
        )
        if self.resources.get("expose") == "public":
            notes.add_warning(
                "computeops: the inference service is exposed to the internet (expose='public'). "
                + public_access_note(self.props)
            )
        if self.resources.get("no_boot_reason"):
            notes.add_warning(
                f"computeops: nothing starts the workload at boot: {self.resources['no_boot_reason']}."
            )
        for warning in boot_warnings(self.props):
            notes.add_warning(f"computeops: {warning}")
        for warning in self.resources.get("warnings", ()):
            notes.add_warning(f"computeops: {warning}")
        for line in self.decision.explanation:  # accounts and intent names the catalog does not list
            if line.startswith((UNLISTED, INTENT_UNLISTED)):
                notes.add_warning(f"computeops: {line.removeprefix('Warning: ')}")

    def _extras_text(self) -> str:
        if not self.billed:
            return ""
        priced = [p.hourly_usd for p in self.billed if p.hourly_usd is not None]
        unknown = [p.part for p in self.billed if p.hourly_usd is None]
        subtotal = " (a subtotal: some parts are unpriced)" if unknown and priced else ""
        known = f"+{sum(priced):,.4f} USD/h sourced{subtotal}" if priced else "no sourced price"
        missing = f"; without a sourced price: {', '.join(unknown)}" if unknown else ""
        return f"; billed extras besides the instances: {known}{missing}"


def _load_intent(intent: object, path: str) -> WorkloadIntent:
    if isinstance(intent, WorkloadIntent):
        return intent
    try:
        if isinstance(intent, Mapping):
            # As decide() takes it: the same validation, errors with the intent's field paths.
            return WorkloadIntent.from_dict(dict(intent))
        if isinstance(intent, str | Path):
            return WorkloadIntent.from_file(app_relative(intent))
    except IntentError as err:
        raise at_construct(path, err) from None
    raise TargetError(
        f"[{path}] 'intent' must be a WorkloadIntent, a mapping or a path to a YAML/JSON intent "
        f"(got {type(intent).__name__}). To fix: pass WorkloadIntent.from_file(path) or the path itself."
    )


def at_construct(path: str, err: IntentError) -> IntentError:
    """``err`` with the construct path in front (``[app/stack/workload] constraints...: ...``), same
    ``.path`` and suggestions: in an app with several workloads, the message says which one."""
    if str(err).startswith("["):
        return err
    text = str(err)
    located = IntentError(f"[{path}] {text}")
    located.path, located.suggestions = err.path, list(err.suggestions)
    return located


def app_relative(path: str | Path) -> Path:
    """A relative intent path resolved against ``app_directory()``; an absolute one unchanged."""
    given = Path(path)
    return given if given.is_absolute() else app_directory() / given


@contextmanager
def _at(path: str) -> Iterator[None]:
    """Prefix a TargetError raised inside with ``[path]`` (unless it names a path already)."""
    try:
        yield
    except TargetError as err:
        text = str(err)
        if not text.startswith("["):
            # Same exception object (type, .extra/.rule kept), only the message gains the path.
            err.args = (f"[{path}] {text}", *err.args[1:])
        raise


def _prop_error(path: str, err: IntentError) -> TargetError:
    """The engine's ``pin.<x>: <what>. To fix: pin ...`` said about the construct's ``'<x>'`` prop."""
    prop = err.path.removeprefix("pin.")
    what, _, fix = str(err).removeprefix(f"{err.path}: ").partition(". To fix: pin ")
    fix = fix.split(" (did you mean")[0].removesuffix(f", or no {prop}")
    hints = did_you_mean_text(err.suggestions)
    return TargetError(
        f"[{path}] {prop!r}: {what}. To fix: give {prop}= {fix}, or leave it out to let the engine "
        f"choose{hints}."
    )


def _resource_name(id: str) -> str:
    """A DNS-1123-ish base name usable by every provider (lowercase, digits, dashes)."""
    cleaned = "".join(c if c.isalnum() else "-" for c in id.lower()).strip("-")
    # 32 characters: IAM name prefixes allow 38, and targets append a dash and a suffix.
    return cleaned[:32].strip("-") or "workload"


def _model_url(name: str) -> str:
    """The model to serve: ``name`` itself when it is a Hugging Face id (``org/model``: the intent named
    the exact repository, e.g. an Instruct variant the registry sizes as its base), else the id the model
    registry knows for ``name``, else ``name``."""
    if "/" in name:
        return name
    try:
        spec = resolve_model(name)
    except EstimateError:
        return name
    hub_ids = [alias for alias in (spec.name, *spec.aliases) if "/" in alias]
    return hub_ids[0] if hub_ids else name


_PHYSICAL_RULES = frozenset({"memory.fit", "spec.unknown", "price.unknown", "target.unsupported"})
"""Rules no intent change can relax: the machine cannot hold the model, or we know too little of it."""


def _pinned_error(
    path: str, provider: str | None, region: str | None, err: NoFeasiblePlacementError
) -> PinnedPlacementError:
    """The rule that stops the pinned provider/region, with one of its messages (the numbers)."""
    pinned = [
        r
        for r in err.rejections
        if (provider is None or r.provider == provider) and (region is None or r.region == region)
    ] or list(err.rejections)
    what = " ".join(f"{k}={v}" for k, v in (("provider", provider), ("region", region)) if v)
    rules = Counter(reason.rule for r in pinned for reason in r.reasons)
    if not rules:
        return PinnedPlacementError(
            f"[{path}] the pinned placement ({what}) has no candidate in the catalog. "
            "To fix: pin another provider/region, or leave the pin out.",
            rule="pin.empty",
        )
    # The binding constraint is the one that stops the nearest candidates: machines that could run
    # the workload at all (no physical rule against them), with the fewest reasons.
    viable = [r for r in pinned if r.reasons and not {x.rule for x in r.reasons} & _PHYSICAL_RULES]
    pool = viable or [r for r in pinned if r.reasons]
    fewest = min(len(r.reasons) for r in pool)
    nearest = [r for r in pool if len(r.reasons) == fewest]
    near_rules = Counter(reason.rule for r in nearest for reason in r.reasons)
    rule = sorted(near_rules.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    example = next(reason for r in nearest for reason in r.reasons if reason.rule == rule)
    others = ", ".join(sorted(r for r in rules if r != rule))
    also = f" (other rules that rejected it: {others})" if others else ""
    misses = f" Nearest misses: {'; '.join(err.nearest_misses[:3])}." if err.nearest_misses else ""
    return PinnedPlacementError(
        f"[{path}] the pinned placement ({what}) violates the intent's hard constraint {rule}: "
        f"{example.message}{also}. To fix: relax the constraint in the intent, or pin another "
        f"provider/region, or leave the pin out.{misses}",
        rule=rule,
    )
