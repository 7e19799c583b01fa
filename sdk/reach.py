"""Reaching an arena before a bot plays: wait until one answers, and learn which arena it is.

Every way of starting a bot (`scout-bot run`, with or without a saved token, with or without
`--tournament`, and a bot module's own `__main__`) first calls `wait_for_arena`: while nothing
answers at the address it logs `no arena answers at HOST:PORT; trying again in N s (Ctrl-C
stops)` and tries again with back-off, so bots may be started before their arena. Once one answers
it says which arena it is (`DescribeArena`): saved tokens are kept under that identity
(`sdk.tokens`), so `localhost` and `127.0.0.1` find the same token and a recreated database, a new
arena, finds none.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import grpc

from .runner import ArenaUnreachable, Backoff, ask_any, run_until_signal
from .tls import ClientTls
from .wire import arena_pb2_grpc
from .wire.arena_client import DESCRIBE_ARENA

log = logging.getLogger(__name__)

WAIT_BACKOFF = Backoff(initial=1.0, maximum=10.0)
"""Tries while no arena answers: about 1, 2, 4, 8 s apart, then every 10 s."""
CALL_TIMEOUT_S = 10.0
ARENA_KEY_PREFIX = "arena:"
"""Saved tokens of an arena that reports its identity are under "arena:<id>"."""


async def arena_key_async(target: str | Sequence[str], tls: ClientTls | None = None) -> str:
    """The key the arena at `target` keeps its saved tokens under: "arena:<its id>", or `target`
    itself for an arena too old to say (which answers DescribeArena UNIMPLEMENTED). The nodes of
    one cluster share one id, so `target` may name several.

    Raises ArenaUnreachable if nothing answers, ArenaRefused for a TLS mismatch and the like."""

    async def describe(stub: arena_pb2_grpc.ArenaStub) -> str:
        try:
            return ARENA_KEY_PREFIX + await DESCRIBE_ARENA.ask(stub, timeout=CALL_TIMEOUT_S)
        except grpc.aio.AioRpcError as exc:
            if exc.code() is grpc.StatusCode.UNIMPLEMENTED:
                return target if isinstance(target, str) else ",".join(target)
            raise

    return await ask_any(target, tls, describe)


async def wait_for_arena_async(
    target: str | Sequence[str], tls: ClientTls | None = None, backoff: Backoff = WAIT_BACKOFF
) -> str:
    """`arena_key_async`, tried again with back-off for as long as nothing answers."""
    attempt = 0
    while True:
        try:
            return await arena_key_async(target, tls)
        except ArenaUnreachable as exc:
            delay = backoff.delay(attempt)
            attempt += 1
            log.warning("%s; trying again in %.1f s (Ctrl-C stops)", exc, delay)
            await asyncio.sleep(delay)


def wait_for_arena(target: str | Sequence[str], tls: ClientTls | None = None) -> str | None:
    """The blocking form of `wait_for_arena_async`; None if SIGINT or SIGTERM stopped the wait."""
    return run_until_signal(wait_for_arena_async(target, tls), stopped=None)
