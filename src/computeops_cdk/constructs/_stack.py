"""``WorkloadStack``: one stack, the chosen provider configured, one ``ComputeWorkload`` in it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from constructs import Construct

from .._compat import FrameworkBound, in_scope_framework
from ..catalog import Catalog
from ..engine._decision import DEFAULT_REJECTIONS
from ..intent import WorkloadIntent
from ..targets.k8s import KubeConnection
from ._workload import ComputeWorkload

__all__ = ["WorkloadStack"]


class WorkloadStack(metaclass=FrameworkBound):
    """A Terraform stack holding one ``ComputeWorkload`` named ``workload`` and its provider block.

    Keyword props are those of ``ComputeWorkload``, documented there once, with its defaults, except:
    resources are named after the stack id (no ``name`` prop), ``tags`` defaults to
    ``{"computeops/workload": <stack id>}``, and the provider block is always configured (no
    ``configure_provider`` prop). The workload is at ``stack.workload`` and its decision at
    ``stack.decision``. ``cdktn synth`` writes the stack to ``cdktf.out/stacks/<id>/cdk.tf.json`` and
    the decision record beside it. It is a ``TerraformStack`` of the app's core (cdktn or cdktf).
    """

    __core_base__ = "TerraformStack"

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any: ...  # TerraformStack's members (jsii runtime)

    @in_scope_framework
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        intent: WorkloadIntent | Mapping[str, Any] | str | Path,
        provider: str | None = None,
        region: str | None = None,
        catalog: Catalog | None = None,
        cluster: str | None = None,
        kubernetes: KubeConnection | None = None,
        deploy_workload: bool = True,
        tags: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        lock: str | Path | bool | None = None,
        rejections: str = DEFAULT_REJECTIONS,
        accounts: str | Path | None = None,
    ) -> None:
        super().__init__(scope, id)  # type: ignore[call-arg]  # TerraformStack's, from the jsii runtime
        self.workload = ComputeWorkload(
            self,
            "workload",
            intent=intent,
            provider=provider,
            region=region,
            catalog=catalog,
            cluster=cluster,
            kubernetes=kubernetes,
            deploy_workload=deploy_workload,
            tags=tags if tags is not None else {"computeops/workload": id},
            options=options,
            name=id,
            lock=lock,
            rejections=rejections,
            accounts=accounts,
        )
        self.decision = self.workload.decision
