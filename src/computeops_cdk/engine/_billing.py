"""What a job really pays for: start-up time and the providers' minimum billing increments.

A training job's wall-clock time is its compute time plus STARTUP_HOURS; the bill rounds it up to
the provider's billing increment, at least its minimum. Only increments a provider states in its
own documentation are used; without one the exact time is billed (and said so).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["BILLING", "STARTUP_HOURS", "Billing", "billed_hours", "billing_of"]

STARTUP_HOURS = 0.25
"""Provisioning and start-up before a job's first step (machines, boot, image, model load): an
ASSUMED 15 minutes, the same for every provider (none publishes a figure), labelled so."""


@dataclass(frozen=True, slots=True)
class Billing:
    """A provider's billing granularity for instances (seconds), with its source."""

    increment_s: float
    minimum_s: float
    source: str


BILLING: Mapping[str, Billing] = {
    "aws": Billing(
        increment_s=1,
        minimum_s=60,
        source="aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/ "
        "(Linux On-Demand, Reserved and Spot: one-second increments, minimum of 60 seconds)",
    ),
    "lambda": Billing(
        increment_s=60,
        minimum_s=60,
        source="docs.lambda.ai/public-cloud/billing (On-Demand Cloud instances bill in one-minute "
        "increments)",
    ),
    "runpod": Billing(
        increment_s=1,
        minimum_s=0,
        source="docs.runpod.io/accounts-billing/billing (all compute and storage charges are billed per "
        "second)",
    ),
}
"""Providers whose own documentation states the increment. gcp, azure, oci, coreweave, nebius,
crusoe and vast: no primary source was found for their instance billing increment (third-party
pages disagree), so none is applied to them."""

_EXACT = Billing(increment_s=0, minimum_s=0, source="")


def billing_of(provider: str) -> Billing:
    """The provider's cited billing granularity, or exact-time billing when none is cited."""
    return BILLING.get(provider, _EXACT)


def billed_hours(provider: str, hours: float) -> float:
    """``hours`` of running time as the provider bills it (rounded up, at least the minimum)."""
    rule = billing_of(provider)
    seconds = hours * 3600
    if rule.increment_s > 0:
        seconds = math.ceil(seconds / rule.increment_s - 1e-9) * rule.increment_s
    return max(seconds, rule.minimum_s) / 3600
