"""The boot script builder: validated inputs, sizing from the estimate, no literal secret, real tools."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from boot_tools import as_booted, check_boot, shellcheck
from conftest import make_placement

from computeops_cdk.engine import EstimateSummary
from computeops_cdk.errors import TargetError
from computeops_cdk.targets._boot import Rendezvous, boot_plan, max_num_seqs, parse_secret
from computeops_cdk.targets._boot_script import boot_script, cloud_config

ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf"


def _placement(**changes: Any) -> Any:
    estimate = EstimateSummary(
        tokens_per_s=1.0,
        ttft_ms=None,
        tpot_ms=None,
        model="m",
        # The text says otherwise on purpose: the field, not a parsed sentence, sizes the server.
        assumptions=("tensor parallel 2 x 4 replica(s), 99 request(s) in flight per replica (x)",),
        tensor_parallel=2,
        replicas=4,
        concurrency_per_replica=178,
    )
    return dataclasses.replace(make_placement(**changes), estimate=estimate)


def _plan(options: dict[str, Any] | None = None, **changes: Any) -> Any:
    kind = "training" if changes.get("training") else "inference"
    return boot_plan(
        _placement(**changes),
        options or {},
        name="w",
        kind=kind,
        model="meta-llama/Llama-3.1-70B-Instruct",
        target="aws",
        store="aws_secrets_manager",
    )


def test_server_is_sized_from_the_estimate() -> None:
    plan = _plan()
    assert (plan.tensor_parallel, plan.max_num_seqs, plan.port) == (2, 178, 8000)
    assert max_num_seqs(make_placement()) == 256  # no stated operating point: vLLM's default


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("hf_" + "a" * 34, "looks like a literal Hugging Face token"),
        ("arn:aws:secretsmanager:us-east-1:1:secret:x", "must be a aws secrets manager reference"),
        ("projects/p/secrets/x", "must be a aws secrets manager reference"),
        (42, "got int 42"),
    ],
)
def test_the_secret_is_a_reference_never_a_token(value: object, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_secret(value, store="aws_secrets_manager", target="aws")


@pytest.mark.parametrize(
    "options",
    [
        {"port": 80},
        {"port": True},
        {"model_url": "meta-llama/x; rm -rf /"},
        {"container_image": "vllm/vllm-openai:v1 --privileged"},
        {"env": {"BAD KEY": "x"}},
        {"command": "torchrun train.py"},
        {"user_data": ["echo"]},
    ],
)
def test_malformed_boot_options_are_target_errors(options: dict[str, Any]) -> None:
    with pytest.raises(TargetError, match="To fix:"):
        _plan(options)


def test_user_values_are_quoted_for_the_shell_and_escaped_for_terraform() -> None:
    plan = _plan({"env": {"GREETING": "it's ${HOME} %{x}", "PATHS": "$PATH"}, "hf_token_secret": ARN})
    text = boot_script(plan)
    # The script is plain shell; the stack's one template escape (targets/_escape.py) makes it
    # literal for Terraform where it is written (tested in test_escape.py and the goldens).
    assert "${HOME}" in text and "%{x}" in text and "$${" not in text
    script = check_boot(cloud_config(text), terraform=False)
    assert "printf '%s\\n' 'GREETING=it'\"'\"'s ${HOME} %{x}'" in script
    assert "printf '%s\\n' 'PATHS=$PATH'" in script
    assert f"--secret-id {ARN}" in script


def test_user_data_replaces_the_script_and_user_data_append_adds_to_it() -> None:
    replaced = boot_script(_plan({"user_data": "#!/bin/bash\necho ${USER}\n"}))
    assert replaced == "#!/bin/bash\necho ${USER}\n"
    appended = boot_script(_plan({"user_data_append": "echo finished >> /tmp/x"}))
    assert appended.rstrip().endswith("# --- user_data_append ---\necho finished >> /tmp/x")
    shellcheck(as_booted(appended, terraform=False))
    # A cloud-config of the user's own is used as given.
    assert cloud_config("#cloud-config\nruncmd: []\n") == "#cloud-config\nruncmd: []\n"


def test_training_script_runs_the_container_with_the_rendezvous() -> None:
    plan = _plan({"command": ["torchrun", "--nproc-per-node=8", "train.py"]}, training=True)
    text = boot_script(plan, rendezvous=Rendezvous(rank=2, master_addr="10.0.0.9", nodes=4))
    script = check_boot(cloud_config(text, ssh_key="ssh-ed25519 AAAAC3Nza ops@x"), terraform=False)
    for line in ("NNODES=4", "NODE_RANK=2", 'MASTER_ADDR="10.0.0.9"', "WORLD_SIZE=32"):
        assert line in script
    assert script.rstrip().splitlines()[-2].endswith('"$IMAGE" torchrun --nproc-per-node=8 train.py')
    assert "FI_PROVIDER" not in script  # EFA settings only on an EFA fabric
    with pytest.raises(TargetError, match="not an OpenSSH public key"):
        cloud_config(text, ssh_key="hello")


# --- weights from object storage (weights_uri) ---


def _weights_plan(uri: str, *, store: Any, target: str, **changes: Any) -> Any:
    kind = "training" if changes.get("training") else "inference"
    return boot_plan(
        _placement(**changes),
        {"weights_uri": uri},
        name="w",
        kind=kind,
        model="meta-llama/Llama-3.1-70B-Instruct",
        target=target,
        store=None,
        weights_store=store,
    )


@pytest.mark.parametrize(
    ("uri", "store", "target", "copy"),
    [
        (
            "s3://my-models/llama/70b",
            "s3",
            "aws",
            "aws s3 sync --only-show-errors --region us-east-1 s3://my-models/llama/70b "
            "/opt/computeops/weights",
        ),
        (
            "gs://my-models/llama/70b/",
            "gcs",
            "gcp",
            "gcloud storage rsync --recursive --quiet gs://my-models/llama/70b /opt/computeops/weights",
        ),
        (
            "https://mymodels.blob.core.windows.net/models/llama-70b",
            "azure_blob",
            "azure",
            "python3 - mymodels models llama-70b /opt/computeops/weights <<'PY'",
        ),
    ],
)
def test_weights_uri_copies_the_bucket_and_vllm_serves_the_copy(
    uri: str, store: Any, target: str, copy: str
) -> None:
    plan = _weights_plan(uri, store=store, target=target)
    script = check_boot(cloud_config(boot_script(plan)), terraform=False)
    assert copy in script
    assert "-v /opt/computeops/weights:/weights:ro" in script
    assert '--model /weights --served-model-name "$MODEL"' in script
    assert "MODEL=meta-llama/Llama-3.1-70B-Instruct" in script  # clients still ask for the model by name
    assert script.index(copy) < script.index("docker run")  # copied before the server starts
    assert "AccountKey" not in script and "sig=" not in script  # no key, no SAS: the machine's identity


def test_azure_weights_downloader_is_valid_python() -> None:
    from computeops_cdk.targets._weights import _AZURE_FETCH

    compile(_AZURE_FETCH, "fetch", "exec")
    assert "${" not in _AZURE_FETCH and "%{" not in _AZURE_FETCH


def test_training_mounts_the_weights_too() -> None:
    plan = _weights_plan("gs://bkt/base", store="gcs", target="gcp", training=True)
    script = check_boot(
        boot_script(plan, rendezvous=Rendezvous(rank=0, master_addr="", nodes=2)), terraform=False
    )
    assert "-v /opt/computeops/weights:/weights:ro" in script and "--served-model-name" not in script


@pytest.mark.parametrize(
    ("uri", "store", "message"),
    [
        ("gs://bucket/x", "s3", "is a Google Cloud Storage URI, but the workload runs on aws"),
        ("s3://bucket/x", "azure_blob", "is a Amazon S3 URI, but the workload runs on azure"),
        ("https://acct.blob.core.windows.net/c/x", "gcs", "is a Azure Blob Storage URI, but"),
        ("s3://bucket/a b", "s3", "must be a Amazon S3 URI s3://"),
        ("s3://bucket/$(reboot)", "s3", "must be a Amazon S3 URI"),
        ("s3://bucket/a/../b", "s3", "must be a Amazon S3 URI"),
        ("https://example.com/weights", "azure_blob", "must be a Azure Blob Storage URI"),
        (42, "gcs", "got int 42"),
    ],
)
def test_a_bad_or_foreign_weights_uri_is_a_target_error(uri: object, store: Any, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        _weights_plan(uri, store=store, target={"s3": "aws", "gcs": "gcp", "azure_blob": "azure"}[store])  # type: ignore[arg-type]


def test_a_target_without_object_storage_refuses_weights_uri_with_its_reason() -> None:
    with pytest.raises(TargetError, match="nebius cannot read 'weights_uri' at boot: no identity"):
        boot_plan(
            _placement(),
            {"weights_uri": "s3://b/x"},
            name="w",
            kind="inference",
            model="m/x",
            target="nebius",
            store=None,
            unsupported_weights="no identity",
        )


# --- Cloud TPU VMs ---


def _tpu_plan(options: dict[str, Any] | None = None, **changes: Any) -> Any:
    kind = "training" if changes.get("training") else "inference"
    return boot_plan(
        _placement(provider="gcp", instance_type="tpu-v6e-8", accelerator="TPU-v6e", **changes),
        options or {},
        name="t",
        kind=kind,
        model="meta-llama/Llama-3.1-8B-Instruct",
        target="gcp",
        store="gcp_secret_manager",
        tpu=True,
    )


def test_tpu_inference_runs_vllms_tpu_image_on_a_single_host_slice() -> None:
    plan = _tpu_plan({"hf_token_secret": "projects/p/secrets/hf"})
    script = check_boot(boot_script(plan), terraform=False)
    assert "IMAGE=vllm/vllm-tpu:v0.11.1" in script
    assert "--privileged --net host" in script and "--gpus" not in script
    assert '--entrypoint python3 "$IMAGE" -m vllm.entrypoints.openai.api_server' in script
    assert "--tensor-parallel-size 2 --max-num-seqs 178" in script
    assert "worker-network-endpoints" in script and "single-host" in script  # refuses a multi-host slice
    assert "gcloud secrets versions access latest --secret=projects/p/secrets/hf" in script


def test_tpu_training_runs_on_every_host_and_slices_meet_at_the_coordinator() -> None:
    plan = _tpu_plan({"command": ["python3", "train.py"]}, training=True)
    first = check_boot(
        boot_script(plan, rendezvous=Rendezvous(rank=0, master_addr="", nodes=2)), terraform=False
    )
    second = check_boot(
        boot_script(plan, rendezvous=Rendezvous(rank=1, master_addr="10.0.0.7", nodes=2)), terraform=False
    )
    assert "us-central1-docker.pkg.dev/tpu-pytorch-releases/docker/xla:r2.7.0_3.10_tpuvm" in first
    assert "MEGASCALE_NUM_SLICES=2" in first and "MEGASCALE_SLICE_ID=0" in first
    assert 'COORDINATOR="10.0.0.7"' in second and "MEGASCALE_SLICE_ID=1" in second
    assert "agent-worker-number" in first and "PJRT_DEVICE=TPU" in first
    single = check_boot(boot_script(plan), terraform=False)
    assert "MEGASCALE" not in single  # one slice: the TPU runtime finds its hosts itself


def test_every_gpu_of_a_machine_serves_a_replica() -> None:
    # The decision: TP 2 x 4 replicas; one machine of 8 GPUs holds all 4 (regression: one vLLM of TP 2
    # on --gpus all served 1 replica, a quarter of the sized throughput).
    plan = _plan()
    assert (plan.tensor_parallel, plan.data_parallel) == (2, 4)
    script = boot_script(plan)
    assert "--tensor-parallel-size 2 --data-parallel-size 4 --max-num-seqs 178" in script
    shellcheck(script)
    whole = _plan(accelerators_per_instance=2)  # one replica fills the machine: no DP flag
    assert whole.data_parallel == 1 and "--data-parallel-size" not in boot_script(whole)


@pytest.mark.parametrize(
    ("precision", "flags"),
    [("fp8", "--quantization fp8"), ("fp16", "--dtype float16"), ("bf16", "--max-num-seqs 178\n")],
)
def test_the_intents_precision_is_served(precision: str, flags: str) -> None:
    plan = boot_plan(
        _placement(),
        {},
        name="w",
        kind="inference",
        model="meta-llama/Llama-3.1-70B-Instruct",
        target="aws",
        store=None,
        precision=precision,
    )
    script = boot_script(plan)
    assert flags in script
    if precision == "bf16":
        assert "--quantization" not in script and "--dtype" not in script


def test_a_precision_vllm_cannot_apply_online_is_refused_unless_the_checkpoint_is_named() -> None:
    def plan(options: dict[str, Any]) -> Any:
        return boot_plan(
            _placement(),
            options,
            name="w",
            kind="inference",
            model="m/x",
            target="aws",
            store=None,
            precision="int4",
        )

    with pytest.raises(TargetError, match="precision 'int4' needs a pre-quantized checkpoint"):
        plan({})
    named = plan({"model_url": "org/model-awq-int4"})
    assert named.precision_args == () and '--model "$MODEL"' in boot_script(named)
    training = boot_plan(
        _placement(training=True),
        {},
        name="w",
        kind="training",
        model="m/x",
        target="aws",
        store=None,
        precision="int4",
    )
    assert training.precision_args == ()


def test_a_partial_secrets_manager_arn_is_refused_with_how_to_get_the_full_one() -> None:
    # Regression: accepted, while the instance role is granted exactly that string: AccessDenied at boot.
    with pytest.raises(TargetError, match=r"partial Secrets Manager ARN .* describe-secret --secret-id NAME"):
        parse_secret(
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token",
            store="aws_secrets_manager",
            target="aws",
        )
    assert parse_secret(ARN, store="aws_secrets_manager", target="aws") is not None


def test_the_token_is_read_in_the_secrets_region_not_the_machines() -> None:
    secret = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:hf-token-AbCdEf"
    script = boot_script(_plan({"hf_token_secret": secret}, region="us-east-1"))
    assert f"get-secret-value --region eu-west-1 --secret-id {secret}" in script
    shellcheck(script)


def test_a_server_that_never_answers_health_fails_the_boot() -> None:
    # Regression: after the hour the loop ended and the script exited 0, a "successful" boot serving nothing.
    script = boot_script(_plan())
    wait = script[script.index("healthy=0") :]
    assert 'if [ "$healthy" -ne 1 ]; then' in wait and "exit 1" in wait
    assert "did not answer /health on port 8000 within an hour" in wait
    shellcheck(script)


# --- the serving API key (api_key_secret) ---

KEY_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:vllm-key-AbCdEf"


@pytest.mark.parametrize(
    ("store", "reference", "reads"),
    [
        (
            "aws_secrets_manager",
            KEY_ARN,
            f"VLLM_API_KEY=$(aws secretsmanager get-secret-value --region eu-west-1 --secret-id {KEY_ARN}",
        ),
        (
            "gcp_secret_manager",
            "projects/p/secrets/vllm-key/versions/3",
            "VLLM_API_KEY=$(gcloud secrets versions access 3 --secret=projects/p/secrets/vllm-key --quiet)",
        ),
        (
            "azure_key_vault",
            "https://my-vault.vault.azure.net/secrets/vllm-key",
            'VLLM_API_KEY=$(curl -fsS -H "Authorization: Bearer $AZ_TOKEN" '
            "'https://my-vault.vault.azure.net/secrets/vllm-key?api-version=7.4'",
        ),
    ],
)
def test_the_api_key_is_read_at_boot_and_reaches_vllm_in_its_environment_only(
    store: Any, reference: str, reads: str
) -> None:
    plan = boot_plan(
        _placement(),
        {"api_key_secret": reference},
        name="w",
        kind="inference",
        model="Qwen/Qwen2.5-72B-Instruct",
        target="t",
        store=store,
    )
    script = check_boot(boot_script(plan))
    assert reads in script
    assert 'printf "VLLM_API_KEY=%s\\n" "$VLLM_API_KEY" >> /opt/computeops/workload.env' in script
    assert "unset VLLM_API_KEY" in script
    # The environment file reaches the container; the key is on no command line (ps) and not in Terraform.
    (run,) = [line for line in script.splitlines() if line.startswith("docker run")]
    assert "--env-file /opt/computeops/workload.env" in script[script.index(run) :]
    assert "--api-key" not in script
    # The load balancers' probe and the wait use /health, which vLLM leaves open with a key set.
    assert "http://127.0.0.1:8000/health" in script


def test_an_empty_api_key_stops_the_boot_instead_of_serving_without_one() -> None:
    script = boot_script(_plan({"api_key_secret": KEY_ARN}))
    assert 'if [ -z "$VLLM_API_KEY" ]; then' in script
    after = script[script.index('if [ -z "$VLLM_API_KEY" ]') :]
    assert after.index("exit 1") < after.index("docker run")


def test_without_an_api_key_the_script_sets_none() -> None:
    assert "VLLM_API_KEY" not in boot_script(_plan({"hf_token_secret": ARN}))


@pytest.mark.parametrize(
    ("options", "kind", "store", "message"),
    [
        ({"api_key_secret": "sk-live-123"}, "inference", "aws_secrets_manager", "never the secret itself"),
        # Reviewer: this said "looks like a literal Hugging Face token" for the API key's option.
        (
            {"api_key_secret": "hf_" + "a" * 30},
            "inference",
            "gcp_secret_manager",
            r"^t option 'api_key_secret' looks like a literal secret \('hf_\.\.\.'\), not a reference: a "
            r"secret in Terraform would land in the state and the plan\. To fix: .*'api_key_secret'",
        ),
        ({"api_key_secret": KEY_ARN}, "training", "aws_secrets_manager", "applies to inference only"),
        ({"api_key_secret": "k"}, "inference", None, "cannot read 'api_key_secret' at boot: no store here"),
    ],
)
def test_bad_api_key_references_are_refused(
    options: dict[str, Any], kind: str, store: Any, message: str
) -> None:
    with pytest.raises(TargetError, match=message):
        boot_plan(
            _placement(training=kind == "training"),
            options,
            name="w",
            kind=kind,
            model="m/x",
            target="t",
            store=store,
            unsupported_secret="no store here",
        )


def test_a_public_endpoint_says_whether_vllm_requires_a_key() -> None:
    from computeops_cdk.targets._base import TargetProps
    from computeops_cdk.targets._boot import public_access_note

    def note(options: dict[str, Any]) -> str:
        return public_access_note(
            TargetProps(name="w", model="m/x", workload_type="inference", options=options)
        )

    assert "has no API key" in note({"expose": "public"}) and "api_key_secret" in note({"expose": "public"})
    assert "requires the API key" in note({"expose": "public", "api_key_secret": KEY_ARN})
