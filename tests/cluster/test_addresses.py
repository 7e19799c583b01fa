"""Several addresses for one arena (the nodes of a cluster): commands ask the first that answers."""

from __future__ import annotations

import pytest

from arena.cli.remote import RemoteArena, ServerUnreachable
from sdk.addresses import split_targets
from sdk.runner import ArenaUnreachable, register
from tests.cluster.nats_server import free_port
from tests.conftest import Arena


def test_an_address_list_is_split_and_stripped() -> None:
    assert split_targets("a:1, b:2,") == ["a:1", "b:2"]
    assert split_targets(["a:1", "b:2,c:3"]) == ["a:1", "b:2", "c:3"]
    with pytest.raises(ValueError, match="no arena address in ' , '"):
        split_targets(" , ")


def test_the_sdk_registers_at_the_first_address_that_answers(arena: Arena) -> None:
    dead = f"127.0.0.1:{free_port()}"
    assert register("second-address", target=f"{dead},{arena.target}")
    with pytest.raises(ArenaUnreachable, match=f"no arena answers at any of {dead}, {dead}"):
        register("nowhere", target=[dead, dead])


def test_scout_arena_uses_the_first_server_that_connects(arena: Arena) -> None:
    dead = f"127.0.0.1:{free_port()}"
    assert RemoteArena(f"{dead},{arena.target}").target == arena.target
    with pytest.raises(ServerUnreachable, match=f"no arena answers at {dead}, {dead}: start one"):
        RemoteArena(f"{dead},{dead}")
