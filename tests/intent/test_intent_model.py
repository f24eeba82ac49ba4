"""WorkloadIntent: parsing, cross-field rules, pinned error messages, canonical form, schema."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from computeops_cdk.errors import IntentError
from computeops_cdk.intent import DEFAULT_WEIGHTS, Residency, WorkloadIntent
from computeops_cdk.intent._schema import intent_json_schema, schema_text
from computeops_cdk.intent._yaml import _Loader

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


def base(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "computeops.dev/v1",
        "kind": "WorkloadIntent",
        "name": "chat",
        "workload": {
            "type": "inference",
            "model": {"name": "llama-3.1-8b", "precision": "bf16"},
            "serving": {"output_tokens_per_s": 1000},
        },
    }
    doc.update(overrides)
    return doc


def error_of(doc: dict[str, Any]) -> IntentError:
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_dict(doc)
    return caught.value


def with_workload(**fields: Any) -> dict[str, Any]:
    doc = base()
    doc["workload"] = {**doc["workload"], **fields}
    return doc


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_parses_and_validates_against_the_schema(path: Path) -> None:
    intent = WorkloadIntent.from_file(path)
    assert intent.api_version == "computeops.dev/v1"
    jsonschema.validate(yaml.load(path.read_text(), Loader=_Loader), intent_json_schema())


def test_committed_schema_is_the_exported_one() -> None:
    assert (ROOT / "schemas" / "intent.schema.json").read_text(encoding="utf-8") == schema_text()
    jsonschema.Draft202012Validator.check_schema(intent_json_schema())


@pytest.mark.parametrize(
    ("doc", "path", "message"),
    [
        (
            with_workload(serving={"output_tokens_per_s": -5}),
            "workload.serving.output_tokens_per_s",
            "workload.serving.output_tokens_per_s: must be > 0 (got -5)",
        ),
        (
            with_workload(serving={"output_tokens_per_s": 5, "ttft": 3}),
            "workload.serving.ttft",
            "workload.serving.ttft: unknown field (allowed: output_tokens_per_s, input_tokens, "
            "output_tokens, ttft_ms, tpot_ms, engine, engine_version, prefix_cache_share) "
            "(did you mean 'ttft_ms'?)",
        ),
        (
            with_workload(serving={"output_tokens_per_s": 5, "prefix_cache_share": 1.5}),
            "workload.serving.prefix_cache_share",
            "workload.serving.prefix_cache_share: must be <= 1 (got 1.5)",
        ),
        (
            with_workload(training={"tokens": 1e9}),
            "workload.training",
            "workload.training: only allowed for training and fine_tuning workloads",
        ),
        (
            with_workload(type="training"),
            "workload.serving",
            "workload.serving: only allowed for inference workloads",
        ),
        (
            {**with_workload(type="fine_tuning", serving=None)},
            "workload.training",
            "workload.training: required for a fine_tuning workload",
        ),
        (
            with_workload(type="inferense"),
            "workload.type",
            "workload.type: must be one of 'inference', 'training' or 'fine_tuning' (got 'inferense') "
            "(did you mean 'inference'?)",
        ),
        (
            with_workload(model={"name": "llama-3.1-7b"}),
            "workload.model.name",
            "workload.model.name: unknown model 'llama-3.1-7b'. To fix: use a model the registry knows "
            "(computeops estimate --help lists them) or give params_b (did you mean 'llama-3.1-70b' or "
            "'llama-3.1-8b' or 'llama-3.3-70b'?)",
        ),
        (
            with_workload(model={"name": "llama-3.1-70b", "params_b": 7}),
            "workload.model.params_b",
            "workload.model.params_b: llama-3.1-70b has 70.6B parameters in the model registry (got 7). "
            "To fix: leave params_b out for a known model, or rename the model",
        ),
        (
            with_workload(model={"name": "mine", "params_b": 7, "active_params_b": 9}),
            "workload.model.active_params_b",
            "workload.model.active_params_b: must be <= params_b (7) (got 9)",
        ),
        (
            base(constraints={"compliance": ["hipa"]}),
            "constraints.compliance[0]",
            "constraints.compliance[0]: unknown compliance scope 'hipa' (known: soc2, iso27001, hipaa, "
            "fedramp_moderate, fedramp_high, pci_dss, gdpr) (did you mean 'hipaa'?)",
        ),
        (
            base(constraints={"providers": {"allow": ["aws", "lamda"]}}),
            "constraints.providers.allow[1]",
            "constraints.providers.allow[1]: unknown provider 'lamda' (known: aws, gcp, azure, oci, "
            "coreweave, lambda, nebius, crusoe, runpod, vast) (did you mean 'lambda'?)",
        ),
        (
            base(constraints={"providers": {"allow": ["aws"], "exclude": ["vast"]}}),
            "constraints.providers",
            "constraints.providers: give exactly one of allow or exclude",
        ),
        (
            base(constraints={"residency": {"countries": ["US"], "continents": ["NA"]}}),
            "constraints.residency",
            "constraints.residency: give exactly one of countries, continents or regions (got 2: countries, "
            "continents)",
        ),
        (
            base(constraints={"residency": {"countries": ["usa"]}}),
            "constraints.residency.countries[0]",
            "constraints.residency.countries[0]: 'usa' is not an ISO 3166-1 alpha-2 code (two upper-case "
            "letters, e.g. 'DE')",
        ),
        (
            base(constraints={"residency": {"continents": ["EUR"]}}),
            "constraints.residency.continents[0]",
            "constraints.residency.continents[0]: unknown continent 'EUR' (known: AF, AN, AS, EU, NA, OC, "
            "SA) (did you mean 'EU'?)",
        ),
        (
            base(constraints={"residency": {"regions": ["us-east-1"]}}),
            "constraints.residency.regions[0]",
            "constraints.residency.regions[0]: 'us-east-1' is not a region id. To fix: write "
            "provider:region, e.g. 'aws:us-east-1'",
        ),
        (
            base(constraints={"pricing": ["spott"]}),
            "constraints.pricing[0]",
            "constraints.pricing[0]: must be one of 'on_demand', 'spot' or 'reserved' (got 'spott') "
            "(did you mean 'spot'?)",
        ),
        (
            base(constraints={"max_total_usd": 100}),
            "constraints.max_total_usd",
            "constraints.max_total_usd: only applies to training and fine_tuning workloads. To fix: use "
            "max_hourly_usd or max_monthly_usd for a service",
        ),
        (
            base(preferences={"weights": {k: 0 for k in DEFAULT_WEIGHTS}}),
            "preferences.weights",
            "preferences.weights: at least one weight must be > 0 (got all 0)",
        ),
        (
            base(preferences={"weights": {"cost": -1}}),
            "preferences.weights.cost",
            "preferences.weights.cost: must be >= 0 (got -1)",
        ),
        (
            base(name="Support Chat"),
            "name",
            None,
        ),
        (
            base(apiVersion="computeops.dev/v2"),
            "apiVersion",
            "apiVersion: must be 'computeops.dev/v1' (got 'computeops.dev/v2')",
        ),
        (
            {**base(), "workload": None},
            "workload",
            None,
        ),
    ],
)
def test_bad_input_names_the_field_path(doc: dict[str, Any], path: str, message: str | None) -> None:
    err = error_of(doc)
    assert err.path == path
    if message is not None:
        assert str(err) == message


def test_several_problems_are_all_listed() -> None:
    err = error_of(base(constraints={"compliance": ["hipa"], "providers": {"exclude": ["vastai"]}}))
    assert err.path == "constraints.compliance[0]"
    assert err.suggestions == ["hipaa"]
    lines = str(err).splitlines()
    assert lines[0].endswith("(did you mean 'hipaa'?)")
    assert lines[1].startswith("  also constraints.providers.exclude[0]: unknown provider 'vastai'")


def _serving(**fields: Any) -> dict[str, Any]:
    return with_workload(serving={"output_tokens_per_s": 1000, **fields})


def test_a_prompt_beyond_a_known_models_context_window() -> None:
    # llama-3.1-8b reads 131,072 tokens; an unknown model's window is only a default, never enforced.
    assert str(error_of(_serving(input_tokens=500_000))) == (
        "workload.serving.input_tokens: input_tokens + output_tokens (500,256) exceed the context window "
        "of llama-3.1-8b (131,072 tokens). To fix: shorten the prompt or the completion"
    )
    custom = with_workload(
        model={"name": "my-model", "params_b": 8},
        serving={"output_tokens_per_s": 1000, "input_tokens": 500_000},
    )
    assert WorkloadIntent.from_dict(custom).workload.serving is not None


def test_a_huge_value_in_the_wrong_place_is_shown_shortened() -> None:
    err = error_of(base(constraints=list(range(1000))))
    shown = str(list(range(1000)))[:77] + "..."
    assert str(err) == f"constraints: must be a mapping of fields (key: value) (got {shown})"


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        # YAML 1.1 reads `yes`/`on`/`true` as booleans, and pydantic would take them as 1.
        (
            _serving(ttft_ms=True),
            "workload.serving.ttft_ms: got true, but this field is not a yes/no flag. To fix: write a "
            "number or a name (quote yes/no/on/off when you mean the word)",
        ),
        (
            with_workload(model={"name": ""}),
            "workload.model.name: must not be empty",
        ),
        (base(name="a" * 64), "name: must be at most 63 characters (got 64)"),
    ],
)
def test_booleans_and_string_lengths(doc: dict[str, Any], expected: str) -> None:
    assert str(error_of(doc)) == expected


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        # NaN used to pass the > 0 checks or read "must be <= 1e+09 (got nan)"; .inf has no JSON form.
        (
            _serving(output_tokens_per_s=float("nan")),
            "workload.serving.output_tokens_per_s: must be a finite number (not .nan or .inf) (got nan)",
        ),
        (
            base(constraints={"max_hourly_usd": float("inf")}),
            "constraints.max_hourly_usd: must be a finite number (not .nan or .inf) (got inf)",
        ),
        # YAML words, not pydantic's ("Input should be a valid tuple", "instance of Serving").
        (
            _serving(output_tokens_per_s="lots"),
            "workload.serving.output_tokens_per_s: must be a number (got 'lots')",
        ),
        (_serving(input_tokens=1.5), "workload.serving.input_tokens: must be a whole number (got 1.5)"),
        (
            with_workload(serving=[1, 2]),
            "workload.serving: must be a mapping of fields (key: value) (got [1, 2])",
        ),
        (
            base(constraints={"compliance": "hipaa"}),
            "constraints.compliance: must be a list (got 'hipaa'; write [hipaa])",
        ),
        (
            base(constraints={"pricing": []}),
            "constraints.pricing: must list at least 1 item (got [])",
        ),
        (
            base(name="Support Chat"),
            "name: must be lower-case letters, digits and '-', starting and ending with a letter or digit "
            "(e.g. 'support-chat') (got 'Support Chat')",
        ),
        # An unquoted date is parsed by YAML: show what was written, not datetime.date(...).
        (
            base(name=datetime.date(2024, 1, 1)),
            "name: must be a string (quote it) (got '2024-01-01')",
        ),
        (
            base(constraints={"residency": {"regions": ["aws2:us-east-1"]}}),
            "constraints.residency.regions[0]: unknown provider 'aws2' in region id 'aws2:us-east-1' "
            "(known: aws, gcp, azure, oci, coreweave, lambda, nebius, crusoe, runpod, vast) "
            "(did you mean 'aws:us-east-1'?)",
        ),
    ],
)
def test_type_errors_speak_yaml(doc: dict[str, Any], expected: str) -> None:
    assert str(error_of(doc)) == expected


def test_missing_required_field() -> None:
    err = error_of({"workload": base()["workload"]})
    assert str(err) == "name: required field is missing"


def test_not_a_mapping() -> None:
    with pytest.raises(IntentError, match=r"^an intent must be a mapping of fields \(got list\)$"):
        WorkloadIntent.from_yaml("- a\n- b\n")


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nworkload: [1\nconstraints: {}\n")
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_file(bad)
    # libyaml's words where PyYAML has it (its pure-Python parser's otherwise)
    problem = (
        "did not find expected ',' or ']'" if yaml.__with_libyaml__ else "expected ',' or ']', but got ':'"
    )
    fix = "To fix: close the list with ']', or separate its items with ','"
    assert str(caught.value) == f"{bad}: invalid YAML at line 3, column 12: {problem}. {fix}"


def test_json_file_and_its_syntax_errors(tmp_path: Path) -> None:
    good = tmp_path / "i.json"
    good.write_text(json.dumps(base()))
    assert WorkloadIntent.from_file(good).name == "chat"
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x",\n "workload": }')
    with pytest.raises(IntentError, match=r"bad.json: invalid JSON at line 2, column 14: Expecting value$"):
        WorkloadIntent.from_file(bad)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_file(tmp_path / "nope.yaml")
    assert str(caught.value) == (
        f"intent file not found: {tmp_path / 'nope.yaml'}. To fix: pass the path of a YAML or JSON intent "
        "(see examples/)"
    )


def test_unreadable_files_say_what_is_wrong_and_how_to_fix_it(tmp_path: Path) -> None:
    def message(path: Path) -> str:
        with pytest.raises(IntentError) as caught:
            WorkloadIntent.from_file(path)
        return str(caught.value)

    assert message(tmp_path) == (
        f"{tmp_path} is a directory, not an intent file. To fix: pass the YAML or JSON file itself "
        "(e.g. examples/support-chat.yaml)"
    )
    empty = tmp_path / "empty.yaml"
    empty.write_text("  \n")
    assert message(empty) == (
        f"{empty} is empty. To fix: write an intent in it (computeops decide --help shows one)"
    )
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x88\xff\x00")
    assert message(binary) == (
        f"{binary} is not a text file (not UTF-8). To fix: pass a YAML or JSON intent (see examples/)"
    )


def test_a_duplicate_yaml_key_is_an_error_not_the_last_one_wins() -> None:
    text = "name: a\nname: b\nworkload: {}\n"
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml(text, source="i.yaml")
    assert str(caught.value) == (
        "i.yaml: invalid YAML at line 2, column 1: duplicate key 'name' (each field may appear once)"
    )


def test_a_duplicate_json_key_is_an_error_too(tmp_path: Path) -> None:
    path = tmp_path / "i.json"
    path.write_text('{"name": "a", "name": "b"}', encoding="utf-8")
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_file(path)
    assert str(caught.value) == f"{path}: invalid JSON: duplicate key 'name' (each field may appear once)"


def test_yaml_1_2_floats() -> None:
    intent = WorkloadIntent.from_yaml(
        "name: t\nworkload:\n  type: training\n  model: {name: llama-3.1-8b}\n  training: {tokens: 1.0e12}\n"
    )
    assert intent.workload.training is not None and intent.workload.training.tokens == 1e12


def test_defaults_are_documented_values() -> None:
    intent = WorkloadIntent.from_dict(base())
    assert intent.constraints.pricing == ("on_demand",)
    assert intent.preferences.weights.as_dict() == DEFAULT_WEIGHTS
    assert intent.workload.model.precision == "bf16"
    assert intent.workload.serving is not None and intent.workload.serving.input_tokens == 1024


def test_sha256_is_canonical_defaults_filled_and_order_free() -> None:
    short = WorkloadIntent.from_dict(base())
    explicit = WorkloadIntent.from_dict(
        base(constraints={"pricing": ["on_demand"]}, preferences={"weights": DEFAULT_WEIGHTS})
    )
    reordered = WorkloadIntent.from_dict(dict(reversed(list(base().items()))))
    assert short.sha256 == explicit.sha256 == reordered.sha256
    assert short.sha256 != WorkloadIntent.from_dict(base(name="other")).sha256
    assert json.loads(short.canonical_json()) == short.to_dict()


def test_yaml_round_trip() -> None:
    for path in EXAMPLES:
        intent = WorkloadIntent.from_file(path)
        assert WorkloadIntent.from_yaml(intent.to_yaml()) == intent


def test_frozen_and_factories() -> None:
    assert Residency.in_countries("DE", "FR").countries == ("DE", "FR")
    assert Residency.in_continents("EU").continents == ("EU",)
    assert Residency.in_regions("aws:eu-central-1").regions == ("aws:eu-central-1",)
    intent = WorkloadIntent.from_dict(base())
    with pytest.raises(Exception, match="frozen"):
        intent.name = "x"  # type: ignore[misc]


def test_unknown_model_with_params_is_accepted() -> None:
    intent = WorkloadIntent.from_dict(with_workload(model={"name": "in-house-13b", "params_b": 13}))
    assert intent.workload.model.params_b == 13


def test_a_path_or_text_of_the_wrong_type_is_an_intent_error() -> None:
    # were TypeError (pathlib) and AttributeError (yaml) tracebacks
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_file(42)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "intent path must be a str or os.PathLike (got int). "
        "To fix: pass the path of a YAML or JSON intent (see examples/)"
    )
    with pytest.raises(IntentError) as caught:
        WorkloadIntent.from_yaml(b"name: x")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "<string>: intent text must be a str (got bytes). "
        "To fix: pass the YAML text, or use WorkloadIntent.from_file(path)"
    )


def test_schema_regeneration_refuses_an_option_instead_of_writing_a_file_named_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from computeops_cdk.intent._schema import main

    assert main(["--check"]) == 2 and "usage:" in capsys.readouterr().err
    out = tmp_path / "intent.schema.json"
    assert main([str(out)]) == 0 and out.read_text(encoding="utf-8") == schema_text()


def test_params_b_without_a_name_is_a_model_named_after_its_size() -> None:
    # issue 11: "a model the registry knows, or give params_b" rejected {params_b: 13} with
    # "workload.model.name: required field is missing"
    intent = WorkloadIntent.from_dict(
        {
            "name": "sized",
            "workload": {
                "type": "inference",
                "model": {"params_b": 47, "active_params_b": 13},
                "serving": {"output_tokens_per_s": 100},
            },
        }
    )
    assert intent.workload.model.name == "custom-47b-a13b"
    assert intent.workload.model.params_b == 47
    with pytest.raises(IntentError, match=r"workload\.model\.name"):
        WorkloadIntent.from_dict(
            {
                "name": "x",
                "workload": {"type": "inference", "model": {}, "serving": {"output_tokens_per_s": 1}},
            }
        )


def test_api_version_and_kind_are_optional_but_exact_when_given() -> None:
    # the README says so; an intent without them is accepted, a wrong value is not
    base = {
        "name": "x",
        "workload": {
            "type": "inference",
            "model": {"name": "llama-3.1-8b"},
            "serving": {"output_tokens_per_s": 1},
        },
    }
    assert WorkloadIntent.from_dict(base).kind == "WorkloadIntent"
    with pytest.raises(IntentError, match="apiVersion"):
        WorkloadIntent.from_dict({**base, "apiVersion": "computeops.dev/v2"})
    with pytest.raises(IntentError, match="kind"):
        WorkloadIntent.from_dict({**base, "kind": "Intent"})


def test_a_prefix_cache_share_at_its_default_leaves_the_intent_as_before() -> None:
    """An intent that does not state the share dumps (and so digests and locks) as before v15."""
    doc = with_workload(serving={"output_tokens_per_s": 5})
    plain = WorkloadIntent.from_dict(doc)
    assert "prefix_cache_share" not in json.dumps(plain.to_dict())
    zero = WorkloadIntent.from_dict(
        with_workload(serving={"output_tokens_per_s": 5, "prefix_cache_share": 0})
    )
    assert zero.to_dict() == plain.to_dict()
    half = WorkloadIntent.from_dict(
        with_workload(serving={"output_tokens_per_s": 5, "prefix_cache_share": 0.5})
    )
    assert half.to_dict()["workload"]["serving"]["prefix_cache_share"] == 0.5
