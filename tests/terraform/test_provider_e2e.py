"""The provider driven by the real ``terraform`` CLI: install -> init -> validate -> plan -> apply ->
output -> re-plan -> drift -> destroy, the diagnostics, import, and the example's child module.

Each configuration runs in its own temporary directory with its own CLI configuration
(TF_CLI_CONFIG_FILE), HOME and TF_DATA_DIR; the user's ~/.terraformrc is never read. The mirror is
installed once per module (``computeops provider install``, the command users run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from tf_testdata import (
    ROOT,
    SUPPORT_CHAT,
    chosen_and_runner_up,
    offer_key,
    runner_up_cheaper_by,
    write_catalog,
)

from computeops_cdk.cli import main as cli_main
from computeops_cdk.terraform._install import package_version

TERRAFORM = shutil.which("terraform")
pytestmark = pytest.mark.skipif(
    TERRAFORM is None,
    reason="the terraform CLI (>= 1.8) is not on PATH: the provider's end-to-end tests need it",
)

VERSION = package_version()
REQUIRED = f"""
terraform {{
  required_providers {{
    computeops = {{
      source  = "terraform.local/computeops/computeops"
      version = "{VERSION}"
    }}
  }}
}}
"""


CHAT_PLACEMENT = """
data "computeops_placement" "chat" {
  intent = file("${path.module}/intent.yaml")
}
"""
"""The data source over intent.yaml (a workdir's copy of examples/support-chat.yaml)."""


@dataclass(frozen=True)
class Mirror:
    cli_config: Path
    base: Path


@dataclass
class Workdir:
    path: Path
    env: dict[str, str]

    def write(self, name: str, text: str) -> None:
        (self.path / name).write_text(text, encoding="utf-8")

    def tf(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        assert TERRAFORM is not None
        done = subprocess.run(
            [TERRAFORM, *args, "-no-color"] if args[0] not in ("output", "version") else [TERRAFORM, *args],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if ok:
            assert done.returncode in (0, 2) if "-detailed-exitcode" in args else done.returncode == 0, (
                f"terraform {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
            )
        return done


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Mirror:
    base = tmp_path_factory.mktemp("tfmirror")
    rc = base / "terraformrc"
    assert cli_main(["provider", "install", "--dir", str(base / "mirror"), "--cli-config", str(rc)]) == 0
    return Mirror(cli_config=rc, base=base)


_SCENARIOS: dict[str, Callable[[Mirror, Path], None]] = {}


def _scenario(fn: Callable[[Mirror, Path], None]) -> Callable[[Mirror, Path], None]:
    _SCENARIOS[fn.__name__.removeprefix("_")] = fn
    return fn


@pytest.fixture(scope="module")
def outcomes(mirror: Mirror, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[None]]]:
    """Every scenario, started at once: each drives its own terraform processes in its own
    directories, and most of their time is waiting on process start-up, so running them side by side
    keeps the suite short. Each test then reports its scenario's outcome (its assertion, if any)."""
    chosen_and_runner_up()  # decided once, here, before the threads read it
    with ThreadPoolExecutor(max_workers=len(_SCENARIOS)) as pool:
        yield {
            name: pool.submit(fn, mirror, tmp_path_factory.mktemp(name)) for name, fn in _SCENARIOS.items()
        }


def workdir(mirror: Mirror, tmp_path: Path, name: str) -> Workdir:
    path = tmp_path / name
    home = tmp_path / f"{name}-home"  # a fresh HOME: nothing cached, no ~/.terraformrc
    path.mkdir()
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TF_CLI_CONFIG_FILE": str(mirror.cli_config),
        "TF_DATA_DIR": str(tmp_path / f"{name}-tfdata"),
        "CHECKPOINT_DISABLE": "1",
        "TF_IN_AUTOMATION": "1",
        "TF_INPUT": "0",
    }
    if "PYTHONPATH" in os.environ:  # a worktree runs its own sources through the shared interpreter
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return Workdir(path=path, env=env)


def cli_decision(*args: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from computeops_cdk.cli import main; sys.exit(main(sys.argv[1:]))",
            "decide",
            str(SUPPORT_CHAT),
            "--format",
            "json",
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    return done.stdout


@_scenario
def _lifecycle_with_the_data_source_and_the_lock(mirror: Mirror, tmp_path: Path) -> None:
    w = workdir(mirror, tmp_path, "lifecycle")
    w.write("intent.yaml", SUPPORT_CHAT.read_text(encoding="utf-8"))
    w.write(
        "main.tf",
        REQUIRED
        + """
provider "computeops" {}

data "computeops_placement" "chat" {
  intent = file("${path.module}/intent.yaml")
}

resource "computeops_placement_lock" "chat" {
  intent = file("${path.module}/intent.yaml")
}

output "decision_json" { value = data.computeops_placement.chat.decision_json }
output "placement" {
  value = {
    cloud         = data.computeops_placement.chat.cloud
    instance_type = data.computeops_placement.chat.instance_type
    region        = data.computeops_placement.chat.region
    pricing       = data.computeops_placement.chat.pricing
    instances     = data.computeops_placement.chat.instances
    hourly_usd    = data.computeops_placement.chat.hourly_usd
    unit_cost     = data.computeops_placement.chat.unit_cost
    alternatives  = data.computeops_placement.chat.alternatives
    rejected      = data.computeops_placement.chat.rejected_by_rule
  }
}
output "locked_instance_type" { value = computeops_placement_lock.chat.instance_type }
output "locked_hourly_usd" { value = computeops_placement_lock.chat.hourly_usd }
output "usd_per_million_tokens" {
  value = provider::computeops::usd_per_million_tokens(computeops_placement_lock.chat.hourly_usd, 20000)
}
""",
    )
    w.tf("init")
    assert (w.path / ".terraform.lock.hcl").read_text().count("terraform.local/computeops/computeops") == 1
    assert "Success! The configuration is valid." in w.tf("validate").stdout

    plan = w.tf("plan").stdout
    # The lock shows the placement it will lock at plan time (the framework plans creates unknown).
    chosen, _ = chosen_and_runner_up()
    assert f'instance_type             = "{chosen.instance_type}"' in plan, plan
    assert "locked_at                 = (known after apply)" in plan
    assert "Plan: 1 to add, 0 to change, 0 to destroy." in plan

    w.tf("apply", "-auto-approve")
    outputs = json.loads(w.tf("output", "-json").stdout)
    decision_json = outputs["decision_json"]["value"]
    assert decision_json == cli_decision()  # byte for byte
    doc = json.loads(decision_json)
    placement = outputs["placement"]["value"]
    chosen = doc["decision"]
    assert (placement["cloud"], placement["instance_type"], placement["region"], placement["pricing"]) == (
        chosen["provider"],
        chosen["instance_type"],
        chosen["region"],
        chosen["pricing"],
    )
    assert placement["instances"] == chosen["instances"]
    assert placement["hourly_usd"] == chosen["hourly_usd"]
    assert placement["unit_cost"] == chosen["unit_cost"]
    assert placement["rejected"] == doc["rejections_by_rule"]
    assert [a["instance_type"] for a in placement["alternatives"]] == [
        a["instance_type"] for a in doc["alternatives"]
    ]
    assert outputs["locked_instance_type"]["value"] == chosen["instance_type"]
    assert outputs["locked_hourly_usd"]["value"] == chosen["hourly_usd"]
    expected = chosen["hourly_usd"] / (20000 * 3600) * 1e6
    assert outputs["usd_per_million_tokens"]["value"] == pytest.approx(expected, rel=1e-12)

    again = w.tf("plan", "-detailed-exitcode")
    assert again.returncode == 0 and "No changes." in again.stdout, again.stdout

    w.tf("destroy", "-auto-approve")
    assert json.loads((w.path / "terraform.tfstate").read_text())["resources"] == []


@_scenario
def _drift_hysteresis_relock_and_a_vanished_offer(mirror: Mirror, tmp_path: Path) -> None:
    w = workdir(mirror, tmp_path, "drift")
    chosen, runner_up = chosen_and_runner_up()
    below = write_catalog(tmp_path / "below.json", runner_up_cheaper_by(5))
    above = write_catalog(tmp_path / "above.json", runner_up_cheaper_by(25))
    runner_key = (runner_up.provider, runner_up.instance_type, runner_up.region, runner_up.pricing)

    def drop_runner_up(doc: dict[str, object]) -> None:
        runner_up_cheaper_by(25)(doc)
        doc["offers"] = [o for o in doc["offers"] if offer_key(o) != runner_key]  # type: ignore[attr-defined]

    gone = write_catalog(tmp_path / "gone.json", drop_runner_up)
    w.write("intent.yaml", SUPPORT_CHAT.read_text(encoding="utf-8"))
    w.write(
        "main.tf",
        REQUIRED
        + """
variable "catalog" {
  type    = string
  default = null
}
variable "auto_relock" {
  type    = bool
  default = false
}
provider "computeops" { catalog = var.catalog }
resource "computeops_placement_lock" "chat" {
  intent         = file("${path.module}/intent.yaml")
  min_hold_hours = 0
  auto_relock    = var.auto_relock
}
output "locked" {
  value = "${computeops_placement_lock.chat.cloud}/${computeops_placement_lock.chat.instance_type}"
}
""",
    )
    w.tf("init")
    w.tf("apply", "-auto-approve")

    def plan(*args: str) -> subprocess.CompletedProcess[str]:
        return w.tf("plan", "-detailed-exitcode", *args)

    quiet = plan(f"-var=catalog={below}")
    assert quiet.returncode == 0 and "No changes." in quiet.stdout, quiet.stdout
    assert "Warning" not in quiet.stdout + quiet.stderr

    warned = plan(f"-var=catalog={above}")
    text = warned.stdout + warned.stderr
    assert warned.returncode == 0 and "No changes." in warned.stdout, text  # warned, never moved
    assert "Warning: A cheaper placement is available" in text
    assert f"{runner_up.provider} {runner_up.instance_type}" in text and "USD/month" in text
    assert "auto_relock = true" in text

    relock = plan(f"-var=catalog={above}", "-var=auto_relock=true")
    text = relock.stdout + relock.stderr
    assert relock.returncode == 2 and "will be updated in-place" in text, text
    assert f'~ instance_type             = "{chosen.instance_type}" -> "{runner_up.instance_type}"' in text
    assert "Plan: 0 to add, 1 to change, 0 to destroy." in text
    w.tf("apply", "-auto-approve", f"-var=catalog={above}", "-var=auto_relock=true")
    outputs = json.loads(w.tf("output", "-json").stdout)
    assert outputs["locked"]["value"] == f"{runner_up.provider}/{runner_up.instance_type}"

    steady = plan(f"-var=catalog={above}", "-var=auto_relock=true")  # the same catalog twice: no flap
    assert steady.returncode == 0 and "No changes." in steady.stdout, steady.stdout + steady.stderr

    lost = plan(f"-var=catalog={gone}", "-var=auto_relock=true")  # the locked offer is gone
    text = lost.stdout + lost.stderr
    assert (
        lost.returncode == 2 and "Warning: Relocking: the locked placement is no longer feasible" in text
    ), text
    assert "offer.gone" in text and f"no longer offers {runner_up.provider} {runner_up.instance_type}" in text
    assert f'~ instance_type             = "{runner_up.instance_type}" -> "{chosen.instance_type}"' in text


@_scenario
def _diagnostics_name_the_attribute_the_rule_and_the_fix(mirror: Mirror, tmp_path: Path) -> None:
    w = workdir(mirror, tmp_path, "diagnostics")
    w.write("main.tf", REQUIRED)
    w.tf("init")

    def plan_of(body: str) -> str:
        w.write("main.tf", REQUIRED + body)
        done = w.tf("plan", ok=False)
        assert done.returncode == 1, done.stdout
        assert "Traceback" not in done.stdout + done.stderr
        return done.stderr

    typo = SUPPORT_CHAT.read_text(encoding="utf-8").replace("output_tokens_per_s:", "output_tokens_per_sec:")
    w.write("typo.yaml", typo)
    text = plan_of('data "computeops_placement" "x" { intent = file("typo.yaml") }')
    assert "Error: Invalid intent" in text
    assert "workload.serving" in text and "output_tokens_per_sec" in text and "did you mean" in text
    assert "with data.computeops_placement.x" in text and "intent = file" in text  # points at it

    shutil.copy(ROOT / "examples" / "infeasible-budget.yaml", w.path / "infeasible.yaml")
    text = plan_of('resource "computeops_placement_lock" "x" { intent = file("infeasible.yaml") }')
    assert "Error: No feasible placement" in text
    assert "rejections by rule" in text and "relaxing max_hourly_usd" in text and "To fix:" in text

    shutil.copy(ROOT / "examples" / "hipaa-us.yaml", w.path / "hipaa.yaml")
    text = plan_of(
        'data "computeops_placement" "x" {\n  intent = file("hipaa.yaml")\n  pin_provider = "vast"\n}'
    )
    assert "Error: Pinned placement breaks" in text and "compliance.hipaa" in text
    assert "pin_provider" in text

    (w.path / "bad.json").write_text('{"version": 3}', encoding="utf-8")
    text = plan_of(
        'provider "computeops" { catalog = "bad.json" }\n'
        'data "computeops_placement" "x" { intent = file("hipaa.yaml") }'
    )
    assert "Error: Invalid catalog" in text and "$" in text

    # The provider's accounts file, through the real binary: a bad one names the field at fault; a
    # good one decides under it (only the providers it enables).
    (w.path / "bad.accounts.yaml").write_text("providers: {aws: {discount: 5}}\n", encoding="utf-8")
    text = plan_of(
        'provider "computeops" { accounts = "bad.accounts.yaml" }\n'
        'data "computeops_placement" "x" { intent = file("hipaa.yaml") }'
    )
    assert "Error: Invalid accounts" in text and "discount" in text, text
    (w.path / "aws.accounts.yaml").write_text("providers: {aws: {}}\n", encoding="utf-8")
    w.write(
        "main.tf",
        REQUIRED + 'provider "computeops" { accounts = "aws.accounts.yaml" }\n'
        'data "computeops_placement" "x" { intent = file("hipaa.yaml") }\n'
        'output "cloud" { value = data.computeops_placement.x.cloud }\n',
    )
    planned = w.tf("plan")
    assert 'cloud = "aws"' in planned.stdout, planned.stdout + planned.stderr

    text = plan_of('output "x" { value = provider::computeops::usd_per_million_tokens(10, 0) }')
    assert "usd_per_million_tokens: argument tokens_per_s: must be a finite number > 0" in text


@_scenario
def _state_keeps_summary_rejections_unless_all_are_asked_for(mirror: Mirror, tmp_path: Path) -> None:
    """The data source's state holds ``decision_json``: by default with the summary of the
    rejections (the counts and a few examples), about 30 KB; ``rejections = "all"`` opts in to every
    one (about 2 MB, rewritten at every refresh). Issue 10: the state kept every rejection."""
    w = workdir(mirror, tmp_path, "state")
    w.write("intent.yaml", SUPPORT_CHAT.read_text(encoding="utf-8"))
    body = CHAT_PLACEMENT + 'output "decision_json" { value = data.computeops_placement.chat.decision_json }'

    w.write("main.tf", REQUIRED + body)
    w.tf("init")
    w.tf("apply", "-auto-approve")
    state = (w.path / "terraform.tfstate").read_text()
    summary = json.loads(json.loads(w.tf("output", "-json").stdout)["decision_json"]["value"])
    assert summary["summary"]["rejections_listed"] == "summary"
    listed_rules = {reason["rule"] for r in summary["rejected"] for reason in r["reasons"]}
    assert listed_rules == set(summary["rejections_by_rule"])  # an example of every rule, no more
    assert len(summary["rejected"]) <= len(listed_rules) < summary["summary"]["rejected"]
    assert len(state) < 200_000, len(state)  # was megabytes with every rejection listed

    w.write("main.tf", REQUIRED + body.replace('intent.yaml")\n', 'intent.yaml")\n  rejections = "all"\n', 1))
    w.tf("apply", "-auto-approve")
    decision_json = json.loads(w.tf("output", "-json").stdout)["decision_json"]["value"]
    assert decision_json == cli_decision("--rejections", "all")  # byte for byte
    assert len(json.loads(decision_json)["rejected"]) == summary["summary"]["rejected"]
    assert len((w.path / "terraform.tfstate").read_text()) > 10 * len(state)

    w.write(
        "main.tf", REQUIRED + body.replace('intent.yaml")\n', 'intent.yaml")\n  rejections = "every"\n', 1)
    )
    done = w.tf("plan", ok=False)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert "Error: Invalid rejections" in done.stderr and 'rejections = "all"' in done.stderr, done.stderr


@_scenario
def _import_locks_an_offer_as_it_is(mirror: Mirror, tmp_path: Path) -> None:
    w = workdir(mirror, tmp_path, "import")
    _, runner_up = chosen_and_runner_up()
    offer = f"{runner_up.provider}/{runner_up.instance_type}/{runner_up.region}/{runner_up.pricing}"
    w.write("intent.yaml", SUPPORT_CHAT.read_text(encoding="utf-8"))
    w.write(
        "main.tf",
        REQUIRED
        + f"""
import {{
  to = computeops_placement_lock.chat
  id = "{offer}"
}}
resource "computeops_placement_lock" "chat" {{
  intent = file("${{path.module}}/intent.yaml")
}}
""",
    )
    w.tf("init")
    plan = w.tf("plan").stdout
    assert (
        f'(imported from "{offer}")' in plan
        and "Plan: 1 to import, 0 to add, 1 to change, 0 to destroy." in plan
    ), plan
    w.tf("apply", "-auto-approve")
    state = json.loads(w.tf("show", "-json").stdout)
    values = state["values"]["root_module"]["resources"][0]["values"]
    assert (values["cloud"], values["instance_type"], values["region"]) == (
        runner_up.provider,
        runner_up.instance_type,
        runner_up.region,
    )
    assert values["instances"] == runner_up.instances and values["hourly_usd"] == runner_up.hourly_usd
    again = w.tf("plan", "-detailed-exitcode")
    assert again.returncode == 0 and "No changes." in again.stdout, again.stdout


def _reserved_catalog(folder: Path, factors: dict[str, float]) -> Path:
    from reserved_testdata import with_reserved

    from computeops_cdk.catalog._build import build_catalog
    from computeops_cdk.catalog._build import write_catalog as write_built

    folder.mkdir()
    return write_built(build_catalog(with_reserved(folder, factors)), folder / "catalog.json")


@_scenario
def _a_reserved_lock_keeps_its_term_through_state(mirror: Mirror, tmp_path: Path) -> None:
    w = workdir(mirror, tmp_path, "reserved")
    one_year = _reserved_catalog(tmp_path / "one-year", {"ReservedPrice1yr": 0.6})
    both = _reserved_catalog(tmp_path / "both", {"ReservedPrice1yr": 0.6, "ReservedPrice3yr": 0.4})
    from reserved_testdata import RESERVED_CHAT

    w.write("intent.json", json.dumps(RESERVED_CHAT))
    w.write(
        "main.tf",
        REQUIRED
        + """
variable "catalog" { type = string }
variable "auto_relock" {
  type    = bool
  default = false
}
provider "computeops" { catalog = var.catalog }
resource "computeops_placement_lock" "chat" {
  intent         = file("${path.module}/intent.json")
  min_hold_hours = 0
  auto_relock    = var.auto_relock
}
""",
    )
    w.tf("init")
    w.tf("apply", "-auto-approve", f"-var=catalog={one_year}")

    def values() -> dict[str, object]:
        state = json.loads(w.tf("show", "-json").stdout)
        found: dict[str, object] = state["values"]["root_module"]["resources"][0]["values"]
        return found

    locked = values()
    assert (locked["pricing"], locked["term_months"], locked["upfront"]) == ("reserved", 12, "none"), locked
    same = w.tf("plan", "-detailed-exitcode", f"-var=catalog={one_year}")
    assert same.returncode == 0 and "No changes." in same.stdout, same.stdout + same.stderr

    # 3-year reservations appear: the lock keeps its 1-year term, and the warning names the new term.
    warned = w.tf("plan", "-detailed-exitcode", f"-var=catalog={both}")
    text = warned.stdout + warned.stderr
    assert warned.returncode == 0 and "Warning: A cheaper placement is available" in text, text
    assert "Reservation term: 12 months -> 36 months." in text
    relock = w.tf("plan", "-detailed-exitcode", f"-var=catalog={both}", "-var=auto_relock=true")
    text = relock.stdout + relock.stderr
    assert relock.returncode == 2 and "~ term_months" in text and "12 -> 36" in text, text
    assert "Reservation term: 12 months -> 36 months." in text
    w.tf("apply", "-auto-approve", f"-var=catalog={both}", "-var=auto_relock=true")
    assert values()["term_months"] == 36
    steady = w.tf("plan", "-detailed-exitcode", f"-var=catalog={both}", "-var=auto_relock=true")
    assert steady.returncode == 0 and "No changes." in steady.stdout, steady.stdout + steady.stderr


@_scenario
def _the_example_child_module_initialises_and_plans_alone(mirror: Mirror, tmp_path: Path) -> None:
    # The README's example: its root module also needs hashicorp/aws (no registry here), so the
    # computeops part is the child module, which declares only computeops.
    w = workdir(mirror, tmp_path, "example")
    shutil.copytree(ROOT / "examples" / "terraform" / "placement", w.path, dirs_exist_ok=True)
    w.write(
        "terraform.tfvars.json",
        json.dumps({"intent": SUPPORT_CHAT.read_text(encoding="utf-8"), "pin_provider": "aws"}),
    )
    w.tf("init", "-backend=false")
    plan = w.tf("plan").stdout
    expected = json.loads(cli_decision("--provider", "aws"))["decision"]
    assert f'instance_type = "{expected["instance_type"]}"' in plan, plan
    assert f"instances     = {expected['instances']}" in plan


@_scenario
def _the_provider_processes_end_cleanly_in_terraforms_log(mirror: Mirror, tmp_path: Path) -> None:
    # The provider ends each process without the interpreter's teardown (benchmarks/TERRAFORM.md).
    # Exiting with its stdio still open raced go-plugin's reader: about one plan in two logged
    # "[ERROR] provider: error encountered while scanning stdout: ... file already closed".
    w = workdir(mirror, tmp_path, "exits")
    w.write("intent.yaml", SUPPORT_CHAT.read_text(encoding="utf-8"))
    w.write("main.tf", REQUIRED + CHAT_PLACEMENT)  # a plan with nothing to output still reads it
    w.tf("init")
    w.env["TF_LOG"] = "trace"  # on stderr, as a user debugging a plan reads it
    lines = [line for _ in range(8) for line in w.tf("plan").stderr.splitlines()]
    assert sum("plugin process exited" in line for line in lines) >= 24  # three processes a plan
    assert [line for line in lines if "[ERROR]" in line and "provider" in line] == []


def test_lifecycle_with_the_data_source_and_the_lock(outcomes: dict[str, Future[None]]) -> None:
    outcomes["lifecycle_with_the_data_source_and_the_lock"].result()


def test_drift_hysteresis_relock_and_a_vanished_offer(outcomes: dict[str, Future[None]]) -> None:
    outcomes["drift_hysteresis_relock_and_a_vanished_offer"].result()


def test_diagnostics_name_the_attribute_the_rule_and_the_fix(outcomes: dict[str, Future[None]]) -> None:
    outcomes["diagnostics_name_the_attribute_the_rule_and_the_fix"].result()


def test_state_keeps_summary_rejections_unless_all_are_asked_for(outcomes: dict[str, Future[None]]) -> None:
    outcomes["state_keeps_summary_rejections_unless_all_are_asked_for"].result()


def test_import_locks_an_offer_as_it_is(outcomes: dict[str, Future[None]]) -> None:
    outcomes["import_locks_an_offer_as_it_is"].result()


def test_the_example_child_module_initialises_and_plans_alone(outcomes: dict[str, Future[None]]) -> None:
    outcomes["the_example_child_module_initialises_and_plans_alone"].result()


def test_a_reserved_lock_keeps_its_term_through_state(outcomes: dict[str, Future[None]]) -> None:
    outcomes["a_reserved_lock_keeps_its_term_through_state"].result()


def test_the_provider_processes_end_cleanly_in_terraforms_log(outcomes: dict[str, Future[None]]) -> None:
    outcomes["the_provider_processes_end_cleanly_in_terraforms_log"].result()
