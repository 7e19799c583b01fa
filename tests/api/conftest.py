"""Fixtures for the Arena service tests: a client of the module's `arena` server process (each test
module that uses `client` defines that fixture, a server on a database it prepared)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from sdk.wire import arena_pb2_grpc
from tests.timeouts import CALL_S
from tests.tournaments.arena_process import ArenaProcess


class Client:
    """Sync stub calls with or without a bearer token."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = arena_pb2_grpc.ArenaStub(self.channel)  # type: ignore[no-untyped-call]

    def __call__(self, method: str, request: object, token: str | None = None) -> Any:
        metadata = () if token is None else (("authorization", f"Bearer {token}"),)
        return getattr(self.stub, method)(request, metadata=metadata, timeout=CALL_S)

    def refused(self, method: str, request: object, token: str | None = None) -> tuple[grpc.StatusCode, str]:
        with pytest.raises(grpc.RpcError) as caught:
            self(method, request, token)
        return caught.value.code(), caught.value.details()


@pytest.fixture
def client(arena: tuple[ArenaProcess, str]) -> Iterator[Client]:
    c = Client(arena[0].target)
    yield c
    c.channel.close()
