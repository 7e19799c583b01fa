"""Caps on what a caller can hold open (arena.api.resources): connections beyond the cap are closed while
bot sessions play on, calls beyond the server's and a connection's caps are refused or wait, and
connections or streams that never speak are dropped by their deadlines. Each against an arena in
this process on loopback, with small caps so a handful of sockets reach them."""

from __future__ import annotations

import asyncio
import random
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import pytest

from arena.api.resources import ResourceLimits
from arena.play.referee import Limits
from arena.startup.arena import ArenaServer, start_arena
from arena.startup.settings import ArenaSettings
from sdk.wire import arena_pb2, arena_pb2_grpc, bot_session_pb2_grpc
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot
from tests.timeouts import patience

T = TypeVar("T")
BOUND_S = patience(5.0)
"""Bound on every wait for the arena to act; the deadlines under test are well below it. One wait
runs to it (a connection that must stay open), so it stays short unless SCOUT_TEST_TIMEOUT_SCALE
says the machine is slow."""
PATIENT = {"handshake_timeout_ms": 60_000, "idle_connection_ms": 60_000}
"""Deadlines long enough not to close anything during a test about another cap."""


def with_arena(resources: ResourceLimits, test: Callable[[ArenaServer, str], Awaitable[T]]) -> T:
    """Run `test(arena, target)` against an in-memory arena with `resources`, then stop it."""

    async def main() -> T:
        arena = await start_arena(ArenaSettings(port=0, resources=resources))
        try:
            return await test(arena, f"127.0.0.1:{arena.port}")
        finally:
            await arena.stop(0)

    return asyncio.run(main())


async def closed_by_peer(sockets: list[socket.socket], expected: int) -> list[socket.socket]:
    """The sockets the arena has closed, once `expected` of them are (or BOUND_S has passed)."""
    closed: list[socket.socket] = []
    deadline = time.monotonic() + BOUND_S
    while len(closed) < expected and time.monotonic() < deadline:
        for sock in sockets:
            if sock in closed:
                continue
            try:
                if sock.recv(4096) == b"":
                    closed.append(sock)
            except BlockingIOError:
                pass
            except OSError:
                closed.append(sock)
        await asyncio.sleep(0.05)
    return closed


def raw_sockets(target: str, count: int) -> list[socket.socket]:
    host, port = target.rsplit(":", 1)
    sockets = [socket.create_connection((host, int(port))) for _ in range(count)]
    for sock in sockets:
        sock.setblocking(False)
    return sockets


def test_connections_beyond_the_cap_are_closed_while_bot_sessions_keep_playing() -> None:
    cap, extra = 4, 10

    async def test(arena: ArenaServer, target: str) -> None:
        names = ["capped-a", "capped-b"]
        bots = [await RawBot.connect(target, await arena.directory.register(name)) for name in names]
        sockets = raw_sockets(target, extra)
        try:
            closed = await closed_by_peer(sockets, extra - cap + 1)
            assert len(closed) >= extra - cap, f"only {len(closed)} of {extra} connections beyond a cap of {cap} closed"
            game = asyncio.create_task(arena.referee.play("capped", names, 7, Limits(move_ms=5000)))
            rng = random.Random(1)
            overs = await asyncio.wait_for(asyncio.gather(*(bot.play_to_the_end(rng) for bot in bots)), 30)
            result = await asyncio.wait_for(game, 30)
            assert all(seat.forfeit is None for seat in result.seats), result.seats
            assert len(overs) == 2
        finally:
            for sock in sockets:
                sock.close()
            for bot in bots:
                await bot.close()

    with_arena(ResourceLimits(max_connections=cap, **PATIENT), test)


async def open_play_stream(channel: grpc.aio.Channel, token: str) -> grpc.aio.StreamStreamCall:
    """A Play stream on `channel` that has said Hello and been welcomed."""
    call = bot_session_pb2_grpc.BotSessionStub(channel).Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.BotBatch(messages=[pb.BotMessage(hello=pb.Hello(bot_name="held", capacity=1))]))
    welcome = await asyncio.wait_for(call.read(), BOUND_S)
    assert welcome.messages[0].WhichOneof("kind") == "welcome", welcome
    return call


def register_call(channel: grpc.aio.Channel, name: str, timeout: float = BOUND_S) -> Awaitable[object]:
    return arena_pb2_grpc.ArenaStub(channel).RegisterBot(arena_pb2.RegisterBotRequest(name=name), timeout=timeout)  # type: ignore[no-untyped-call]


def test_a_call_beyond_the_servers_cap_is_refused_resource_exhausted() -> None:
    async def test(arena: ArenaServer, target: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            streams = [await open_play_stream(channel, await arena.directory.register(f"held-{i}")) for i in range(3)]
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await register_call(channel, "one-too-many")
            assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
            streams[0].cancel()
            await asyncio.sleep(0.2)
            await register_call(channel, "room-again")

    with_arena(ResourceLimits(max_calls=3, **PATIENT), test)


def test_calls_beyond_a_connections_stream_cap_wait_while_other_connections_are_served() -> None:
    async def test(arena: ArenaServer, target: str) -> None:
        async with (
            grpc.aio.insecure_channel(target) as channel,
            grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as other,
        ):
            for i in range(2):
                await open_play_stream(channel, await arena.directory.register(f"held-{i}"))
            with pytest.raises(grpc.aio.AioRpcError) as waited:
                await register_call(channel, "third-stream", timeout=1.0)
            assert waited.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
            await register_call(other, "own-connection")

    with_arena(ResourceLimits(max_streams_per_connection=2, **PATIENT), test)


def test_a_stream_that_never_says_hello_is_ended_at_its_deadline() -> None:
    async def test(arena: ArenaServer, target: str) -> None:
        token = await arena.directory.register("silent")
        async with grpc.aio.insecure_channel(target) as channel:
            call = bot_session_pb2_grpc.BotSessionStub(channel).Play(metadata=(("authorization", f"Bearer {token}"),))
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await asyncio.wait_for(call.read(), BOUND_S)
            assert ended.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
            assert ended.value.details() == "no Hello within 0.3 s"

    with_arena(ResourceLimits(hello_timeout_ms=300, **PATIENT), test)


def test_a_connection_that_never_speaks_is_closed_at_the_handshake_deadline() -> None:
    async def test(arena: ArenaServer, target: str) -> None:
        sockets = raw_sockets(target, 3)
        sockets[0].sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")  # the preface alone is not a handshake
        try:
            assert len(await closed_by_peer(sockets, 3)) == 3
        finally:
            for sock in sockets:
                sock.close()

    with_arena(ResourceLimits(handshake_timeout_ms=500, idle_connection_ms=60_000), test)


def test_a_connection_idle_without_calls_is_closed() -> None:
    async def test(arena: ArenaServer, target: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            await register_call(channel, "then-idle")
            assert channel.get_state() is grpc.ChannelConnectivity.READY
            deadline = time.monotonic() + BOUND_S
            while channel.get_state() is grpc.ChannelConnectivity.READY and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert channel.get_state() is not grpc.ChannelConnectivity.READY, "the idle connection was kept"

    with_arena(ResourceLimits(idle_connection_ms=500, handshake_timeout_ms=60_000), test)
