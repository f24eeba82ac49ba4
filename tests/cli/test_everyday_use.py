"""Issue 10 section 4: estimate's exit code, catalog list options, completion, shipped schemas and
the messages' "did you mean"."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml

from computeops_cdk.catalog import load_catalog
from computeops_cdk.cli import main
from computeops_cdk.errors import EstimateError, IntentError, NoFeasiblePlacementError, did_you_mean
from computeops_cdk.intent import WorkloadIntent
from computeops_cdk.schemas import SCHEMA_NAMES, load_schema, schema_path

ROOT = Path(__file__).resolve().parents[2]
SUPPORT_CHAT = ROOT / "examples" / "support-chat.yaml"
_70B = ["--workload", "inference", "--model", "llama-3.1-70b", "--precision", "fp8", "--accelerator", "H100",
        "--count", "8"]  # fmt: skip


def test_estimate_exits_3_when_a_latency_target_is_missed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", *_70B, "--ttft-ms", "0.5", "--format", "json"]) == 3
    out, err = capsys.readouterr()
    assert json.loads(out)["slo_met"] is False  # still printed, so CI can read it and fail
    assert err.startswith("error: llama-3.1-70b on 8 x H100-SXM misses --ttft-ms 0.5 even at batch 1 (TTFT ")
    assert "To fix: raise --count" in err
    assert main(["estimate", *_70B, "--ttft-ms", "2000", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["slo_met"] is True
    assert main(["estimate", *_70B, "--format", "json"]) == 0  # no target, nothing to miss
    assert json.loads(capsys.readouterr().out)["slo_met"] is None


def _list(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["catalog", "list", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_catalog_list_sorts_limits_and_prints_csv(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _list(
        capsys, "--accelerator", "H100", "--sort", "price", "--limit", "5", "--format", "json"
    )
    offers = json.loads(out)["offers"]
    assert code == 0 and len(offers) == 5 and "showing 5 of" in err
    prices = [o["hourly_usd"] for o in offers]
    assert prices == sorted(prices)
    catalog = load_catalog()
    accelerator = {(t.provider, t.name): t.accelerator for t in catalog.instance_types}
    h100 = sorted(
        o.hourly_usd
        for o in catalog.offers
        if o.hourly_usd is not None and accelerator[(o.provider, o.instance_type)] == "H100-SXM"
    )
    assert prices == h100[:5]
    code, out, err = _list(capsys, "--provider", "lambda", "--format", "csv", "--sort", "region")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and err == "" and rows
    assert [r["region"].lower() for r in rows] == sorted(r["region"].lower() for r in rows)
    assert len(rows) == sum(1 for o in catalog.offers if o.provider == "lambda")
    assert list(rows[0]) == ["provider", "instance_type", "accelerator", "accelerator_count", "region",
                             "pricing", "hourly_usd", "source", "as_of",
                             "term_months", "upfront"]  # fmt: skip
    assert {(r["term_months"], r["upfront"]) for r in rows} == {("", "")}  # no reserved offer at lambda


def test_catalog_list_table_shows_a_page_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    from computeops_cdk.cli._catalog._list import TABLE_LIMIT

    code, out, err = _list(capsys)
    assert code == 0 and f"showing {TABLE_LIMIT} of 4," in err
    assert out.splitlines()[0].startswith(f"{TABLE_LIMIT} of 4,")
    code, out, _ = _list(capsys, "--format", "json")  # machines get everything
    assert len(json.loads(out)["offers"]) == len(load_catalog().offers)
    assert _list(capsys, "--json", "--format", "csv")[0] == 2


def test_catalog_list_refuses_a_negative_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["catalog", "list", "--limit", "-1"])
    assert exit_info.value.code == 2
    assert "--limit must be >= 0, 0 for all (got -1)" in capsys.readouterr().err


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_scripts_cover_every_subcommand_and_flag(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    for word in ("decide", "estimate", "catalog", "--rejections", "--plot", "--sort", "summary", "refresh"):
        assert word in script
    if shell == "bash" and shutil.which("bash"):
        check = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True, check=False)
        assert check.returncode == 0, check.stderr


def test_bash_completion_completes_subcommands_and_choices(capsys: pytest.CaptureFixture[str]) -> None:
    bash = shutil.which("bash")
    if bash is None:  # pragma: no cover - every CI image has bash
        pytest.skip("no bash")
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    probe = (
        script
        + "\nCOMP_WORDS=(computeops decide x.yaml --rejections ''); COMP_CWORD=4; _shtab_computeops;"
        + ' echo "${COMPREPLY[*]}"\n'
        + 'COMP_WORDS=(computeops cat); COMP_CWORD=1; _shtab_computeops; echo "${COMPREPLY[*]}"\n'
    )
    result = subprocess.run([bash, "-c", probe], text=True, capture_output=True, check=False)
    assert result.stdout.splitlines()[-2:] == ["all summary", "catalog"], result.stderr


def test_schemas_are_shipped_and_identical_to_the_repository_copies() -> None:
    for name in SCHEMA_NAMES:
        assert schema_path(name).read_bytes() == (ROOT / "schemas" / f"{name}.schema.json").read_bytes(), name
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_the_intent_schema_knows_the_vocabularies_and_the_units() -> None:
    validator = jsonschema.Draft202012Validator(load_schema("intent"))
    good = yaml.safe_load(SUPPORT_CHAT.read_text())
    assert not list(validator.iter_errors(good))
    for where, bad in (
        ("compliance", {"compliance": ["GDPR", "soc-2"]}),
        ("providers", {"providers": {"allow": ["aws", "lamda"]}}),
        ("continents", {"residency": {"continents": ["Europe"]}}),
        ("countries", {"residency": {"countries": ["fr"]}}),
    ):
        doc = {**good, "constraints": bad}
        assert list(validator.iter_errors(doc)), where
        with pytest.raises(IntentError):  # the model refuses the same documents
            WorkloadIntent.from_dict(doc)
    scopes = load_schema("intent")["$defs"]["Constraints"]["properties"]["compliance"]["items"]["enum"]
    doc = {**good, "constraints": {"compliance": ["GDPR", "soc-2"]}}
    messages = [e.message for e in validator.iter_errors(doc)]
    assert messages == [f"{v!r} is not one of {scopes}" for v in ("GDPR", "soc-2")]
    props = load_schema("intent")["$defs"]
    assert "USD per hour" in props["Constraints"]["properties"]["max_hourly_usd"]["description"]
    assert "milliseconds" in props["Serving"]["properties"]["ttft_ms"]["description"]
    assert "billions" in props["ModelRef"]["properties"]["params_b"]["description"]
    decision = load_schema("decision")["$defs"]["placement"]["properties"]
    assert "USD per hour" in decision["hourly_usd"]["description"]
    assert "EU" in decision["continent"]["enum"]


def test_make_schemas_regenerates_every_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from computeops_cdk import schemas

    assert schemas.main(["--check"]) == 2 and "usage:" in capsys.readouterr().err
    source = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas", source)
    (source / "intent.schema.json").write_text("{}", encoding="utf-8")  # stale: regenerated from the model
    files = schemas.regenerated(source)  # what `make schemas` writes (not written here: it is the package)
    expected = (ROOT / "schemas" / "intent.schema.json").read_text(encoding="utf-8")
    assert files[source / "intent.schema.json"] == files[schema_path("intent")] == expected
    assert set(files) == {source / "intent.schema.json", *(schema_path(n) for n in SCHEMA_NAMES)}
    assert "$(PY) -m computeops_cdk.schemas schemas" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_wheel_ships_the_schemas_and_builds_without_warnings(tmp_path: Path) -> None:
    # An isolated build (pip fetches setuptools>=77 into its own environment) of a copy of the tree.
    tree = tmp_path / "src"
    skip = shutil.ignore_patterns(
        ".venv", "node_modules", "cdktf.out", ".git", "*.egg-info", "build", ".*_cache"
    )

    def ignore(folder: str, names: list[str]) -> set[str]:  # the top-level market data is not in the wheel
        return set(skip(folder, names)) | ({"data", "stacks"} if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, tree, ignore=ignore)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(tree)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "SetuptoolsDeprecationWarning" not in result.stderr and "license" not in result.stderr.lower()
    (wheel,) = (tmp_path / "dist").glob("computeops_cdk-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("intent", "decision"):
        assert f"computeops_cdk/schemas/{name}.schema.json" in names
    assert "computeops_cdk/catalog/data/catalog.schema.json" in names
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in metadata


@pytest.mark.parametrize(
    ("name", "choices", "expected"),
    [
        ("llama-4-scout", ["llama-3-8b", "llama-3.1-8b", "mistral-7b"], []),  # nothing close: no guess
        ("lamda", ["lambda", "aws"], ["lambda"]),
        ("fr", ["FR", "DE"], ["FR"]),
        ("mixtral", ["mixtral-8x7b", "llama-3-8b"], ["mixtral-8x7b"]),
    ],
)
def test_did_you_mean_only_when_something_is_close(
    name: str, choices: list[str], expected: list[str]
) -> None:
    assert did_you_mean(name, choices) == expected


def test_an_unknown_model_far_from_every_known_one_gets_no_suggestion() -> None:
    from computeops_cdk.perf import resolve_model

    with pytest.raises(EstimateError) as caught:
        resolve_model("llama-4-scout")
    assert "did you mean" not in str(caught.value)


def test_a_lower_case_country_suggests_the_upper_case_code() -> None:
    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["constraints"]["residency"] = {"countries": ["US", "fr"]}
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    assert caught.value.path == "constraints.residency.countries[1]"
    assert caught.value.suggestions == ["FR"] and str(caught.value).endswith("(did you mean 'FR'?)")


def test_removing_the_pin_never_suggests_a_provider_the_engine_may_not_choose() -> None:
    # Pinned to aws with a budget only marketplace offers meet: the cheapest offer outside the pin is
    # a Vast.ai listing, which target.unsupported (repeatable_plan) rejects once the pin is gone.
    from computeops_cdk.engine import decide
    from computeops_cdk.targets import placement_pin

    doc = yaml.safe_load(SUPPORT_CHAT.read_text())
    doc["workload"]["model"] = {"name": "llama-3.1-8b", "precision": "bf16"}
    doc["workload"]["serving"]["output_tokens_per_s"] = 200
    doc["constraints"] = {"max_hourly_usd": 1}
    intent = WorkloadIntent.from_dict(doc)
    with pytest.raises(NoFeasiblePlacementError) as caught:
        decide(intent, pin=placement_pin(provider="aws"))
    unpinned = [m for m in caught.value.nearest_misses if m.startswith("removing the pin")]
    assert unpinned and not any(" vast " in m for m in unpinned)
    provider = unpinned[0].split()[5]
    assert decide(intent, pin=placement_pin(provider=provider)).chosen is not None  # it really admits it
