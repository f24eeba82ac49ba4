"""Fixtures of the provider tests: the provider's one configuration, reset around every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from computeops_cdk.terraform._framework import Diagnostics
from computeops_cdk.terraform._settings import SETTINGS


@pytest.fixture(autouse=True)
def provider_settings() -> Iterator[None]:
    SETTINGS.configure(Diagnostics(), {"catalog": None})
    yield
    SETTINGS.configure(Diagnostics(), {"catalog": None})
