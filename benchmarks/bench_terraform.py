"""``terraform plan`` of one ``computeops_placement`` vs a cold ``computeops decide --format json``.

Both answer the same question for ``examples/support-chat.yaml`` on the embedded catalog. The plan
runs the real terraform binary in a temporary directory (its own CLI configuration, HOME and
TF_DATA_DIR; the provider installed from a filesystem mirror and ``terraform init``-ed once, not
timed); the CLI runs as a fresh process. The two alternate, several repetitions, medians compared.
Also measured: the provider's time from process start to the go-plugin handshake line, which
Terraform pays 3-5 times per plan (one process per phase).

Target (issue 8): the plan takes at most 3x the cold CLI decide.

    python benchmarks/bench_terraform.py [--repeat 7] [--write benchmarks/TERRAFORM.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INTENT = ROOT / "examples" / "support-chat.yaml"
TARGET_RATIO = 3.0


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return (time.perf_counter() - start) * 1000


def _handshake_ms(env: dict[str, str]) -> float:
    command = [sys.executable, "-P", "-m", "computeops_cdk.terraform"]
    env = {**env, "TF_PLUGIN_MAGIC_COOKIE": "benchmark"}  # what Terraform sets; run by hand, it refuses
    start = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as proc:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        elapsed = (time.perf_counter() - start) * 1000
        proc.kill()
    if not line.startswith(b"1|6|"):
        raise SystemExit(f"no handshake from the provider (got {line!r})")
    return elapsed


def _setup(base: Path) -> tuple[Path, dict[str, str]]:
    from computeops_cdk.terraform._install import install_mirror

    mirror = install_mirror(base / "mirror")
    rc = base / "terraformrc"
    rc.write_text(mirror.cli_config, encoding="utf-8")
    work = base / "work"
    home = base / "home"
    work.mkdir()
    home.mkdir()
    (work / "intent.yaml").write_text(INTENT.read_text(encoding="utf-8"), encoding="utf-8")
    (work / "main.tf").write_text(
        mirror.required_providers
        + 'data "computeops_placement" "chat" {\n  intent = file("${path.module}/intent.yaml")\n}\n'
        + 'output "instance_type" {\n  value = data.computeops_placement.chat.instance_type\n}\n',
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "TF_CLI_CONFIG_FILE": str(rc),
        "TF_DATA_DIR": str(base / "tfdata"),
        "CHECKPOINT_DISABLE": "1",
        "TF_IN_AUTOMATION": "1",
        "PYTHONHASHSEED": "0",
    }
    subprocess.run(
        ["terraform", "init", "-input=false", "-no-color"],
        cwd=work,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return work, env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--write", metavar="FILE", help="also write the result as Markdown to FILE")
    args = parser.parse_args()
    if shutil.which("terraform") is None:
        print("terraform is not on PATH: nothing to measure", file=sys.stderr)
        return 2
    cli = Path(sys.executable).parent / "computeops"
    decide = [
        str(cli) if cli.exists() else sys.executable,
        *([] if cli.exists() else ["-m", "computeops_cdk.cli"]),
    ]
    decide += ["decide", str(INTENT), "--format", "json"]
    with tempfile.TemporaryDirectory(prefix="bench-terraform-") as tmp:
        work, env = _setup(Path(tmp))
        plan = ["terraform", "plan", "-input=false", "-no-color", "-lock=false"]
        _timed(plan, work, env)  # warm the OS file cache and the certificate cache once
        plans, cold = [], []
        for _ in range(args.repeat):  # alternating, so load on the shared machine hits both alike
            plans.append(_timed(plan, work, env))
            cold.append(_timed(decide, work, env))
        handshakes = [_handshake_ms(env) for _ in range(args.repeat * 2)]
    plan_ms, cold_ms = statistics.median(plans), statistics.median(cold)
    ratio = plan_ms / cold_ms
    verdict = "ok" if ratio <= TARGET_RATIO else "OVER"
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    machine = f"Python {platform.python_version()}, {os.cpu_count()} CPU(s), load average {load} at the end"
    table = "\n".join(
        [
            "| measurement | median ms | min ms |",
            "|---|---|---|",
            f"| `terraform plan`, one `computeops_placement` | {plan_ms:.0f} | {min(plans):.0f} |",
            f"| cold `computeops decide --format json` | {cold_ms:.0f} | {min(cold):.0f} |",
            f"| provider start to handshake | {statistics.median(handshakes):.0f} | {min(handshakes):.0f} |",
            "",
            f"plan / cold decide: **{ratio:.2f}x** (target <= {TARGET_RATIO:g}x: {verdict}); "
            f"{args.repeat} alternating runs each, {len(handshakes)} handshakes.",
        ]
    )
    print(f"terraform provider benchmark ({machine})\n\n{table}")
    if args.write:
        Path(args.write).write_text(
            "# Terraform provider benchmark\n\n"
            f"Measured with `benchmarks/bench_terraform.py` on {machine}.\n\n{table}\n",
            encoding="utf-8",
        )
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
