"""The example apps under stacks/: synthesized once into a temporary cdktf.out, then compared with
golden JSON (``UPDATE_GOLDEN=1`` rewrites it), scanned by checkov, and checked for their decision
records. One App holds every example, so each binding is imported once for the whole module."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from computeops_cdk.cli import main as cli_main

pytestmark = pytest.mark.synth

STACKS = ROOT / "stacks"
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = sorted(p.parent.name for p in STACKS.glob("*/main.py"))
CHECKOV = Path(sys.executable).parent / "checkov"


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"example_{name.replace('-', '_')}", STACKS / name / "main.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    from computeops_cdk._compat import App

    outdir = tmp_path_factory.mktemp("cdktf.out")
    app = App(outdir=str(outdir))
    stacks = {name: _load(name).build(app) for name in EXAMPLES}
    app.synth()
    return outdir / "stacks", stacks


def _normalized(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    # The local backend path is absolute (the checkout's location): not part of what we promise.
    doc.get("terraform", {}).pop("backend", None)
    return doc


def test_examples_cover_auto_pinned_and_three_hyperscalers() -> None:
    assert {
        "inference-auto",
        "inference-aws",
        "training-pinned",
        "inference-eks",
        "finetune-gcp",
        "inference-azure",
        "inference-gcp-public",
    } <= set(EXAMPLES)
    for name in EXAMPLES:
        config = json.loads((STACKS / name / "cdktf.json").read_text())
        assert config["language"] == "python" and config["app"] == "python main.py"
        assert set(config["targetVersions"]) == {"terraform", "opentofu"}


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_matches_golden(synthesized: tuple[Path, dict[str, Any]], name: str) -> None:
    outdir, _ = synthesized
    actual = _normalized(outdir / name / "cdk.tf.json")
    golden = GOLDEN / f"{name}.json"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(json.dumps(actual, indent=2, sort_keys=True) + "\n")
    assert golden.exists(), f"no golden file for {name}: run UPDATE_GOLDEN=1 pytest tests/stacks"
    assert actual == json.loads(golden.read_text()), f"if {name} changed on purpose: UPDATE_GOLDEN=1"


@pytest.mark.parametrize("name", EXAMPLES)
def test_decision_record_beside_each_stack(synthesized: tuple[Path, dict[str, Any]], name: str) -> None:
    outdir, stacks = synthesized
    record = json.loads((outdir / name / "computeops-decision.json").read_text())
    placement = stacks[name].workload.placement
    assert record["decision"]["provider"] == placement.provider
    assert record["decision"]["instance_type"] == placement.instance_type
    outputs = _normalized(outdir / name / "cdk.tf.json")["output"]
    assert outputs["workload_provider"]["value"] == placement.provider
    assert outputs["workload_hourly_usd"]["value"] == placement.hourly_usd


def test_unpinned_record_is_the_cli_json_plus_the_stack_cost(
    synthesized: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    # The record adds the stack's cost (which the engine, knowing no stack, cannot) and nothing else:
    # without `stack_cost` and its explanation line it is the CLI's document byte for byte.
    outdir, _ = synthesized
    assert cli_main(["decide", str(ROOT / "examples" / "support-chat-qwen.yaml"), "--format", "json"]) == 0
    cli = capsys.readouterr().out
    record = json.loads((outdir / "inference-auto" / "computeops-decision.json").read_text())
    cost = record.pop("stack_cost")
    assert record["explanation"].pop() == cost["explanation"]
    assert json.dumps(record, indent=2, ensure_ascii=False) + "\n" == cli
    assert "stack_cost" not in json.loads(cli)


def test_pinned_examples_honour_their_pin(synthesized: tuple[Path, dict[str, Any]]) -> None:
    _, stacks = synthesized
    assert stacks["training-pinned"].workload.placement.provider == "aws"
    assert stacks["finetune-gcp"].workload.placement.provider == "gcp"
    assert stacks["inference-azure"].workload.placement.provider == "azure"
    eks = stacks["inference-eks"].workload.resources
    assert {"node_group", "release", "namespace"} <= set(eks)


def _checkov(directory: Path) -> dict[str, Any]:
    """checkov run the way README tells users: plain ``checkov`` in the stack directory, which reads
    the ``.checkov.yaml`` (and the copy of computeops's policies) written beside the stack."""
    result = subprocess.run(
        [str(CHECKOV), "--compact", "-o", "json"], capture_output=True, text=True, check=False, cwd=directory
    )
    assert result.stdout.strip(), result.stderr[-2000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_checkov_config_with_justified_skips_is_beside_each_stack(
    synthesized: tuple[Path, dict[str, Any]], name: str
) -> None:
    import yaml

    from computeops_cdk.targets import checkov_skips

    outdir, stacks = synthesized
    text = (outdir / name / ".checkov.yaml").read_text()
    config = yaml.safe_load(text)
    skips = checkov_skips(stacks[name].workload.placement.provider)
    assert config["framework"] == ["terraform_json"] and config["skip-download"] is True
    assert sorted(config.get("skip-check", [])) == sorted(skips)
    # Portable: the policies are a copy beside the stack, named by a relative path (issue 10: an
    # absolute path into the installed package broke the file on any other machine).
    assert config["external-checks-dir"] == ["computeops-checkov-policies"]
    assert (outdir / name / "computeops-checkov-policies" / "gpu_machines.py").is_file()
    assert str(Path.cwd()) not in text and "/" not in "".join(config["external-checks-dir"])
    for check, reason in skips.items():
        assert len(reason) > 20 and f"# {check}: {' '.join(reason.split())}" in text


def test_checkov_finds_no_failed_check(synthesized: tuple[Path, dict[str, Any]]) -> None:
    # Each stack with its own .checkov.yaml (its skips, computeops's policies): what a user gets.
    outdir, _ = synthesized
    passed = 0
    for name in EXAMPLES:
        report = _checkov(outdir / name)
        summaries = report if isinstance(report, list) else [report]
        failed = [
            f"{c['check_id']} {c['resource']} ({name})"
            for summary in summaries
            for c in summary.get("results", {}).get("failed_checks", [])
        ]
        assert failed == []
        passed += sum(s.get("summary", {}).get("passed", 0) for s in summaries)
    assert passed > 50


@pytest.mark.parametrize("name", EXAMPLES)
def test_no_example_boots_a_moving_image(synthesized: tuple[Path, dict[str, Any]], name: str) -> None:
    # Issue 9: data.aws_ami with most_recent moved the AMI between plans. Every machine image an example
    # boots is named exactly (a dated AMI name, a GCP image, an Azure version), never the newest match.
    outdir, _ = synthesized
    doc = _normalized(outdir / name / "cdk.tf.json")
    for ami in doc.get("data", {}).get("aws_ami", {}).values():
        assert not ami.get("most_recent"), ami
        assert all("*" not in v and "?" not in v for f in ami["filter"] for v in f["values"]), ami
    resources = doc.get("resource", {})
    for vm in resources.get("google_compute_instance", {}).values():
        assert "/family/" not in vm["boot_disk"]["initialize_params"]["image"]
    for vm in resources.get("azurerm_linux_virtual_machine", {}).values():
        assert vm["source_image_reference"]["version"] != "latest"
    for template in resources.get("aws_launch_template", {}).values():
        image = template.get("image_id")
        assert image is None or image.startswith("${data.aws_ami."), image


@pytest.mark.parametrize("name", EXAMPLES)
def test_output_uses_nothing_opentofu_lacks(synthesized: tuple[Path, dict[str, Any]], name: str) -> None:
    outdir, _ = synthesized
    text = (outdir / name / "cdk.tf.json").read_text()
    doc = json.loads(text)
    # Plain resources, data sources, providers and outputs only: no ephemeral resources, checks,
    # moved/import/removed blocks or Terraform Cloud settings, and no provider-defined functions.
    assert set(doc) <= {"//", "data", "output", "provider", "resource", "terraform", "locals", "variable"}
    assert set(doc["terraform"]) <= {"backend", "required_providers"}
    assert "provider::" not in text


def test_eks_release_selects_exactly_the_pool_it_creates(synthesized: tuple[Path, dict[str, Any]]) -> None:
    import yaml

    outdir, stacks = synthesized
    doc = _normalized(outdir / "inference-eks" / "cdk.tf.json")
    placement = stacks["inference-eks"].workload.placement
    (group,) = doc["resource"]["aws_eks_node_group"].values()
    (release,) = doc["resource"]["helm_release"].values()
    (model,) = yaml.safe_load(release["values"][0])["servingEngineSpec"]["modelSpec"]
    (term,) = model["nodeSelectorTerms"]
    (expression,) = term["matchExpressions"]
    assert {expression["key"]: expression["values"][0]} == group["labels"]
    (taint,) = group["taint"]
    assert {"key": taint["key"], "operator": "Exists", "effect": "NoSchedule"} in model["tolerations"]
    assert (
        model["replicaCount"] * model["requestGPU"]
        <= placement.instances * placement.accelerators_per_instance
    )
    (kube,) = doc["provider"]["kubernetes"]
    assert kube["exec"][0]["args"] == [
        "eks",
        "get-token",
        "--cluster-name",
        "gpu-prod",
        "--region",
        placement.region,
    ]
    assert doc["data"]["aws_eks_cluster"]


def test_every_example_boot_script_passes_shellcheck_and_cloud_init(
    synthesized: tuple[Path, dict[str, Any]],
) -> None:
    from boot_tools import boot_texts, check_boot

    outdir, stacks = synthesized
    checked = {}
    for name in EXAMPLES:
        doc = _normalized(outdir / name / "cdk.tf.json")
        texts = boot_texts(doc)
        if (
            stacks[name].workload.props.cluster is None
            and stacks[name].workload.placement.provider != "lambda"
        ):
            assert texts, f"{name}: a standalone example whose machines boot nothing"
        checked[name] = [check_boot(text) for text in texts]
    assert {"inference-aws", "training-pinned", "finetune-gcp", "inference-azure"} <= {
        k for k, v in checked.items() if v
    }
    # A provider without user data (Lambda) hands the script over as an output, and synth warns.
    for name in EXAMPLES:
        workload = stacks[name].workload
        if workload.resources.get("no_boot_reason"):
            warnings = [m.data for m in workload.node.metadata if "warn" in m.type]
            assert any("nothing starts the workload at boot" in w for w in warnings)
            from boot_tools import shellcheck

            shellcheck(_normalized(outdir / name / "cdk.tf.json")["output"]["workload_boot_script"]["value"])


def test_standalone_aws_inference_serves_behind_an_internal_load_balancer(
    synthesized: tuple[Path, dict[str, Any]],
) -> None:
    outdir, stacks = synthesized
    doc = _normalized(outdir / "inference-aws" / "cdk.tf.json")
    placement = stacks["inference-aws"].workload.placement
    (instance,) = doc["resource"]["aws_instance"].values()
    assert instance["count"] == placement.instances
    assert "count.index" in instance["subnet_id"] and instance["associate_public_ip_address"] is False
    (lb,) = doc["resource"]["aws_lb"].values()
    assert lb["internal"] is True
    assert doc["output"]["workload_endpoint"]["value"].startswith("http://${aws_lb.")
    assert len(doc["resource"]["aws_nat_gateway"]) == 1 and len(doc["resource"]["aws_subnet"]) == 4
    text = instance["user_data"]
    assert f"--tensor-parallel-size {placement.estimate.tensor_parallel}" in text
    assert "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf" in text


def test_public_gcp_inference_serves_https_for_its_domain_from_the_teams_bucket(
    synthesized: tuple[Path, dict[str, Any]],
) -> None:
    from boot_tools import check_boot

    outdir, stacks = synthesized
    doc = _normalized(outdir / "inference-gcp-public" / "cdk.tf.json")
    workload = stacks["inference-gcp-public"].workload
    resources = doc["resource"]
    (rule,) = resources["google_compute_global_forwarding_rule"].values()
    assert (rule["port_range"], rule["load_balancing_scheme"]) == ("443", "EXTERNAL_MANAGED")
    (cert,) = resources["google_compute_managed_ssl_certificate"].values()
    assert cert["managed"]["domains"] == ["llm.example.com"]
    serving = [r for r in resources["google_compute_firewall"].values() if r["name"].endswith("-serving")]
    assert serving[0]["source_ranges"] == ["35.191.0.0/16", "130.211.0.0/22"]
    assert all(
        "access_config" not in vm["network_interface"][0]
        for vm in resources["google_compute_instance"].values()
    )
    outputs = doc["output"]
    assert outputs["workload_endpoint"]["value"] == "https://llm.example.com"
    assert outputs["workload_address"]["value"].startswith("${google_compute_global_address.")
    (grant,) = resources["google_storage_bucket_iam_member"].values()
    assert (grant["bucket"], grant["role"]) == ("example-models", "roles/storage.objectViewer")
    for vm in resources["google_compute_instance"].values():
        script = check_boot(vm["metadata"]["startup-script"])
        assert "gcloud storage rsync --recursive --quiet gs://example-models/llama-3.1-8b-instruct" in script
        assert f"--tensor-parallel-size {workload.placement.estimate.tensor_parallel or 1}" in script
    warnings = [m.data for m in workload.node.metadata if "warn" in m.type]
    assert any("exposed to the internet (expose='public')" in w for w in warnings)
    costs = json.loads((outdir / "inference-gcp-public" / "computeops-stack-cost.json").read_text())
    parts = {p["part"]: p for p in costs["billed_extras"]}
    # Billed separately from the instances: the global forwarding rule at Google's list price, the
    # address without a sourced price (null with the reason, never 0).
    rule = parts["global external load balancer forwarding rule"]
    assert rule["hourly_usd"] == 0.025 and rule["source"] == "https://cloud.google.com/load-balancing/pricing"
    address = parts["static external IP address"]
    assert address["hourly_usd"] is None and "no sourced GCP price" in address["note"]


def test_every_inference_example_serves_a_replica_on_every_gpu(
    synthesized: tuple[Path, dict[str, Any]],
) -> None:
    import re

    from boot_tools import as_booted, boot_texts

    outdir, stacks = synthesized
    seen = 0
    for name in EXAMPLES:
        workload = stacks[name].workload
        if workload.props.cluster is not None or workload.props.workload_type != "inference":
            continue
        placement = workload.placement
        for text in boot_texts(_normalized(outdir / name / "cdk.tf.json")):
            match = re.search(
                r"--tensor-parallel-size (\d+)(?: --data-parallel-size (\d+))?", as_booted(text)
            )
            assert match, f"{name}: no vLLM server in the boot script"
            tp, dp = int(match[1]), int(match[2] or 1)
            # TP x DP = the machine's GPUs, and the machines together = the decision's replicas.
            assert tp * dp == placement.accelerators_per_instance, name
            assert dp * placement.instances == (placement.estimate.replicas or placement.instances), name
            seen += 1
    assert seen


def test_no_example_serves_a_gated_model_without_a_token(synthesized: tuple[Path, dict[str, Any]]) -> None:
    # Issue 9: inference-azure and inference-auto served gated Llama repositories with no token, so the
    # download at boot would be refused (401) and vLLM would never start. A gated model needs the token
    # (or the team's own copy of the weights), which the Kubernetes layer cannot pass at all.
    from computeops_cdk.targets._boot import GATED_HUB_ORGS

    _, stacks = synthesized
    served = {}
    for name in EXAMPLES:
        workload = stacks[name].workload
        if workload.props.workload_type != "inference":
            continue
        options = workload.props.options
        model = str(options.get("model_url") or workload.props.model)
        served[name] = model
        if model.startswith(GATED_HUB_ORGS):
            assert workload.props.cluster is None, f"{name}: {model} is gated and a release passes no token"
            assert options.get("hf_token_secret") or options.get("weights_uri"), f"{name}: {model} is gated"
        warnings = [m.data for m in workload.node.metadata if "warn" in m.type]
        assert not any("gated Hugging Face model" in w for w in warnings), name
    assert {"inference-auto", "inference-azure", "inference-eks", "inference-aws"} <= set(served)
    assert served["inference-auto"] == "Qwen/Qwen3-32B" and served["inference-azure"] == "Qwen/Qwen3-8B"


def test_the_public_example_requires_an_api_key(synthesized: tuple[Path, dict[str, Any]]) -> None:
    outdir, stacks = synthesized
    doc = _normalized(outdir / "inference-gcp-public" / "cdk.tf.json")
    (grant,) = doc["resource"]["google_secret_manager_secret_iam_member"].values()
    assert grant["secret_id"] == "projects/my-project/secrets/vllm-api-key"
    for vm in doc["resource"]["google_compute_instance"].values():
        assert "VLLM_API_KEY=$(gcloud secrets versions access latest" in vm["metadata"]["startup-script"]
    warnings = [m.data for m in stacks["inference-gcp-public"].workload.node.metadata if "warn" in m.type]
    assert any("vLLM requires the API key" in w for w in warnings)
