"""Boot plans: what makes a standalone machine run the workload the decision sized.

This module validates a target's options into a ``BootPlan``; ``_boot_script`` renders the plan: one
bash script every VM target boots (wrapped in a cloud-config where the provider takes cloud-init).
Inference starts vLLM's OpenAI-compatible server in a container; training runs the user's container
on every node with the rendezvous (``MASTER_ADDR``, ``NODE_RANK``, ...) wired.

The Hugging Face token and the serving API key are never in Terraform: the script reads them at boot
from the provider's secret store (``SecretRef``; the machine's identity may read that one secret), and
the key reaches vLLM as ``VLLM_API_KEY`` in an environment file, never on a command line (``ps``).
``/health`` stays open without the key, so the load balancers' probes keep working.

The script is built from validated, shell-quoted values and has no ``${`` / ``%{`` of its own: the
only Terraform interpolations are the references a target substitutes (rank, first node's address).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..engine import Placement
from ..errors import TargetError, described
from ._weights import ObjectStore, WeightsSource, parse_weights

__all__ = [
    "BOOT_OPTIONS",
    "DEFAULT_PORT",
    "DEFAULT_ROCM_TRAINING_IMAGE",
    "DEFAULT_TPU_TRAINING_IMAGE",
    "DEFAULT_TRAINING_IMAGE",
    "DEFAULT_VLLM_IMAGE",
    "DEFAULT_VLLM_ROCM_IMAGE",
    "DEFAULT_VLLM_TPU_IMAGE",
    "GATED_HUB_ORGS",
    "RENDEZVOUS_PORT",
    "ROCM_DEFAULTS_FOR",
    "BootPlan",
    "Rendezvous",
    "SecretRef",
    "boot_plan",
    "boot_warnings",
    "is_amd",
    "max_num_seqs",
    "parse_secret",
    "public_access_note",
    "vllm_args",
    "vllm_command",
]

DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:v0.10.0"
"""vLLM's published OpenAI-compatible server image (Docker Hub ``vllm/vllm-openai``, tag v0.10.0)."""
DEFAULT_TRAINING_IMAGE = "nvcr.io/nvidia/pytorch:24.12-py3"
"""NVIDIA's PyTorch container (NGC ``nvidia/pytorch``, release 24.12)."""
DEFAULT_VLLM_TPU_IMAGE = "vllm/vllm-tpu:v0.11.1"
"""vLLM's published TPU server image (Docker Hub ``vllm/vllm-tpu``, the tag Google's
accelerated-platforms reference architecture pins), run ``--privileged --net=host`` with a large
/dev/shm as vllm-project/tpu-inference's installation docs say."""
DEFAULT_VLLM_ROCM_IMAGE = "rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909"
"""AMD's vLLM image for Instinct GPUs (Docker Hub ``rocm/vllm``): the container of AMD's performance
page the MI300X rows of benchmarks/ACCURACY.md were measured with, and the one ROCm 6.4.3's vLLM
benchmark guide pulls. It starts a shell, not the server: the script and the container platforms
run ``python3 -m vllm.entrypoints.openai.api_server`` in it."""
DEFAULT_ROCM_TRAINING_IMAGE = "rocm/pytorch-training:v25.3"
"""AMD's PyTorch training image for MI300X and MI325X (ROCm/ROCm
docs/how-to/rocm-for-ai/training/benchmark-docker/pytorch-training.rst @1dbe856)."""
_INSTINCT = re.compile(r"^MI\d{2,3}[A-Z]?$")
"""AMD Instinct ids (MI25, MI300X, MI355X...): a test keeps it matching the catalog's AMD parts and
none of the others. Decisions carry the accelerator's id, not its vendor."""
ROCM_DEFAULTS_FOR: frozenset[str] = frozenset({"MI300X", "MI325X"})
"""The AMD parts the default ROCm images are documented for (both images' pages: MI300X and MI325X).
Others (MI355X needs ROCm 7; MI25 left ROCm's support) need ``container_image``: no default is
guessed for them."""
_ROCM_SHELL_IMAGES = ("rocm/vllm", "rocm/vllm-dev")
"""AMD's vLLM image repositories, whose images start a shell rather than the server."""


def is_amd(accelerator: str) -> bool:
    """Whether catalog accelerator id ``accelerator`` is an AMD GPU: its machines boot ROCm images
    with the GPUs passed as /dev/kfd and /dev/dri, not ``--gpus``."""
    return bool(_INSTINCT.match(accelerator))


DEFAULT_TPU_TRAINING_IMAGE = "us-central1-docker.pkg.dev/tpu-pytorch-releases/docker/xla:r2.7.0_3.10_tpuvm"
"""PyTorch/XLA's Cloud TPU VM image, release 2.7 (the "Cloud TPU VMs Docker" table of pytorch/xla's
README)."""
DEFAULT_PORT = 8000
RENDEZVOUS_PORT = 29500
DEFAULT_MAX_NUM_SEQS = 256
"""vLLM's own default, used only when the estimate states no operating point."""
_SMOKE = ("python", "-c", "import torch; print(torch.cuda.device_count(), 'GPUs visible')")
_TPU_SMOKE = (
    "python3",
    "-c",
    "import torch_xla.runtime as xr; print(xr.global_runtime_device_count(), 'TPU devices visible')",
)
MEGASCALE_PORT = 8081
"""The port of the multislice (Megascale) coordinator, as Ray's TPU support sets ``MEGASCALE_PORT``."""
_METADATA = "http://metadata.google.internal/computeMetadata/v1/instance/attributes"

BOOT_OPTIONS: Mapping[str, str] = {
    "container_image": "workload container image. Default: DEFAULT_VLLM_IMAGE (inference), "
    "DEFAULT_TRAINING_IMAGE (training); on AMD GPUs DEFAULT_VLLM_ROCM_IMAGE, DEFAULT_ROCM_TRAINING_IMAGE.",
    "model_url": "model vLLM serves (a Hugging Face id). Default: the registry's Hugging Face id.",
    "hf_token_secret": "secret REFERENCE holding the Hugging Face token (AWS Secrets Manager full ARN, GCP "
    "Secret Manager id, Azure Key Vault secret id, RunPod secret name), read at boot. Default: none "
    "(public models only).",
    "api_key_secret": "secret REFERENCE holding the API key vLLM requires of every request (same stores as "
    "hf_token_secret), read at boot and passed as VLLM_API_KEY. Default: none (no key: anyone who reaches "
    "the port can use the model; a public endpoint then gets a synth warning).",
    "port": "port vLLM serves on. Default: 8000.",
    "command": "training entrypoint (a list) run in the container on every node. Default: a GPU smoke check.",
    "env": "environment variables (mapping) for the workload container. Default: none.",
    "user_data": "a boot script that REPLACES the generated one. Default: the generated script.",
    "user_data_append": "shell commands appended to the generated boot script. Default: none.",
}
"""Options every VM target reads to build its boot script (standalone only; ``cluster=`` uses the
Kubernetes layer instead)."""

SecretStore = Literal["aws_secrets_manager", "gcp_secret_manager", "azure_key_vault", "runpod_secret"]

_SECRET_PATTERNS: Mapping[SecretStore, tuple[re.Pattern[str], str]] = {
    "aws_secrets_manager": (
        # The full ARN: Secrets Manager appends "-" and 6 random characters to the name, and the
        # instance role is granted exactly this ARN (a partial one would be AccessDenied at boot).
        re.compile(
            r"^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$"
        ),
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf",
    ),
    "gcp_secret_manager": (
        re.compile(r"^projects/[a-z0-9-]+/secrets/[A-Za-z0-9_-]+(/versions/(latest|\d+))?$"),
        "projects/my-project/secrets/hf-token",
    ),
    "azure_key_vault": (
        re.compile(r"^https://[a-z0-9-]{3,24}\.vault\.azure\.net/secrets/[A-Za-z0-9-]+(/[0-9a-f]{32})?$"),
        "https://my-vault.vault.azure.net/secrets/hf-token",
    ),
    "runpod_secret": (re.compile(r"^[A-Za-z0-9_-]{1,64}$"), "hf_token"),
}
_PARTIAL_ARN = re.compile(r"^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$")
_LITERAL_TOKEN = re.compile(r"^hf_[A-Za-z0-9]{20,}$")
_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")
_IMAGE = re.compile(
    r"^[a-z0-9][a-z0-9._-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)*(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?"
    r"(@sha256:[a-f0-9]{64})?$"
)
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class SecretRef:
    """A reference to a secret in a provider's store (never the secret itself)."""

    store: SecretStore
    id: str


def parse_secret(
    value: object, *, store: SecretStore, target: str, option: str = "hf_token_secret"
) -> SecretRef | None:
    """The ``option`` (``hf_token_secret``, ``api_key_secret``) as a ``SecretRef`` for ``store``; None
    when not given.

    Raises:
        TargetError: a literal token, or a reference of the wrong shape for the store.
    """
    if value is None:
        return None
    pattern, example = _SECRET_PATTERNS[store]
    if isinstance(value, str) and _LITERAL_TOKEN.match(value.strip()):
        # Say what the option holds: an api_key_secret shaped like 'hf_...' is still a literal secret.
        hf = option == "hf_token_secret"
        what = "Hugging Face token: a token" if hf else "secret ('hf_...'), not a reference: a secret"
        raise TargetError(
            f"{target} option {option!r} looks like a literal {what} in Terraform would land "
            "in the state and the plan. To fix: store it in the provider's secret store and pass its "
            f"reference, e.g. options={{{option!r}: {example!r}}}."
        )
    partial = store == "aws_secrets_manager" and isinstance(value, str) and _PARTIAL_ARN.match(value)
    if partial and not pattern.match(str(value)):
        raise TargetError(
            f"{target} option {option!r} {value!r} is a partial Secrets Manager ARN (no '-' "
            "and 6-character suffix): the instance role is granted exactly the ARN given, so reading "
            "the secret at boot would be AccessDenied. To fix: pass the full ARN, which `aws "
            "secretsmanager describe-secret --secret-id NAME --query ARN --output text` prints, e.g. "
            f"options={{{option!r}: {example!r}}}."
        )
    if not isinstance(value, str) or not pattern.match(value):
        raise TargetError(
            f"{target} option {option!r} must be a {store.replace('_', ' ')} reference (a secret's id, "
            f"never the secret itself; got {described(value)}). To fix: e.g. "
            f"options={{{option!r}: {example!r}}}."
        )
    return SecretRef(store=store, id=value)


@dataclass(frozen=True, slots=True)
class Rendezvous:
    """How node ``rank`` of a multi-node job finds the first node.

    Attributes:
        rank: this node's rank: an int, or a Terraform expression string (``count.index``) a target
            substitutes, already a token string.
        master_addr: the first node's private address: a Terraform reference (token string), or ""
            for the first node itself (it then uses its own address).
        nodes: number of nodes.
        efa: pass the EFA devices and the ``FI_*`` / ``NCCL_NET`` settings (AWS EFA fabric).
        efa_devices: EFA devices each node must have (one per network card); the boot fails with the
            reason when fewer appear. Default: 0, not checked.
        efa_device_rdma: set ``FI_EFA_USE_DEVICE_RDMA=1`` (documented for p4d.24xlarge).
    """

    rank: int | str
    master_addr: str
    nodes: int
    efa: bool = False
    efa_devices: int = 0
    efa_device_rdma: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class BootPlan:
    """What the boot script runs, from the decision and the options (validated)."""

    kind: str
    name: str
    image: str
    model: str
    port: int
    tensor_parallel: int
    max_num_seqs: int
    gpus_per_node: int
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    secret: SecretRef | None = None
    user_data: str | None = None
    append: str | None = None
    region: str = ""
    weights: WeightsSource | None = None
    tpu: bool = False
    data_parallel: int = 1
    """vLLM engines (of ``tensor_parallel`` GPUs each) behind the one API server of a machine: the
    decision's replicas that share it (``gpus_per_node // tensor_parallel``)."""
    precision_args: tuple[str, ...] = ()
    """vLLM flags serving the intent's precision (``--quantization fp8``...); empty for the checkpoint's."""
    api_key: SecretRef | None = None
    """The secret holding the API key vLLM requires (``VLLM_API_KEY``); None: no key."""
    eval_entrypoint: bool = False
    """The image's entrypoint ends in ``eval "$@"`` (AWS DLCs): the training command is passed as ONE
    shell-quoted argument that eval re-parses into the original argv (``_container_command``)."""
    amd: bool = False
    """The GPUs are AMD's (``is_amd``): ROCm images and device flags."""

    @property
    def image_starts_a_shell(self) -> bool:
        """The image is one of AMD's vLLM images, which start a shell: the server must be its command."""
        return self.image.partition(":")[0] in _ROCM_SHELL_IMAGES

    @property
    def serves(self) -> bool:
        return self.kind == "inference"

    @property
    def server_flags(self) -> str:
        """vLLM's sizing flags: TP (and DP when one machine holds several replicas), batch limit, precision.

        vLLM runs one engine per data-parallel rank behind one API server; ``--max-num-seqs`` applies
        per engine, i.e. per replica as the estimate's operating point is stated."""
        flags = [f"--tensor-parallel-size {self.tensor_parallel}"]
        if self.data_parallel > 1:
            flags.append(f"--data-parallel-size {self.data_parallel}")
        flags.append(f"--max-num-seqs {self.max_num_seqs}")
        return " ".join([*flags, *self.precision_args])


def max_num_seqs(placement: Placement) -> int:
    """Requests in flight per replica at the estimated operating point (the estimate's
    ``concurrency_per_replica``); vLLM's default when the estimate states none (training)."""
    stated = placement.estimate.concurrency_per_replica
    return max(1, stated) if stated else DEFAULT_MAX_NUM_SEQS


def _str_option(value: Any, key: str, pattern: re.Pattern[str], example: str, target: str) -> Any:
    if value is None:
        return None
    if not isinstance(value, str) or not pattern.match(value):
        raise TargetError(
            f"{target} option {key!r} is not valid (got {described(value)}). To fix: e.g. "
            f"options={{{key!r}: {example!r}}}."
        )
    return value


def boot_plan(
    placement: Placement,
    options: Mapping[str, Any],
    *,
    name: str,
    kind: str,
    model: str,
    target: str,
    store: SecretStore | None,
    unsupported_secret: str = "",
    weights_store: ObjectStore | None = None,
    unsupported_weights: str = "",
    tpu: bool = False,
    precision: str | None = None,
) -> BootPlan:
    """Validate the boot options and size the server from the decision.

    Args:
        kind: the workload type (``inference``, ``training``, ``fine_tuning``).
        model: the model id the construct resolved (a Hugging Face id when the registry knows one).
        store: the provider's secret store; None when the provider has none.
        unsupported_secret: why the provider has no secret store (the error when a secret is given).
        weights_store: the provider's object store the machines can read with their identity; None
            when the target does not implement ``weights_uri``.
        unsupported_weights: why ``weights_uri`` is not implemented (the error when it is given).
        tpu: the machines are Cloud TPU VMs (TPU images and container flags).
        precision: the intent's precision, served with vLLM's flag for it. Default: None, the
            checkpoint's dtype.
    """
    weights_value = options.get("weights_uri")
    if weights_value is not None and weights_store is None:
        raise TargetError(
            f"{target} cannot read 'weights_uri' at boot: "
            f"{unsupported_weights or 'this target does not implement it'}. To fix: drop it "
            "(vLLM then downloads the model from Hugging Face), or choose AWS, GCP or Azure."
        )
    weights = parse_weights(weights_value, store=weights_store, target=target) if weights_store else None
    secret_value = options.get("hf_token_secret")
    if secret_value is not None and store is None:
        raise TargetError(
            f"{target} cannot read 'hf_token_secret' at boot: {unsupported_secret}. To fix: drop it "
            "(public models) or choose a provider with a secret store."
        )
    secret = parse_secret(secret_value, store=store, target=target) if store else None
    api_key = _api_key_secret(options, kind=kind, store=store, unsupported=unsupported_secret, target=target)
    model_url = (
        _str_option(options.get("model_url"), "model_url", _MODEL, "meta-llama/Llama-3.1-8B-Instruct", target)
        or model
    )
    if not _MODEL.match(model_url):
        raise TargetError(
            f"{target}: model {model_url!r} is not a Hugging Face id vLLM can load. "
            "To fix: options={'model_url': 'org/model'}."
        )
    amd = is_amd(placement.accelerator)
    if tpu:
        default_image = DEFAULT_VLLM_TPU_IMAGE if kind == "inference" else DEFAULT_TPU_TRAINING_IMAGE
    elif amd:
        default_image = DEFAULT_VLLM_ROCM_IMAGE if kind == "inference" else DEFAULT_ROCM_TRAINING_IMAGE
    else:
        default_image = DEFAULT_VLLM_IMAGE if kind == "inference" else DEFAULT_TRAINING_IMAGE
    if amd and placement.accelerator not in ROCM_DEFAULTS_FOR and options.get("container_image") is None:
        raise TargetError(
            f"{target}: no default container image runs on {placement.accelerator}: AMD's default ROCm "
            f"images ({DEFAULT_VLLM_ROCM_IMAGE}, {DEFAULT_ROCM_TRAINING_IMAGE}) are documented for "
            f"{' and '.join(sorted(ROCM_DEFAULTS_FOR))} only. To fix: options={{'container_image': "
            "'<a ROCm image that supports it>'}, or choose another accelerator."
        )
    image = (
        _str_option(options.get("container_image"), "container_image", _IMAGE, default_image, target)
        or default_image
    )
    own_model = options.get("model_url") is not None or weights is not None
    port = options.get("port", DEFAULT_PORT)
    if isinstance(port, bool) or not isinstance(port, int) or not 1024 <= port <= 65535:
        raise TargetError(
            f"{target} option 'port' must be a whole number 1024..65535 (got {described(port)}). "
            f"To fix: options={{'port': {DEFAULT_PORT}}} (the default)."
        )
    command = options.get("command")
    if command is not None and (
        isinstance(command, str)
        or not isinstance(command, Sequence)
        or not all(isinstance(c, str) for c in command)
    ):
        raise TargetError(
            f"{target} option 'command' must be a list of strings (got {described(command)}). "
            "To fix: options={'command': ['torchrun', 'train.py']}."
        )
    env = options.get("env") or {}
    if not isinstance(env, Mapping) or not all(
        isinstance(k, str) and _ENV_KEY.match(k) and isinstance(v, str) for k, v in env.items()
    ):
        raise TargetError(
            f"{target} option 'env' must map variable names (letters, digits, '_') to strings "
            f"(got {described(env)}). To fix: options={{'env': {{'WANDB_PROJECT': 'llm'}}}}."
        )
    replace, append = options.get("user_data"), options.get("user_data_append")
    for key, value in (("user_data", replace), ("user_data_append", append)):
        if value is not None and not isinstance(value, str):
            raise TargetError(
                f"{target} option {key!r} must be a string (a script; got {described(value)}). "
                f"To fix: options={{{key!r}: '#!/bin/bash\\n...'}}."
            )
    tp = min(
        placement.estimate.tensor_parallel or placement.accelerators_per_instance,
        placement.accelerators_per_instance,
    )
    precision_args = _precision_args(precision, kind=kind, tpu=tpu, own_model=own_model, target=target)
    return BootPlan(
        kind=kind,
        name=name,
        image=image,
        model=model_url,
        port=port,
        tensor_parallel=tp,
        # TPU VMs: vLLM's TPU backend serves one engine per host here (its data parallelism is not
        # what the generated TPU script runs).
        data_parallel=1 if tpu else max(1, placement.accelerators_per_instance // tp),
        precision_args=precision_args,
        max_num_seqs=max_num_seqs(placement),
        gpus_per_node=placement.accelerators_per_instance,
        command=tuple(command) if command else (_TPU_SMOKE if tpu else _SMOKE),
        env=dict(env),
        secret=secret,
        api_key=api_key,
        user_data=replace,
        append=append,
        region=placement.region,
        weights=weights,
        tpu=tpu,
        amd=amd,
    )


_PRECISION_ARGS: Mapping[str, tuple[str, ...]] = {
    # bf16: the checkpoint's own dtype (vLLM's --dtype auto; bf16 for current hub models, and fp16 on
    # GPUs without bf16, where the estimate falls back the same way).
    "bf16": (),
    "fp16": ("--dtype", "float16"),
    "fp32": ("--dtype", "float32"),
    # Online dynamic FP8 quantization of a bf16/fp16 checkpoint (vLLM docs, features/quantization/fp8:
    # --quantization="fp8"; W8A8 on Ada/Hopper/Blackwell, weight-only W8A16 on Ampere/Turing).
    "fp8": ("--quantization", "fp8"),
}
"""The intent's precision as vLLM's server flags (the precisions vLLM can apply to any checkpoint)."""


def _precision_args(
    precision: str | None, *, kind: str, tpu: bool, own_model: bool, target: str
) -> tuple[str, ...]:
    """vLLM's flags for the intent's precision; a TargetError for one vLLM cannot apply by a flag."""
    if kind != "inference" or precision is None:
        return ()
    if tpu and precision != "bf16":
        raise TargetError(
            f"{target}: precision {precision!r} on a TPU VM: the generated TPU script serves the "
            "checkpoint's dtype (vLLM's TPU quantization flags are not wired here). To fix: "
            "precision='bf16', or your own script with the user_data option."
        )
    if precision in _PRECISION_ARGS:
        return _PRECISION_ARGS[precision]
    if own_model:
        return ()  # a pre-quantized checkpoint the user named: vLLM reads its quantization from its config
    raise TargetError(
        f"{target}: precision {precision!r} needs a pre-quantized checkpoint: vLLM quantizes online to "
        "fp8 only, so the registry's bf16 weights would be served while the sizing assumed "
        f"{precision}. To fix: name an {precision} checkpoint with options={{'model_url': 'org/model'}} "
        "(or weights_uri), or precision='fp8' / 'bf16'."
    )


def _api_key_secret(
    options: Mapping[str, Any], *, kind: str, store: SecretStore | None, unsupported: str, target: str
) -> SecretRef | None:
    """The validated ``api_key_secret`` option: inference only, a reference in the provider's store."""
    value = options.get("api_key_secret")
    if value is None:
        return None
    if kind != "inference":
        raise TargetError(
            f"{target} option 'api_key_secret' applies to inference only: a {kind} job serves nothing. "
            "To fix: drop 'api_key_secret'."
        )
    if store is None:
        raise TargetError(
            f"{target} cannot read 'api_key_secret' at boot: {unsupported}. To fix: drop it and keep the "
            "service internal (expose='internal'), or choose a provider with a secret store."
        )
    return parse_secret(value, store=store, target=target, option="api_key_secret")


def _q(text: str) -> str:
    """Shell-quoted and Terraform-escaped: safe in the script and in the Terraform string holding it."""
    return shlex.quote(text)


VLLM_SERVER = "python3 -m vllm.entrypoints.openai.api_server"
"""vLLM's OpenAI-compatible server as a command (what ``vllm/vllm-openai`` runs as its entrypoint)."""


def _server_args(plan: BootPlan) -> str:
    return f"--model {_q(plan.model)} --host 0.0.0.0 --port {plan.port} {plan.server_flags}"


def vllm_command(plan: BootPlan) -> str:
    """The whole vLLM server command (for a container whose entrypoint is replaced: Vast.ai's onstart)."""
    return f"{VLLM_SERVER} {_server_args(plan)}"


def vllm_args(plan: BootPlan) -> str:
    """What a container platform appends to the image's entrypoint (RunPod): the server's arguments,
    or the whole command for AMD's vLLM images, which start a shell, not the server."""
    return vllm_command(plan) if plan.image_starts_a_shell else _server_args(plan)


def plan_for(
    placement: Placement,
    props: Any,
    *,
    target: str,
    store: SecretStore | None,
    unsupported_secret: str = "",
    weights_store: ObjectStore | None = None,
    unsupported_weights: str = "",
    tpu: bool = False,
) -> BootPlan | None:
    """The boot plan for a target's ``TargetProps``; None when no model is known and no script given
    (a hand-built ``TargetProps`` without ``model``: the machines then boot the image only)."""
    options = props.options
    if props.model is None and options.get("user_data") is None:
        return None
    kind = props.workload_type or (
        "training" if placement.unit_cost.unit == "usd_per_training_step" else "inference"
    )
    return boot_plan(
        placement,
        options,
        name=props.name,
        kind=kind,
        model=props.model or "",
        target=target,
        store=store,
        unsupported_secret=unsupported_secret,
        weights_store=weights_store,
        unsupported_weights=unsupported_weights,
        tpu=tpu,
        precision=getattr(props, "precision", None),
    )


def refuse_unrun_engine(
    engine: str | None, *, cluster: bool, deploy_workload: bool, own_script: bool
) -> None:
    """Refuse an intent's serving engine the stack would not run: it boots vLLM (the generated script
    standalone, the vLLM chart on a cluster), while the decision was sized for the engine named."""
    if engine in (None, "vllm") or (cluster and not deploy_workload) or (own_script and not cluster):
        return
    runs, own = (
        ("the vLLM chart", "deploy_workload=False and run it on the cluster yourself")
        if cluster
        else ("its boot script", f"give options={{'user_data': <a boot script that starts {engine}>}}")
    )
    raise TargetError(
        f"serving.engine is {engine}, but this stack runs vLLM ({runs}), while the decision was sized "
        f"for {engine}. To fix: name serving.engine: vllm (or none), or {own}."
    )


def refuse_script_options(props: Any, *, target: str, reason: str) -> None:
    """Refuse the boot-script options on a provider that runs the container itself (no script to edit)."""
    given = [k for k in ("user_data", "user_data_append") if props.options.get(k) is not None]
    if given:
        raise TargetError(
            f"{target} option(s) {', '.join(given)} cannot apply: {reason}. To fix: drop them and set the "
            "container with 'image' / 'command' / 'env'."
        )


GATED_HUB_ORGS = ("meta-llama/",)
"""Hugging Face organisations whose models need a token of an account that accepted the licence."""


def boot_warnings(props: Any) -> list[str]:
    """What the generated boot script will predictably not do, for a synth warning (standalone only)."""
    options, model = props.options, props.model
    if model is None or options.get("user_data") is not None:
        return []  # a cluster runs the workload, or the user's own script replaces ours
    found = []
    if (
        props.workload_type == "inference"
        and model.startswith(GATED_HUB_ORGS)
        and options.get("hf_token_secret") is None
        and options.get("weights_uri") is None
    ):
        found.append(
            f"{model} is a gated Hugging Face model and neither 'hf_token_secret' nor 'weights_uri' "
            "is given: the download at boot would be refused (401). To fix: options="
            "{'hf_token_secret': <your secret store's reference to a token with access>}, or "
            "'weights_uri'."
        )
    if props.workload_type in ("training", "fine_tuning") and not options.get("command"):
        found.append(
            "no 'command' is given: the default only checks that the GPUs are visible and exits, "
            "while the machines keep billing. To fix: options={'command': ['torchrun', 'train.py']} "
            "(with your container_image)."
        )
    return found


def public_access_note(props: Any) -> str:
    """What stands between the internet and the model of a public endpoint (for its synth warning)."""
    if props.options.get("api_key_secret") is not None:
        return (
            "vLLM requires the API key of 'api_key_secret' (Authorization: Bearer <key>) on every /v1 "
            "request; keep the key secret and rotate it."
        )
    return (
        "It has no API key: anyone who reaches the address can use the model. To fix: options="
        "{'api_key_secret': <your secret store's reference to a key>} (vLLM then requires "
        "'Authorization: Bearer <key>'), and 'public_source_ranges' for your clients only."
    )
