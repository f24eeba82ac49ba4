"""The boot script builder: validated inputs, sizing from the estimate, no literal secret, real tools."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from boot_tools import as_booted, check_boot, shellcheck
from conftest import make_placement

from computeops_cdk.engine import EstimateSummary
from computeops_cdk.errors import TargetError
from computeops_cdk.targets._boot import (
    Rendezvous,
    boot_plan,
    boot_script,
    cloud_config,
    max_num_seqs,
    parse_secret,
)

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
