"""Feed tests never leave the machine: a connection to anything but the loopback fails loudly.

A plain module (the suite imports helpers by name, so a second conftest.py would shadow the root
one); test modules that fetch import ``no_internet`` and it applies to each of their tests.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOOPBACK:
            self.close()
            raise AssertionError(
                f"a catalog test tried to reach {address!r}: tests must not touch the internet"
            )
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield
