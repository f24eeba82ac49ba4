"""Synth cost of ``WorkloadStack`` vs the same AWS resources written by hand with the binding.

Both sides synthesize the same stack (support-chat pinned to aws: provider, AMI/VPC/subnet data
sources, security group, IAM role + policy + instance profile, launch template, instances, six
outputs; the construct is given existing subnets and ``expose: none`` so it builds no VPC, NAT or load
balancer, but it still writes its boot script) with ``app.synth()`` into a temporary directory, each
run in a fresh interpreter, the two kinds alternating, several repetitions. The construct side also
loads the catalog and runs the engine (that is its job); the hand-written side hard-codes the engine's
answer. No lockfile is used (``COMPUTEOPS_LOCKFILE=off``): each run decides afresh.

Measured per run: wall time of the whole process (interpreter start to exit), peak RSS of the
Python process and of the jsii Node process it drives (``getrusage`` self and children, read at
exit: the Node kernel is a child of the interpreter). Writes benchmarks/SYNTH.md.

    python benchmarks/bench_synth.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTENT = ROOT / "examples" / "support-chat.yaml"

CONSTRUCT = """
from computeops_cdk._compat import App
from computeops_cdk.constructs import WorkloadStack
app = App(outdir=OUTDIR)
# Existing subnets and no load balancer: the stack shape the hand-written side builds (a new VPC with
# NAT and an internal NLB, the defaults since the deployable-stacks work, would add ~20 resources).
WorkloadStack(app, "svc", intent=INTENT, provider="aws",
              options={"subnet_ids": ["subnet-0a", "subnet-0b"], "expose": "none"})
app.synth()
"""

HAND_WRITTEN = """
import json
from cdktn import App, Fn, TerraformOutput, TerraformStack
from cdktn_provider_aws import (data_aws_ami, data_aws_subnets, data_aws_vpc, iam_instance_profile, iam_role,
    iam_role_policy_attachment, instance, launch_template, provider, security_group)
chosen = json.load(open(DECISION))["decision"]
app = App(outdir=OUTDIR)
s = TerraformStack(app, "svc")
tags = {"computeops/workload": "svc"}
provider.AwsProvider(s, "aws", region=chosen["region"],
    default_tags=[provider.AwsProviderDefaultTags(tags=tags)])
vpc = data_aws_vpc.DataAwsVpc(s, "vpc", default=True)
subnets = data_aws_subnets.DataAwsSubnets(s, "subnets", filter=[
    data_aws_subnets.DataAwsSubnetsFilter(name="vpc-id", values=[vpc.id]),
    data_aws_subnets.DataAwsSubnetsFilter(name="default-for-az", values=["true"])])
sg = security_group.SecurityGroup(s, "sg", name_prefix="svc-", description="no ingress", vpc_id=vpc.id,
    ingress=[], egress=[security_group.SecurityGroupEgress(description="https", protocol="tcp", from_port=443,
    to_port=443, cidr_blocks=["0.0.0.0/0"])], tags=tags)
trust = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
    "Principal": {"Service": "ec2.amazonaws.com"}}]})
role = iam_role.IamRole(s, "role", name_prefix="svc-", assume_role_policy=trust, tags=tags)
iam_role_policy_attachment.IamRolePolicyAttachment(s, "ssm", role=role.name,
    policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore")
profile = iam_instance_profile.IamInstanceProfile(s, "profile", name_prefix="svc-", role=role.name, tags=tags)
ami = data_aws_ami.DataAwsAmi(s, "ami", most_recent=True, owners=["amazon"], filter=[
    data_aws_ami.DataAwsAmiFilter(name="name",
        values=["Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 24.04) *"]),
    data_aws_ami.DataAwsAmiFilter(name="architecture", values=["x86_64"])])
lt = launch_template.LaunchTemplate(s, "lt", name_prefix="svc-", instance_type=chosen["instance_type"],
    image_id=ami.id, ebs_optimized="true",
    iam_instance_profile=launch_template.LaunchTemplateIamInstanceProfile(arn=profile.arn),
    metadata_options=launch_template.LaunchTemplateMetadataOptions(http_endpoint="enabled",
        http_tokens="required", http_put_response_hop_limit=1),
    monitoring=launch_template.LaunchTemplateMonitoring(enabled=True),
    block_device_mappings=[launch_template.LaunchTemplateBlockDeviceMappings(device_name=ami.root_device_name,
        ebs=launch_template.LaunchTemplateBlockDeviceMappingsEbs(volume_size=500, volume_type="gp3",
        encrypted="true", delete_on_termination="true"))],
    network_interfaces=[launch_template.LaunchTemplateNetworkInterfaces(device_index=0,
        associate_public_ip_address="false", delete_on_termination="true", security_groups=[sg.id],
        subnet_id=Fn.element(subnets.ids, 0))], tags=tags)
instance.Instance(s, "gpu", count=chosen["instances"], instance_type=chosen["instance_type"],
    launch_template=instance.InstanceLaunchTemplate(id=lt.id, version=Fn.tostring(lt.latest_version)),
    iam_instance_profile=profile.name, ebs_optimized=True, monitoring=True,
    metadata_options=instance.InstanceMetadataOptions(http_endpoint="enabled", http_tokens="required",
        http_put_response_hop_limit=1),
    root_block_device=instance.InstanceRootBlockDevice(volume_size=500, volume_type="gp3", encrypted=True,
        delete_on_termination=True), tags={**tags, "Name": "svc"})
for key in ("provider", "instance_type", "region", "hourly_usd"):
    TerraformOutput(s, key, value=chosen[key])
total = chosen["instances"] * chosen["accelerators_per_instance"]
TerraformOutput(s, "accelerators", value=f'{total} x {chosen["accelerator"]}')
TerraformOutput(s, "unit_cost", value=f'{chosen["unit_cost"]["value"]:g} {chosen["unit_cost"]["unit"]}')
app.synth()
"""

SELF_RSS = """
import json, resource, sys
usage = resource.getrusage
print(json.dumps({"python_rss_mb": usage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "node_rss_mb": usage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}), file=sys.stderr)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(ROOT / "node_modules" / ".bin"), env.get("PATH", "")])
    # The repository root holds a cdktf.json: without this the construct would lock into the root
    env["COMPUTEOPS_LOCKFILE"] = "off"
    return env


def _run(kind: str, body: str, decision: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as outdir:
        header = f"OUTDIR = {outdir!r}\nINTENT = {str(INTENT)!r}\nDECISION = {str(decision)!r}\n"
        # The jsii kernel (Node) exits with the interpreter; read both peaks in an atexit hook.
        code = header + "import atexit\natexit.register(lambda: exec(" + repr(SELF_RSS) + "))\n" + body
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - started
        peaks = json.loads(result.stderr.strip().splitlines()[-1])
        assert (Path(outdir) / "stacks" / "svc" / "cdk.tf.json").exists(), kind
    return {"wall_s": wall, **peaks}


def _decision(tmp: Path) -> Path:
    from computeops_cdk import Pin, decide
    from computeops_cdk.targets import unsupported_features

    path = tmp / "decision.json"
    path.write_text(
        decide(INTENT, pin=Pin(provider="aws", unsupported=unsupported_features("aws"))).to_json()
    )
    return path


def _table(results: dict[str, list[dict[str, float]]]) -> str:
    rows = [
        "| stack | runs | wall s (median) | wall s (min) | Python peak RSS MB | Node peak RSS MB |",
        "|---|---|---|---|---|---|",
    ]
    for kind, runs in results.items():
        walls = [r["wall_s"] for r in runs]
        rows.append(
            f"| {kind} | {len(runs)} | {statistics.median(walls):.2f} | {min(walls):.2f} | "
            f"{statistics.median(r['python_rss_mb'] for r in runs):.0f} | "
            f"{statistics.median(r['node_rss_mb'] for r in runs):.0f} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per kind (default 5)")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "SYNTH.md")
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {
        "hand-written (cdktn-provider-aws)": [],
        "WorkloadStack": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        decision = _decision(Path(tmp))
        _run("warm-up", HAND_WRITTEN, decision)  # first load of the binding fills the OS page cache
        for index in range(args.repeat):
            order = [("hand-written (cdktn-provider-aws)", HAND_WRITTEN), ("WorkloadStack", CONSTRUCT)]
            for kind, body in order if index % 2 == 0 else reversed(order):
                results[kind].append(_run(kind, body, decision))
                print(
                    f"run {index + 1}/{args.repeat} {kind}: {results[kind][-1]['wall_s']:.2f} s", flush=True
                )
    hand, ours = (statistics.median(r["wall_s"] for r in runs) for runs in results.values())
    hand_rss, ours_rss = (
        statistics.median(r["python_rss_mb"] + r["node_rss_mb"] for r in runs) for runs in results.values()
    )
    table = _table(results)
    ratio = (
        f"WorkloadStack / hand-written: wall {ours / hand:.3f}x, "
        f"Python+Node peak RSS {ours_rss / hand_rss:.3f}x"
    )
    print(table, ratio, sep="\n")
    args.output.write_text(
        "# Synth benchmark: WorkloadStack vs hand-written bindings\n\n"
        f"`python benchmarks/bench_synth.py --repeat {args.repeat}` on {os.cpu_count()} CPU(s), "
        f"Python {sys.version.split()[0]}, cdktn 0.24.0, cdktn-provider-aws 25.8.1. One stack: support-chat "
        "pinned to aws (the construct given existing subnets and expose none, so both sides build the same "
        "shape: provider, AMI/VPC/subnet data, security group, IAM, launch template, instances, 6 "
        "outputs; the "
        "construct adds its boot script); each run is a fresh "
        "interpreter (start to exit, `app.synth()` to a temp dir); kinds alternate.\n\n"
        f"{table}\n\n{ratio} (target: within 1.15x).\n\n"
        "The construct side also loads the embedded catalog and runs the engine; importing the AWS binding "
        "(the jsii assembly load in Node) dominates both.\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
