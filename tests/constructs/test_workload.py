"""ComputeWorkload end to end: intent -> engine -> target, outputs, decision records, pinned errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from computeops_cdk import Pin, WorkloadIntent, decide
from computeops_cdk.errors import NoFeasiblePlacementError, PinnedPlacementError, TargetError

pytestmark = pytest.mark.synth

EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """One app: a pinned AWS stack, and a stack with two workloads in two AWS regions."""
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload, WorkloadStack

    outdir = tmp_path_factory.mktemp("out")
    app = App(outdir=str(outdir))
    single = WorkloadStack(app, "serve", intent=EXAMPLES / "support-chat.yaml", provider="aws")
    both = TerraformStack(app, "both")
    east = ComputeWorkload(
        both, "east", intent=EXAMPLES / "support-chat.yaml", provider="aws", tags={"a": "b"}
    )
    west = ComputeWorkload(
        both,
        "west",
        intent=WorkloadIntent.from_file(EXAMPLES / "llama-8b-pretrain.yaml"),
        provider="aws",
        region="eu-west-1",
    )
    app.synth()
    return outdir / "stacks", {"single": single, "east": east, "west": west}


def _doc(outdir: Path, stack: str) -> dict[str, Any]:
    return json.loads((outdir / stack / "cdk.tf.json").read_text())  # type: ignore[no-any-return]


def test_decision_and_placement_are_the_engines(app_dir: tuple[Path, dict[str, Any]]) -> None:
    _, built = app_dir
    workload = built["single"].workload
    from computeops_cdk.targets import placement_pin

    expected = decide(EXAMPLES / "support-chat.yaml", pin=placement_pin(provider="aws"))
    assert workload.decision == expected
    assert workload.placement == expected.chosen
    assert built["single"].decision is workload.decision


def test_outputs_carry_the_decision(app_dir: tuple[Path, dict[str, Any]]) -> None:
    outdir, built = app_dir
    placement = built["single"].workload.placement
    outputs = {k: v["value"] for k, v in _doc(outdir, "serve")["output"].items()}
    total = placement.instances * placement.accelerators_per_instance
    assert outputs == {
        "workload_provider": "aws",
        "workload_instance_type": placement.instance_type,
        "workload_region": placement.region,
        "workload_accelerators": f"{total} x {placement.accelerator} "
        f"({placement.instances} x {placement.accelerators_per_instance})",
        "workload_hourly_usd": placement.hourly_usd,
        "workload_unit_cost": f"{placement.unit_cost.value:g} usd_per_million_output_tokens",
        # expose defaults to internal for inference: the load balancer's address.
        "workload_endpoint": "http://${aws_lb.workload_lb_5E202F4D.dns_name}:8000",
    }


def test_each_workload_reports_its_placement_as_an_info_annotation(
    app_dir: tuple[Path, dict[str, Any]],
) -> None:
    _, built = app_dir
    for workload in (built["single"].workload, built["west"]):
        placement = workload.placement
        notes = [(m.type, m.data) for m in workload.node.metadata if "info" in m.type]
        assert len(notes) == 1, workload.node.metadata
        text = notes[0][1]
        assert text.startswith(
            f"computeops placement: aws {placement.instance_type} x {placement.instances} "
        )
        assert f"in {placement.region}, {placement.pricing}, {placement.hourly_usd:,.2f} USD/h" in text
        assert f"{placement.unit_cost.value:g} {placement.unit_cost.unit}" in text


def test_resources_of_a_second_region_use_its_aliased_provider(app_dir: tuple[Path, dict[str, Any]]) -> None:
    # Regression: the AWS target never passed `provider`, so eu-west-1's instances planned in us-east-1.
    outdir, _ = app_dir
    doc = _doc(outdir, "both")
    for section in ("resource", "data"):
        for kind, blocks in doc[section].items():
            for name, block in blocks.items():
                expected = "aws.computeops_aws_eu-west-1" if name.startswith("west_") else "aws"
                assert block["provider"] == expected, (section, kind, name)


def test_resources_follow_the_placement(app_dir: tuple[Path, dict[str, Any]]) -> None:
    outdir, built = app_dir
    placement = built["single"].workload.placement
    doc = _doc(outdir, "serve")
    (instance,) = doc["resource"]["aws_instance"].values()
    assert instance["instance_type"] == placement.instance_type
    assert instance["count"] == placement.instances
    assert instance["tags"]["computeops/workload"] == "serve"
    assert doc["provider"]["aws"] == [
        {"default_tags": [{"tags": {"computeops/workload": "serve"}}], "region": placement.region}
    ]


def test_one_record_per_workload_and_a_second_region_is_aliased(app_dir: tuple[Path, dict[str, Any]]) -> None:
    outdir, built = app_dir
    first = json.loads((outdir / "both" / "computeops-decision.json").read_text())
    second = json.loads((outdir / "both" / "computeops-decision.west.json").read_text())
    assert first["intent"]["name"] == "support-chat"
    assert second["intent"]["name"] == "llama-8b-pretrain"
    assert second["decision"]["region"] == "eu-west-1"
    providers = _doc(outdir, "both")["provider"]["aws"]
    assert sorted(p["region"] for p in providers) == sorted([built["east"].placement.region, "eu-west-1"])
    assert [p.get("alias") for p in providers].count(None) == 1
    assert built["west"].decision_file == "computeops-decision.west.json"


def test_pinned_provider_violating_a_constraint_names_rule_numbers_and_path() -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "s")
    with pytest.raises(PinnedPlacementError) as err:
        # lambda: no data-processing agreement was found, so no gdpr claim (aws has its GDPR DPA)
        ComputeWorkload(stack, "eu", intent=EXAMPLES / "eu-residency.yaml", provider="lambda")
    assert err.value.rule == "compliance.gdpr"
    assert str(err.value).startswith(
        "[s/eu] the pinned placement (provider=lambda) violates the intent's hard constraint "
        "compliance.gdpr: lambda has no gdpr attestation in the catalog"
    )
    with pytest.raises(PinnedPlacementError) as err:
        ComputeWorkload(stack, "train", intent=EXAMPLES / "llama-8b-pretrain.yaml", provider="azure")
    assert err.value.rule == "deadline"
    assert "over deadline_hours 240" in str(err.value)


def test_unknown_provider_and_region_suggest_names() -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "s")
    with pytest.raises(TargetError) as err:
        ComputeWorkload(stack, "a", intent=EXAMPLES / "support-chat.yaml", provider="awz")
    assert str(err.value).startswith(
        "[s/a] 'provider' ('awz') is not a known provider (did you mean 'aws'?)."
    )
    with pytest.raises(TargetError) as err:
        ComputeWorkload(stack, "b", intent=EXAMPLES / "support-chat.yaml", provider="aws", region="us-est-1")
    assert str(err.value).startswith(
        "[s/b] 'region': unknown region 'us-est-1' of provider aws. To fix: give region= a region code "
        "of provider aws as `computeops catalog list --provider aws` shows it, or leave it out to let "
        "the engine choose (did you mean "
    )
    assert "'us-east-1'" in str(err.value)


def test_cluster_on_a_provider_without_node_pools_is_refused() -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "s")
    with pytest.raises(TargetError) as err:
        ComputeWorkload(stack, "c", intent=EXAMPLES / "support-chat.yaml", provider="runpod", cluster="gpus")
    assert str(err.value).startswith("[s/c] 'cluster' ('gpus') cannot be used on runpod: ")
    assert "To fix: pin provider= one of aws, gcp, azure" in str(err.value)


def test_infeasible_intent_keeps_its_rejections_and_gains_the_path() -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "s")
    with pytest.raises(NoFeasiblePlacementError) as err:
        ComputeWorkload(stack, "x", intent=EXAMPLES / "infeasible-budget.yaml")
    assert str(err.value).startswith("[s/x] no feasible placement for intent 'infeasible-budget'")
    assert err.value.rejections and err.value.nearest_misses


def test_bad_props_fail_at_construction() -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "s")
    with pytest.raises(TargetError, match=r"^\[s/i\] 'intent' must be a WorkloadIntent, a mapping or a path"):
        ComputeWorkload(stack, "i", intent=42)  # type: ignore[arg-type]
    with pytest.raises(TargetError, match=r"'cluster' is empty"):
        ComputeWorkload(stack, "e", intent=EXAMPLES / "support-chat.yaml", cluster=" ")
    # a template was taken (inert at synth, but written into the lock, whose reader now refuses it)
    for index, cluster in enumerate(
        ['${file("/etc/passwd")}', "%{ if true }x%{ endif }", "a\x00", "c" * 513]
    ):
        with pytest.raises(TargetError, match=r"^\[s/c\d\] 'cluster': .*To fix: name an existing cluster"):
            ComputeWorkload(stack, f"c{index}", intent=EXAMPLES / "support-chat.yaml", cluster=cluster)


def test_a_second_default_provider_block_fails_at_synth_with_the_path() -> None:
    from computeops_cdk._compat import App, TerraformStack, Testing, import_binding
    from computeops_cdk.constructs import ComputeWorkload

    stack = TerraformStack(App(), "dup")
    workload = ComputeWorkload(stack, "w", intent=EXAMPLES / "support-chat.yaml", provider="aws")
    assert workload.node.validate() == []
    import_binding("aws", "provider").AwsProvider(stack, "mine", region="us-west-2")
    (message,) = workload.node.validate()
    assert message.startswith("[dup/w] the stack has 2 default aws provider blocks (dup/computeops_aws_")
    with pytest.raises(RuntimeError, match="the stack has 2 default aws provider blocks"):
        Testing.synth(stack, True)


def test_budget_guard_fails_synth_over_the_stack_budget(tmp_path: Path) -> None:
    from computeops_cdk._compat import App, Aspects, TerraformStack
    from computeops_cdk.constructs import BudgetGuard, ComputeWorkload

    def build(budget: float) -> Any:
        app = App(outdir=str(tmp_path / str(budget)))
        stack = TerraformStack(app, "budget")
        ComputeWorkload(stack, "w", intent=EXAMPLES / "support-chat.yaml", provider="runpod")
        Aspects.of(stack).add(BudgetGuard(max_hourly_usd=budget))
        return app

    hourly = decide(EXAMPLES / "support-chat.yaml", pin=Pin(provider="runpod")).chosen.hourly_usd  # type: ignore[union-attr]
    build(hourly).synth()  # exactly at the budget: fine
    with pytest.raises(RuntimeError, match=r"\[budget\] workloads cost [\d,.]+ USD/h, over the budget of "):
        build(hourly / 2).synth()
    # Was a ValueError outside the ComputeOpsError tree, and a TypeError traceback for a string.
    for bad in (0, -1.0, "500", True, float("nan"), float("inf")):
        with pytest.raises(TargetError) as caught:
            BudgetGuard(max_hourly_usd=bad)  # type: ignore[arg-type]
        assert str(caught.value) == (
            f"BudgetGuard 'max_hourly_usd' must be a positive number of USD per hour (got {bad!r}). "
            "To fix: e.g. BudgetGuard(max_hourly_usd=500)"
        )


def test_coreweave_node_pool_shares_the_workload_layers_kubernetes_provider(tmp_path: Path) -> None:
    # CoreWeave capacity is a NodePool object in the cluster: the pool and the vLLM release must go
    # through one kubernetes provider block (Terraform rejects two unaliased blocks of one type).
    from computeops_cdk._compat import App
    from computeops_cdk.constructs import WorkloadStack

    app = App(outdir=str(tmp_path))
    stack = WorkloadStack(
        app, "cw", intent=EXAMPLES / "support-chat.yaml", provider="coreweave", cluster="cks-prod"
    )
    app.synth()
    doc = json.loads((tmp_path / "stacks" / "cw" / "cdk.tf.json").read_text())
    assert stack.workload.placement.provider == "coreweave"
    assert len(doc["provider"]["kubernetes"]) == 1 and "alias" not in doc["provider"]["kubernetes"][0]
    pools = [
        r for r in doc["resource"]["kubernetes_manifest"].values() if r["manifest"]["kind"] == "NodePool"
    ]
    assert len(pools) == 1 and pools[0].get("provider", "kubernetes") == "kubernetes"
    assert pools[0]["manifest"]["spec"]["targetNodes"] == stack.workload.placement.instances
    assert "helm_release" in doc["resource"]


def test_the_accounts_prop_reaches_the_engine(tmp_path: Path) -> None:
    from computeops_cdk._compat import App, TerraformStack
    from computeops_cdk.constructs import ComputeWorkload

    accounts = tmp_path / "computeops.accounts.yaml"
    accounts.write_text("providers:\n  aws:\n    discounts: [{percent: 10}]\n", encoding="utf-8")
    stack = TerraformStack(App(outdir=str(tmp_path / "out")), "acct")
    workload = ComputeWorkload(
        stack, "w", intent=EXAMPLES / "support-chat.yaml", accounts=accounts, lock=False
    )
    assert workload.placement.provider == "aws"  # the only provider with an account
    assert workload.decision.accounts is not None and len(workload.decision.accounts["sha256"]) == 64
    assert workload.placement.account_terms == "10 % negotiated discount on aws"
    with pytest.raises(TargetError, match=r"'accounts' must be a path or None \(got int 42\)"):
        ComputeWorkload(stack, "bad", intent=EXAMPLES / "support-chat.yaml", accounts=42)  # type: ignore[arg-type]


def test_budget_guard_on_the_app_guards_every_stack_once(tmp_path: Path) -> None:
    # Regression: Aspects.of(app).add(BudgetGuard(...)) visited no stack (cdktn starts aspects at stacks).
    from computeops_cdk import BudgetGuard
    from computeops_cdk._compat import App, Aspects
    from computeops_cdk.constructs import WorkloadStack

    app = App(outdir=str(tmp_path / "error"))
    WorkloadStack(app, "over", intent=EXAMPLES / "support-chat.yaml", provider="runpod")
    Aspects.of(app).add(BudgetGuard(max_hourly_usd=1))
    with pytest.raises(RuntimeError, match=r"\[over\] workloads cost [\d,.]+ USD/h, over the budget of 1.00"):
        app.synth()
    app = App(outdir=str(tmp_path / "warn"))
    stack = WorkloadStack(app, "twice", intent=EXAMPLES / "support-chat.yaml", provider="runpod")
    guard = BudgetGuard(max_hourly_usd=1, warn_only=True)
    Aspects.of(app).add(guard)
    Aspects.of(stack).add(guard)  # on both: one visit, one warning
    app.synth()
    warnings = [m.data for m in stack.node.metadata if "warn" in m.type]
    assert len(warnings) == 1 and "over the budget of 1.00 USD/h" in warnings[0]


def test_stack_cost_record_shows_the_billed_extras_beside_the_instances(
    app_dir: tuple[Path, dict[str, Any]],
) -> None:
    outdir, built = app_dir
    workload = built["single"].workload
    record = json.loads((outdir / "serve" / "computeops-stack-cost.json").read_text())
    assert record["instances"]["hourly_usd"] == workload.placement.hourly_usd
    parts = {p["part"].split(" (")[0]: p for p in record["billed_extras"]}
    volumes = parts["root volumes"]
    gib = workload.placement.instances * 500
    assert volumes["quantity"] == gib and volumes["hourly_usd"] == round(gib * 0.08 / 730, 4)
    assert volumes["source"].startswith("https://") and "aws.amazon.com/ebs/pricing" in volumes["note"]
    assert parts["NAT gateway"]["hourly_usd"] == 0.045
    assert parts["network load balancer"]["hourly_usd"] == 0.0225
    # Traffic-billed parts have no price: null with the reason, never 0.
    assert parts["NAT data processing"]["hourly_usd"] is None and parts["NAT data processing"]["note"]
    # Three interface endpoints (ssm, ssmmessages, ec2messages) in two zones, per endpoint-AZ hour.
    assert parts["VPC interface endpoints"]["quantity"] == 6
    # Its only source names no region: null with the note (the data's own rule), never us-east-1's.
    assert parts["VPC interface endpoints"]["hourly_usd"] is None
    assert parts["NAT gateway Elastic IP"]["hourly_usd"] == 0.005  # AWS's public IPv4 charge
    assert record["unpriced_parts"] == [
        "NAT data processing",
        parts["VPC interface endpoints"]["part"],
        "VPC endpoint data processing",
        "load balancer capacity units",
    ]
    sourced = sum(p["hourly_usd"] for p in record["billed_extras"] if p["hourly_usd"] is not None)
    assert record["billed_extras_hourly_usd"] == round(sourced, 4)
    # Labelled a subtotal: some parts have no sourced price.
    assert record["billed_extras_hourly_usd_covers"].startswith("sourced parts only: a subtotal, 4 of ")
    # The decision (what the engine ranks and the budgets limit) is the instances' cost only.
    decision = json.loads((outdir / "serve" / "computeops-decision.json").read_text())
    assert decision["decision"]["hourly_usd"] == workload.placement.hourly_usd
    # A region without a sourced price: null parts with the note.
    west = json.loads((outdir / "both" / "computeops-stack-cost.west.json").read_text())
    # Only the public IPv4 charge (one figure for every region) is priced there.
    assert [p["part"] for p in west["billed_extras"] if p["hourly_usd"] is not None] == [
        "NAT gateway Elastic IP (public IPv4)"
    ]
    assert west["billed_extras_hourly_usd"] == 0.005
    assert "no sourced aws price for eu-west-1" in west["billed_extras"][0]["note"]


def test_the_decision_record_shows_the_instances_and_the_billed_extras(
    app_dir: tuple[Path, dict[str, Any]],
) -> None:
    # Regression: the record's explanation showed the instances' cost only; the billed extras were
    # in the annotation and the stack-cost file, not in the decision record.
    import jsonschema

    from computeops_cdk.schemas import load_schema

    outdir, built = app_dir
    workload = built["single"].workload
    record = json.loads((outdir / "serve" / "computeops-decision.json").read_text())
    cost = json.loads((outdir / "serve" / "computeops-stack-cost.json").read_text())
    assert record["stack_cost"] == cost  # the same document, embedded
    line = record["explanation"][-1]
    assert line == cost["explanation"]
    hourly = workload.placement.hourly_usd
    assert line.startswith(f"Stack cost: the instances {hourly:,.2f} USD/h (the decision's cost; ")
    sourced = cost["billed_extras_hourly_usd"]
    assert f"billed extras {sourced:,.4f} USD/h for the sourced parts, partly unpriced (4 of " in line
    assert "NAT data processing" in line and "do not change the ranking" in line
    # The decision itself (what the engine ranks and the budgets limit) stays the instances' cost.
    assert record["decision"]["hourly_usd"] == hourly
    assert record["explanation"][:-1] == list(workload.decision.explanation)
    jsonschema.validate(record, load_schema("decision"))


def test_the_cost_line_says_when_every_part_or_none_is_priced() -> None:
    from types import SimpleNamespace

    from computeops_cdk.constructs._workload import ComputeWorkload
    from computeops_cdk.targets._billed import BilledPart, unpriced

    part = BilledPart(part="disk", quantity=1, unit="GB-month", hourly_usd=0.5, source="s", note="n")
    fake = SimpleNamespace(placement=SimpleNamespace(hourly_usd=12.0))
    fake.billed = (part,)
    assert ComputeWorkload._cost_line(fake).endswith(  # type: ignore[arg-type]
        "besides them, billed extras 0.5000 USD/h (every part priced). The extras do not change the ranking."
    )
    fake.billed = (unpriced("disk", quantity=1, unit="GB-month", why="no source"),)
    assert "billed extras unpriced (no sourced price for any of its 1 parts)" in ComputeWorkload._cost_line(
        fake  # type: ignore[arg-type]
    )
    fake.billed = ()
    assert ComputeWorkload._cost_line(fake).endswith("the target lists no other billed part.")  # type: ignore[arg-type]
