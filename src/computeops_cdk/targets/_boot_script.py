"""The boot script itself: the bash a machine runs at first boot, and its cloud-config wrapper.

``_boot`` validates the options into a ``BootPlan``; this module renders it. Every value in the script
is shell-quoted (``_q``) and the script has no ``${`` / ``%{`` of its own (see ``_boot``).
"""

from __future__ import annotations

import re

from ..errors import TargetError, described
from ._boot import (
    _METADATA,
    MEGASCALE_PORT,
    RENDEZVOUS_PORT,
    VLLM_SERVER,
    BootPlan,
    Rendezvous,
    SecretRef,
    _q,
)
from ._weights import WEIGHTS_DIR, download_lines

__all__ = ["boot_script", "cloud_config"]


def _api_key_lines(secret: SecretRef, region: str, env_file: str) -> list[str]:
    """Shell lines that read the API key from the secret store into the container's environment file
    (``VLLM_API_KEY``: vLLM reads it there, and it is on no command line)."""
    return [
        "# The API key vLLM requires of every /v1 request (Authorization: Bearer <key>).",
        *_fetch_secret(secret, region, var="VLLM_API_KEY"),
        'if [ -z "$VLLM_API_KEY" ]; then',
        '  echo "computeops: the API key secret is empty; vLLM would serve without a key. To fix: store '
        'the key in the secret named by api_key_secret." >&2',
        "  exit 1",
        "fi",
        f'printf "VLLM_API_KEY=%s\\n" "$VLLM_API_KEY" >> {env_file}',
        "unset VLLM_API_KEY",
    ]


def _fetch_token(secret: SecretRef, region: str) -> list[str]:
    """Shell lines that set HF_TOKEN from the secret store, with the machine's own identity."""
    return _fetch_secret(secret, region, var="HF_TOKEN")


def _fetch_secret(secret: SecretRef, region: str, *, var: str) -> list[str]:
    """Shell lines that set ``var`` from the secret store, with the machine's own identity."""
    ref = _q(secret.id)
    if secret.store == "aws_secrets_manager":
        # The secret's own region (arn:aws:secretsmanager:REGION:...), which may differ from the machines'.
        return [
            f"{var}=$(aws secretsmanager get-secret-value --region "
            f"{_q(secret.id.split(':')[3])} --secret-id {ref} --query SecretString --output text)",
        ]
    if secret.store == "gcp_secret_manager":
        path, _, version = secret.id.partition("/versions/")
        return [
            f"{var}=$(gcloud secrets versions access {_q(version or 'latest')} --secret={_q(path)} --quiet)",
        ]
    # Azure Key Vault: a token for the VM's managed identity from the instance metadata service.
    return [
        "AZ_TOKEN=$(curl -fsS -H Metadata:true "
        "'http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01"
        "&resource=https%3A%2F%2Fvault.azure.net' | python3 -c 'import json,sys; print(json.load(sys.stdin)"
        '["access_token"])\')',
        f'{var}=$(curl -fsS -H "Authorization: Bearer $AZ_TOKEN" {_q(secret.id + "?api-version=7.4")} '
        "| python3 -c 'import json,sys; print(json.load(sys.stdin)[\"value\"])')",
        "unset AZ_TOKEN",
    ]


_SHEBANG = ["#!/bin/bash", "set -euo pipefail"]
_GPU_RUNTIME = {
    False: "the NVIDIA container toolkit (the default images have both)",
    True: "AMD's GPU driver (amdgpu, ROCm)",
}
"""What the machine image must bring besides Docker, by whether the GPUs are AMD's."""


def _checks(plan: BootPlan) -> list[str]:
    """Logging and the checks every script starts with, for the machine's GPU vendor."""
    lines = [
        "exec >>/var/log/computeops-boot.log 2>&1",
        'echo "computeops: boot script started at $(date -u +%FT%TZ)"',
        "if ! command -v docker >/dev/null 2>&1; then",
        '  echo "computeops: docker is not installed on this image. To fix: use an image with Docker and'
        f' {_GPU_RUNTIME[plan.amd]}, or replace the script with user_data." >&2',
        "  exit 1",
        "fi",
    ]
    if plan.amd:  # without the driver there is no /dev/kfd: docker would start and vLLM find no GPU
        lines += [
            "if [ ! -e /dev/kfd ]; then",
            '  echo "computeops: /dev/kfd is missing: the AMD GPU driver (amdgpu, ROCm) is not loaded on this'
            ' image. To fix: use a ROCm image for the shape, or replace the script with user_data." >&2',
            "  exit 1",
            "fi",
        ]
    return [*lines, "mkdir -p /opt/computeops/cache", "chmod 0700 /opt/computeops"]


def boot_script(plan: BootPlan, *, rendezvous: Rendezvous | None = None) -> str:
    """The bash script a machine runs at first boot (``plan.user_data`` itself when given)."""
    if plan.user_data is not None:
        return plan.user_data  # the user's script reaches the machine as written
    lines = [
        *_SHEBANG,
        f"# computeops-cdk boot script for {plan.name} ({plan.kind}); generated from the decision.",
        "# Replace it with the user_data option, or add to it with user_data_append.",
        *_checks(plan),
    ]
    env_file = "/opt/computeops/workload.env"
    lines += [f": > {env_file}", f"chmod 0600 {env_file}"]
    if plan.secret is not None:
        lines += _fetch_token(plan.secret, plan.region)
        lines += [f'printf "HF_TOKEN=%s\\n" "$HF_TOKEN" >> {env_file}', "unset HF_TOKEN"]
    if plan.api_key is not None:
        lines += _api_key_lines(plan.api_key, plan.region, env_file)
    if plan.env:
        lines += [
            "# The values are literal on purpose (single-quoted: no expansion).",
            "# shellcheck disable=SC2016",
            "{",
        ]
        lines += [f"  printf '%s\\n' {_q(f'{key}={value}')}" for key, value in sorted(plan.env.items())]
        lines.append(f"}} >> {env_file}")
    if plan.weights is not None:
        lines += download_lines(plan.weights, plan.region)
    if plan.tpu:
        lines += _serve_tpu(plan) if plan.serves else _train_tpu(plan, rendezvous)
    else:
        lines += _serve(plan) if plan.serves else _train(plan, rendezvous)
    if plan.append:
        lines += ["# --- user_data_append ---", plan.append.rstrip("\n")]
    return "\n".join(lines) + "\n"


def _model_args(plan: BootPlan) -> str:
    """vLLM's model arguments: the Hugging Face id, or the copied weights served under that name."""
    if plan.weights is None:
        return '--model "$MODEL"'
    return '--model /weights --served-model-name "$MODEL"'


def _weights_mount(plan: BootPlan) -> list[str]:
    return [f"  -v {WEIGHTS_DIR}:/weights:ro \\"] if plan.weights is not None else []


# ROCm's container flags (ROCm/ROCm docs/how-to/rocm-for-ai/training/benchmark-docker/
# pytorch-training.rst @1dbe856): the GPUs are the kfd and dri devices, not the NVIDIA runtime's --gpus.
_ROCM_DEVICES = "--device /dev/kfd --device /dev/dri --group-add video --security-opt seccomp=unconfined"


def _gpus(plan: BootPlan) -> str:
    return _ROCM_DEVICES if plan.amd else "--gpus all"


def _python_health(port: str) -> str:
    """A health check needing only the image's Python (AMD's and the TPU vLLM images)."""
    return f"python3 -c 'import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:{port}/health\")'"


# The server as an image's command, its entrypoint replaced (AMD's vLLM images start a shell; the
# TPU image's entrypoint is not the server either).
_SERVER_IN_IMAGE = f'--entrypoint {VLLM_SERVER.partition(" ")[0]} "$IMAGE" {VLLM_SERVER.partition(" ")[2]}'


def _serve(plan: BootPlan) -> list[str]:
    port = str(plan.port)
    if plan.amd:
        health, server = _q(_python_health(port)), _SERVER_IN_IMAGE
    else:
        health, server = f"'curl -fsS http://127.0.0.1:{port}/health || exit 1'", '"$IMAGE"'
    return [
        f"IMAGE={_q(plan.image)}",
        f"MODEL={_q(plan.model)}",
        "docker rm -f vllm >/dev/null 2>&1 || true",
        f"docker run -d --name vllm --restart unless-stopped {_gpus(plan)} --ipc host \\",
        f"  -p {port}:{port} --env-file /opt/computeops/workload.env \\",
        "  -v /opt/computeops/cache:/root/.cache/huggingface \\",
        *_weights_mount(plan),
        f"  --health-cmd {health} \\",
        "  --health-interval 30s --health-timeout 10s --health-retries 3 --health-start-period 1800s \\",
        f"  {server} {_model_args(plan)} --host 0.0.0.0 --port {port} {plan.server_flags}",
        *_wait_for_health(port),
    ]


def _wait_for_health(port: str) -> list[str]:
    return [
        "# Weights download on first start; wait (at most an hour) until the server answers /health.",
        "healthy=0",
        "for _ in $(seq 1 360); do",
        f"  if curl -fsS http://127.0.0.1:{port}/health >/dev/null 2>&1; then",
        f'    echo "computeops: vLLM serves $MODEL on port {port}"',
        "    healthy=1",
        "    break",
        "  fi",
        "  sleep 10",
        "done",
        # A server that never came up is a failed boot (exit 1, logged), not a success.
        'if [ "$healthy" -ne 1 ]; then',
        f'  echo "computeops: vLLM did not answer /health on port {port} within an hour. To see why: '
        'docker logs vllm (weights download, a gated model without a token, out of memory)." >&2',
        "  exit 1",
        "fi",
    ]


def _serve_tpu(plan: BootPlan) -> list[str]:
    """vLLM's TPU image on a single-host TPU VM (the script exits with the reason on a multi-host slice:
    vLLM's TPU backend serves one host's chips, and every host of a slice boots this script)."""
    port = str(plan.port)
    health = _python_health(port)
    return [
        f"ENDPOINTS=$(curl -fsS -H 'Metadata-Flavor: Google' {_METADATA}/worker-network-endpoints || true)",
        "HOSTS=$(printf '%s' \"$ENDPOINTS\" | tr ',' '\\n' | grep -c . || true)",
        'if [ "${HOSTS:-1}" -gt 1 ]; then',
        '  echo "computeops: this TPU slice has $HOSTS hosts; the generated script serves single-host'
        " slices only (vLLM serves one host's chips). To fix: a single-host slice, or user_data.\" >&2",
        "  exit 1",
        "fi",
        f"IMAGE={_q(plan.image)}",
        f"MODEL={_q(plan.model)}",
        "docker rm -f vllm >/dev/null 2>&1 || true",
        "docker run -d --name vllm --restart unless-stopped --privileged --net host \\",
        "  --shm-size 16g --env-file /opt/computeops/workload.env \\",
        "  -v /opt/computeops/cache:/root/.cache/huggingface \\",
        *_weights_mount(plan),
        f"  --health-cmd {_q(health)} \\",
        "  --health-interval 30s --health-timeout 10s --health-retries 3 --health-start-period 1800s \\",
        f"  {_SERVER_IN_IMAGE} \\",
        f"  {_model_args(plan)} --host 0.0.0.0 --port {port} {plan.server_flags}",
        *_wait_for_health(port),
    ]


def _train_tpu(plan: BootPlan, rendezvous: Rendezvous | None) -> list[str]:
    """The training container on every host of every slice. Within a slice the TPU runtime finds the
    other hosts itself; several slices rendezvous through the multislice (Megascale) coordinator on
    the first slice's first host."""
    slices = rendezvous.nodes if rendezvous else 1
    lines = [
        f"IMAGE={_q(plan.image)}",
        f"WORKER=$(curl -fsS -H 'Metadata-Flavor: Google' {_METADATA}/agent-worker-number || echo 0)",
        "{",
        '  echo "PJRT_DEVICE=TPU"',
        '  echo "TPU_WORKER_ID=$WORKER"',
    ]
    if rendezvous is not None and slices > 1:
        lines += [
            f'  echo "MEGASCALE_NUM_SLICES={slices}"',
            f'  echo "MEGASCALE_SLICE_ID={rendezvous.rank}"',
            f'  echo "MEGASCALE_PORT={MEGASCALE_PORT}"',
        ]
    lines.append("} >> /opt/computeops/workload.env")
    if rendezvous is not None and slices > 1:
        lines += [
            f'COORDINATOR="{rendezvous.master_addr}"',
            "# The first slice's first host coordinates; it uses its own address.",
            'if [ -z "$COORDINATOR" ]; then COORDINATOR=$(hostname -I | cut -d" " -f1); fi',
            f'echo "MEGASCALE_COORDINATOR_ADDRESS=$COORDINATOR:{MEGASCALE_PORT}" \\',
            "  >> /opt/computeops/workload.env",
        ]
    command = " ".join(_q(part) for part in plan.command)
    lines += [
        "docker rm -f trainer >/dev/null 2>&1 || true",
        "docker run -d --name trainer --restart on-failure:3 --privileged --net host --shm-size 16g \\",
        "  --env-file /opt/computeops/workload.env -v /opt/computeops/cache:/root/.cache/huggingface \\",
        *_weights_mount(plan),
        f'  "$IMAGE" {command}',
        'echo "computeops: TPU host $WORKER started the training container"',
    ]
    return lines


def _train(plan: BootPlan, rendezvous: Rendezvous | None) -> list[str]:
    nodes = rendezvous.nodes if rendezvous else 1
    rank = str(rendezvous.rank) if rendezvous else "0"
    master = rendezvous.master_addr if rendezvous else ""
    lines = [
        f"IMAGE={_q(plan.image)}",
        f"NNODES={nodes}",
        f"NODE_RANK={rank}",
        f'MASTER_ADDR="{master}"',
        "# The first node rendezvouses on its own address.",
        'if [ -z "$MASTER_ADDR" ]; then MASTER_ADDR=$(hostname -I | cut -d" " -f1); fi',
        "{",
        '  echo "NNODES=$NNODES"',
        '  echo "NODE_RANK=$NODE_RANK"',
        '  echo "MASTER_ADDR=$MASTER_ADDR"',
        f'  echo "MASTER_PORT={RENDEZVOUS_PORT}"',
        f'  echo "NPROC_PER_NODE={plan.gpus_per_node}"',
        f'  echo "WORLD_SIZE={nodes * plan.gpus_per_node}"',
        "} >> /opt/computeops/workload.env",
        "DEVICES=()",
    ]
    if rendezvous and rendezvous.efa:
        lines += _efa_lines(rendezvous)
    command = _container_command(plan)
    lines += [
        "docker rm -f trainer >/dev/null 2>&1 || true",
        f"docker run -d --name trainer --restart on-failure:3 {_gpus(plan)} --ipc host --network host \\",
        '  --ulimit memlock=-1 --ulimit stack=67108864 "${DEVICES[@]}" \\',
        "  --env-file /opt/computeops/workload.env -v /opt/computeops/cache:/root/.cache/huggingface \\",
        *_weights_mount(plan),
        f'  "$IMAGE" {command}',
        f'echo "computeops: node $NODE_RANK of $NNODES started (rendezvous $MASTER_ADDR:{RENDEZVOUS_PORT})"',
    ]
    return lines


def _container_command(plan: BootPlan) -> str:
    """The training command as words of the ``docker run`` line, each shell-quoted.

    An image whose entrypoint ends in ``eval "$@"`` (``plan.eval_entrypoint``) parses its arguments
    again, so separate words would be split and expanded twice (a user's ``;`` or ``$`` would run).
    There the command goes as one argument, the shell-quoted join of the quoted parts: eval gets back
    exactly the original argv."""
    line = " ".join(_q(part) for part in plan.command)
    return _q(line) if plan.eval_entrypoint else line


def _efa_lines(rendezvous: Rendezvous) -> list[str]:
    """EFA in the training container: the host's EFA devices (``--device``), libfabric's EFA provider,
    and ``NCCL_NET`` held to the aws-ofi-nccl plugin ("AWS Libfabric"), so a missing plugin fails the
    job at start instead of NCCL falling back to TCP sockets. The container must ship the plugin."""
    settings = ["FI_PROVIDER=efa", "NCCL_NET=AWS Libfabric", "NCCL_SOCKET_IFNAME=^lo,docker"]
    if rendezvous.efa_device_rdma:
        settings.insert(1, "FI_EFA_USE_DEVICE_RDMA=1")
    lines = [
        "# EFA: the fabric's devices in the container, libfabric's EFA provider for NCCL.",
        "EFA_FOUND=0",
        "for dev in /dev/infiniband/uverbs*; do",
        '  if [ -e "$dev" ]; then DEVICES+=(--device "$dev"); EFA_FOUND=$((EFA_FOUND + 1)); fi',
        "done",
    ]
    if rendezvous.efa_devices:
        expected = rendezvous.efa_devices
        lines += [
            "# One EFA device per network card: fewer means the launch did not attach them all.",
            f'if [ "$EFA_FOUND" -lt {expected} ]; then',
            f'  echo "computeops: $EFA_FOUND of {expected} EFA devices found under /dev/infiniband.'
            ' To see why: fi_info -p efa, and the network interfaces of this instance." >&2',
            "  exit 1",
            "fi",
        ]
    lines.append(
        "printf '%s\\n' " + " ".join(_q(item) for item in settings) + " >> /opt/computeops/workload.env"
    )
    return lines


_SSH_KEY = re.compile(
    r"^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( [^\n'\"$%{}]*)?$"
)


def cloud_config(script: str, *, ssh_key: str | None = None) -> str:
    """A cloud-config that writes ``script`` to /opt/computeops/boot.sh and runs it once at first boot.

    A user script that is already a cloud-config (``#cloud-config``) is returned as it is.

    Args:
        ssh_key: an OpenSSH public key for a ``computeops`` sudo user. Default: none, no login user is
            added (the image's own access applies).
    """
    if script.startswith("#cloud-config"):
        return script
    body = "".join(f"      {line}\n" if line else "\n" for line in script.splitlines())
    users = ""
    if ssh_key is not None:
        if not _SSH_KEY.match(ssh_key.strip()):
            raise TargetError(
                f"option 'ssh_public_key' is not an OpenSSH public key (got {described(ssh_key)}). "
                "To fix: pass the one line of your ~/.ssh/id_ed25519.pub."
            )
        users = (
            "users:\n"
            "  - name: computeops\n"
            "    groups: [sudo]\n"
            "    shell: /bin/bash\n"
            "    sudo: ALL=(ALL) NOPASSWD:ALL\n"
            f"    ssh_authorized_keys: ['{ssh_key.strip()}']\n"
        )
    return (
        "#cloud-config\n"
        f"{users}"
        "write_files:\n"
        "  - path: /opt/computeops/boot.sh\n"
        "    owner: root:root\n"
        "    permissions: '0700'\n"
        "    content: |\n"
        f"{body}"
        "runcmd:\n"
        "  - [bash, /opt/computeops/boot.sh]\n"
    )
