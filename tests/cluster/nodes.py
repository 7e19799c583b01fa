"""Arena nodes of one cluster in the test's own process: each a real gRPC server with its own hub,
referee and spectators, joined to a real NATS server (`arena.cluster.join`), sharing one bot
directory as nodes share one database. Each test gets a cluster prefix of its own, so tests on the
shared NATS server never hear each other."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass

import grpc

from arena.cluster.join import Cluster, connect_cluster
from arena.directory import InMemoryBotDirectory
from arena.play.referee import Limits
from arena.startup.arena import ArenaServer, start_arena
from arena.startup.settings import ArenaSettings
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests.timeouts import PLAY_S, START_S

_prefixes = itertools.count()
ADMIN = "cluster-test-admin"


def new_prefix() -> str:
    return f"test{os.getpid()}x{next(_prefixes)}"


@dataclass
class Node:
    name: str
    server: ArenaServer
    cluster: Cluster

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    async def play(self, bots: list[str], seed: int, **limits: int) -> arena_pb2.PlayGameResponse:
        """PlayGame on this node: it referees the game, wherever the bots' streams are."""
        async with grpc.aio.insecure_channel(self.target) as channel:
            request = arena_pb2.PlayGameRequest(bots=bots, seed=seed, **limits)
            stub = arena_pb2_grpc.ArenaStub(channel)
            return await stub.PlayGame(request, metadata=(("authorization", f"Bearer {ADMIN}"),), timeout=PLAY_S)


async def until(what: str, check: Callable[[], bool], timeout: float = START_S) -> None:
    """Wait until `check()` holds, looking again at every turn of the event loop's idle time."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        await asyncio.sleep(0.01)


async def connected_everywhere(nodes: list[Node], bots: list[str]) -> None:
    """Every node's hub has every bot connected (its own stream or another node's)."""

    def ready() -> bool:
        return all((c := n.server.hub.get(b)) is not None and c.connected for n in nodes for b in bots)

    await until(f"bots {bots} connected on every node", ready)


async def start_nodes(
    stack: AsyncExitStack, nats_url: str, count: int, limits: Limits | None = None, prefix: str | None = None
) -> tuple[list[Node], InMemoryBotDirectory]:
    """Start `count` nodes joined to the cluster `prefix` (a new one by default), stopped by `stack`."""
    directory = InMemoryBotDirectory()
    prefix = prefix or new_prefix()
    nodes = []
    for i in range(count):
        settings = ArenaSettings(port=0, admin_token=ADMIN, limits=limits or Limits())
        server = await start_arena(settings, directory)
        stack.push_async_callback(server.stop, 0)
        assert server.referee.spectators is not None
        cluster = await connect_cluster(nats_url, f"n{i}", server.hub, server.referee.spectators, prefix=prefix)
        stack.push_async_callback(cluster.close)
        nodes.append(Node(f"n{i}", server, cluster))
    await until("every node hears every other", lambda: all(len(n.cluster.presence.others) == count - 1 for n in nodes))
    return nodes, directory
