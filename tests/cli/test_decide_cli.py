"""`computeops decide`, run in-process: output formats, exit codes, messages without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from computeops_cdk.cli import main
from computeops_cdk.engine import decide
from computeops_cdk.targets import placement_pin

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = str(ROOT / "examples" / "support-chat.yaml")
INFEASIBLE = str(ROOT / "examples" / "infeasible-budget.yaml")
SCHEMA = json.loads((ROOT / "schemas" / "decision.schema.json").read_text(encoding="utf-8"))
EMBEDDED = ROOT / "src" / "computeops_cdk" / "catalog" / "data" / "catalog.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["decide", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_the_engines_document_and_matches_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, SUPPORT_CHAT, "--format", "json")
    assert (code, err) == (0, "")
    assert out == decide(SUPPORT_CHAT, pin=placement_pin()).to_json()
    jsonschema.validate(json.loads(out), SCHEMA)


def test_table_marks_the_chosen_row_and_groups_rejections(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT)
    chosen = decide(SUPPORT_CHAT, pin=placement_pin()).chosen
    assert code == 0 and chosen is not None
    marked = next(line for line in out.splitlines() if "✔" in line)
    assert chosen.provider in marked and chosen.instance_type in marked
    for heading in (
        "Considered placements for support-chat",
        "Why",
        "Rejected candidates by rule",
        "Trade-off",
    ):
        assert heading in out
    assert "residency.country" in out


def test_markdown_for_a_pull_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "markdown", "--top", "3")
    assert code == 0
    assert out.startswith("### computeops decision: `support-chat`\n\n**Chosen:** ")
    assert "| ✔ | " in out and "| 4 | " in out and "| 5 | " not in out
    assert " | unit cost (est.) | " in out  # derived from the performance model's throughput
    assert "**Rejected candidates by rule**" in out and "| `memory.fit` |" in out


def test_top_limits_alternatives(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--top", "2")
    assert code == 0 and len(json.loads(out)["alternatives"]) == 2


def test_infeasible_json_still_prints_the_document(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, INFEASIBLE, "--format", "json")
    assert code == 3
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    assert doc["decision"] is None and doc["rejected"] and doc["nearest_misses"]
    assert err.startswith("error: no feasible placement for intent 'infeasible-budget'")


def test_infeasible_table_prints_nearest_misses_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, INFEASIBLE)
    assert (code, out) == (3, "")
    assert "nearest misses:\n  - relaxing max_hourly_usd to " in err
    assert "Traceback" not in err


def test_missing_file_is_exit_2_without_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, str(tmp_path / "nope.yaml"))
    assert (code, out) == (2, "")
    assert err == (
        f"error: intent file not found: {tmp_path / 'nope.yaml'}. To fix: pass the path of a YAML or JSON "
        "intent (see examples/)\n"
    )


def test_bad_yaml_names_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nworkload:\n  type: [inference\n")
    code, _, err = run(capsys, str(bad))
    assert code == 2
    assert err.startswith(f"error: {bad}: invalid YAML at line 4, column 1:")


def test_invalid_intent_is_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        Path(SUPPORT_CHAT).read_text().replace("output_tokens_per_s: 20000", "output_tokens_per_s: -5")
    )
    code, _, err = run(capsys, str(bad))
    assert code == 2
    assert err == "error: workload.serving.output_tokens_per_s: must be > 0 (got -5)\n"


def test_unknown_accelerator_is_exit_2_with_did_you_mean(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    text = Path(SUPPORT_CHAT).read_text()
    bad.write_text(
        text.replace("  max_hourly_usd: 400\n", "  max_hourly_usd: 400\n  accelerators: {allow: [H1000]}\n")
    )
    code, _, err = run(capsys, str(bad))
    assert code == 2
    assert err.startswith("error: constraints.accelerators.allow[0]: unknown accelerator 'H1000'.")
    assert "did you mean" in err


def test_catalog_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--catalog", str(EMBEDDED))
    assert code == 0 and out == decide(SUPPORT_CHAT, pin=placement_pin()).to_json()
    code, _, err = run(capsys, SUPPORT_CHAT, "--catalog", str(tmp_path / "missing.json"))
    assert code == 2 and err.startswith("error: ")


def test_bad_top_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["decide", SUPPORT_CHAT, "--top", "-1"])
    assert caught.value.code == 2
    assert "--top must be >= 0 (got -1)" in capsys.readouterr().err


def test_help_teaches_the_intent(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["decide", "--help"])
    out = capsys.readouterr().out
    for text in ("apiVersion: computeops.dev/v1", "constraints:", "preferences:", "exit codes: 0 decided"):
        assert text in out


def test_same_bytes_from_fresh_processes_with_different_hash_seeds() -> None:
    command = [sys.executable, "-m", "computeops_cdk.cli", "decide", SUPPORT_CHAT, "--format", "json"]
    outputs = {
        subprocess.run(
            command, env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, check=True
        ).stdout
        for seed in ("1", "31337")
    }
    assert len(outputs) == 1


def test_pins_mirror_the_construct_and_only_targets_expressible_placements(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Engine-chosen: every candidate must be expressible as Terraform with a repeatable plan, so
    # Vast.ai listings (ephemeral offer ids) are rejected with target.unsupported, never chosen.
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--top", "50", "--rejections", "all")
    doc = json.loads(out)
    assert code == 0
    assert all(p["provider"] != "vast" for p in [doc["decision"], *doc["alternatives"]])
    vast = [r for r in doc["rejected"] if r["provider"] == "vast"]
    assert vast and all(any(x["rule"] == "target.unsupported" for x in r["reasons"]) for r in vast)
    # Pinned to vast: an explicit, best-effort choice that the pin allows.
    code, out, _ = run(capsys, SUPPORT_CHAT, "--format", "json", "--provider", "vast")
    assert code == 0 and json.loads(out)["decision"]["provider"] == "vast"
    # A cluster needs a node-pool target: lambda has none, so pinning it with --cluster fails.
    code, out, err = run(
        capsys, SUPPORT_CHAT, "--provider", "lambda", "--cluster", "--format", "json", "--rejections", "all"
    )
    doc = json.loads(out)
    assert code == 3 and doc["decision"] is None and "target.unsupported" in err
    # No constraint of the intent is to blame: the fix says so instead of "relax one of the constraints".
    fix = (
        "To fix: the pinned provider's Terraform target (lambda) cannot express kubernetes_node_pool "
        "(the community lambdalabs provider has no Kubernetes resources), which every candidate needs, "
        "so relaxing constraints cannot help: pin a provider whose target can (aws, gcp, azure, "
        "coreweave), or drop the cluster (--cluster / cluster=)."
    )
    assert err.rstrip().splitlines()[-1] == doc["explanation"][-1] == fix
    assert doc["rejections_by_rule"]["target.unsupported"] == len(doc["rejected"])
    assert all(
        any("kubernetes_node_pool" in x["message"] for x in r["reasons"] if x["rule"] == "target.unsupported")
        for r in doc["rejected"]
    )


def test_a_bad_pin_names_the_flag_and_says_how_to_fix_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, SUPPORT_CHAT, "--provider", "awz")
    assert code == 2 and out == ""
    assert err == (
        "error: --provider: unknown provider 'awz'. To fix: pass --provider one of aws, azure, coreweave, "
        "crusoe, gcp, lambda, nebius, oci, runpod, vast, or leave --provider out to let the engine choose "
        "(did you mean 'aws'?)\n"
    )
    code, _, err = run(capsys, SUPPORT_CHAT, "--provider", "aws", "--region", "us-est-1")
    assert code == 2
    assert err.startswith(
        "error: --region: unknown region 'us-est-1' of provider aws. To fix: pass --region a region code "
        "of provider aws as `computeops catalog list --provider aws` shows it, or leave --region out to "
        "let the engine choose (did you mean "
    )
    code, _, err = run(capsys, SUPPORT_CHAT, "--region", "")
    assert code == 2 and err.startswith("error: --region: must be a non-empty string or None (got str '').")


def test_markdown_of_an_infeasible_intent_shows_rejections_misses_and_fix(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, INFEASIBLE, "--format", "markdown")
    doc = json.loads(run(capsys, INFEASIBLE, "--format", "json")[1])
    assert code == 3 and err.startswith("error: no feasible placement")
    assert out.startswith("### computeops decision: `infeasible-budget`: no feasible placement\n")
    # Every rule with its count, as in the JSON document, and every nearest miss.
    for rule, count in doc["rejections_by_rule"].items():
        assert f"| `{rule}` | {count:,} | " in out
    assert "**Nearest misses**" in out and doc["nearest_misses"]
    assert all(f"- {miss}\n" in out for miss in doc["nearest_misses"])
    assert f"**{doc['explanation'][-1]}**" in out and doc["explanation"][-1].startswith("To fix:")


@pytest.mark.parametrize(("serving", "said"), [
    ("    engine: vllm\n    engine_version: 0.5.3\n", "serving engine: vllm 0.5.3"),
    ("    engine: trt-llm\n", "serving engine: tensorrt-llm "),
])  # fmt: skip
def test_decision_says_which_engine_and_version_it_assumed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, serving: str, said: str
) -> None:
    intent = tmp_path / "engine.yaml"
    text = Path(SUPPORT_CHAT).read_text(encoding="utf-8")
    intent.write_text(text.replace("    tpot_ms: 60\n", "    tpot_ms: 60\n" + serving), encoding="utf-8")
    code, out, _ = run(capsys, str(intent), "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert any(a.startswith(said) for a in document["decision"]["estimate"]["assumptions"])
    assert any(said in line for line in document["explanation"])
    for fmt in ("table", "markdown"):
        code, out, _ = run(capsys, str(intent), "--format", fmt)
        assert code == 0 and said in " ".join(out.split())
