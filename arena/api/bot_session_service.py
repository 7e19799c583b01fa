"""The servicer of the bots' `BotSession` stream: the Hello, then decisions in and batches out.

It authenticates, converts messages at the edge (`arena.api.bot_session_wire`) and hands plain values to the
session hub; no game logic lives here.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import grpc

from arena.api import bot_session_wire
from arena.api.boundary import HELLO_TOURNAMENTS, STRING_CAPS
from arena.api.peers import bearer_token
from arena.directory import BotDirectory
from arena.names import NAME_PATTERN, NAME_RULE, VERSION_PATTERN, VERSION_RULE, shown
from arena.play.sessions import (
    MAX_CAPACITY,
    MAX_QUEUED,
    BotConnection,
    Received,
    SessionHub,
    Stream,
)
from sdk.protocol import ErrorCode, ErrorNotice, Hello
from sdk.wire.bot_session_pb2 import BotBatch

log = logging.getLogger(__name__)

MAX_WATCHED = 16
"""Most tournaments one Hello may name (`Hello.tournaments`): a bot enters a few at a time."""
HELLO_TIMEOUT_S = 3.0
"""A new stream must send its Hello within this time (the default of `ResourceLimits.hello_timeout_ms`):
a bot sends it at once, and a stream that never does holds a call slot until then."""
CUT_OFF_QUIET_S = 1.0
CUT_OFF_DRAIN_S = 10.0
"""A bot cut off for not reading (`Stream.overflowed`) is disconnected at once, but its call ends only
once it has sent nothing for CUT_OFF_QUIET_S (at most CUT_OFF_DRAIN_S after the cut), what it sends
meanwhile read and dropped: a status that arrives while one of its writes is in flight reaches it
as its own library's INTERNAL error ("Failed execute_batch"), not as the reason it was cut off."""
SUPERSEDED_MESSAGE = "superseded by a newer session of this bot: do not reconnect, the newer one plays its seats"
"""The status detail that ends a stream another stream of the same bot took over."""

BotSessionContext = grpc.aio.ServicerContext[BotBatch, bytes]
"""A `Play` call as `add_bot_session` registers it: batches in, serialized batches out."""


UNDECODABLE_MESSAGE = "a message on this stream is not a serialized scout.arena.v1.BotBatch"


def hello_problem(hello: Hello) -> str | None:
    """Why a Hello is refused, or None: its program name and version go to the arena's logs, so
    they follow the arena's name rules (both may be empty); it may name at most MAX_WATCHED
    tournaments, each within its cap (`boundary.STRING_CAPS`)."""
    if hello.bot_name and not NAME_PATTERN.fullmatch(hello.bot_name):
        return f"Hello.bot_name {shown(hello.bot_name)} is not a name: use {NAME_RULE}, or leave it empty"
    if not VERSION_PATTERN.fullmatch(hello.bot_version):
        return f"Hello.bot_version {shown(hello.bot_version)} is not a version: use {VERSION_RULE}, or leave it empty"
    if len(hello.tournaments) > MAX_WATCHED:
        return f"Hello.tournaments may name at most {MAX_WATCHED} tournaments, not {len(hello.tournaments)}"
    cap = STRING_CAPS[HELLO_TOURNAMENTS]
    for name in hello.tournaments:
        if len(name) > cap.limit:
            return f"{cap.what} may have at most {cap.limit} characters, not {len(name)} (Hello.tournaments)"
    return None


class BotSessionService:
    """Serves `Play`: authenticates, reads the Hello, then pumps messages both ways.

    Not a generated `BotSessionServicer`: it writes batches it serialized itself (`add_bot_session`)."""

    def __init__(self, directory: BotDirectory, hub: SessionHub, hello_timeout_s: float = HELLO_TIMEOUT_S) -> None:
        self._directory = directory
        self._hub = hub
        self._hello_timeout_s = hello_timeout_s

    async def Play(self, request_iterator: object, context: BotSessionContext) -> None:
        # The first batch is read before the token is checked: a client whose Hello is still
        # being written when the call is refused sees a local INTERNAL error, not our status.
        first = await self._read_first(context)
        token = bearer_token(context)
        if token is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "missing bot token: send the metadata 'authorization: Bearer <token>'"
            )
        name = await self._directory.authenticate(token)
        if name is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown bot token: register the bot to get one")
        hello = await self._check_hello(first[0] if first else None, context)
        session_id = uuid.uuid4().hex[:12]
        conn, stream = self._hub.open(name, hello, session_id)
        log.info(
            "session %s: bot %r connected (program %s, version %s, capacity %d)",
            session_id,
            name,
            shown(hello.bot_name),
            shown(hello.bot_version),
            hello.capacity,
        )
        self._receive(conn, stream, first[1:])
        heard = _Heard()
        reader = asyncio.create_task(self._read(conn, stream, context, heard))
        stream.writer = writer = asyncio.create_task(self._write(stream, context))
        try:
            await asyncio.wait((writer,))
        except BaseException:
            reader.cancel()
            raise
        finally:
            writer.cancel()
            superseded = conn.stream is not stream
            if superseded or not stream.overflowed:  # a cut-off bot's reader drains it (`_drain`)
                reader.cancel()
            self._hub.close(conn, stream)
            log.info("session %s: bot %r disconnected", session_id, name)
        if superseded:
            # Not OK: a client that reconnects whenever its stream ends would take the seats back
            # from the newer session, and the two would displace each other forever.
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, SUPERSEDED_MESSAGE)
        if reader.done() and not reader.cancelled() and (garbled := reader.result()):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, garbled)
        if stream.overflowed:
            log.warning("session %s: bot %r cut off: it left %d messages unread", session_id, name, MAX_QUEUED)
            await _drain(reader, heard)
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{MAX_QUEUED} messages for this bot were left unread: read your stream",
            )

    @staticmethod
    async def _write(stream: Stream, context: BotSessionContext) -> None:
        while batch := await stream.next_batch():
            await context.write(bot_session_wire.arena_batch_bytes(batch, stream.want_legal_actions))

    async def _read_first(self, context: BotSessionContext) -> list[Received | bot_session_wire.WireError]:
        try:
            first = await asyncio.wait_for(_read_batch(context), self._hello_timeout_s)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no Hello within {self._hello_timeout_s:g} s")
        except bot_session_wire.UNDECODABLE:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, UNDECODABLE_MESSAGE)
        if first is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the stream ended before its Hello")
        return bot_session_wire.bot_batch_from_pb(first)

    async def _check_hello(
        self, first: Received | bot_session_wire.WireError | None, context: BotSessionContext
    ) -> Hello:
        if isinstance(first, bot_session_wire.WireError):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(first))
        if not isinstance(first, Hello):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message of a stream must be a Hello")
        if not 1 <= first.capacity <= MAX_CAPACITY:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"Hello.capacity must be within 1..{MAX_CAPACITY}, not {first.capacity}",
            )
        if problem := hello_problem(first):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        return first

    def _receive(
        self, conn: BotConnection, stream: Stream, messages: list[Received | bot_session_wire.WireError]
    ) -> None:
        for msg in messages:
            if isinstance(msg, bot_session_wire.WireError):
                stream.send(ErrorNotice(ErrorCode.MALFORMED, str(msg)))
            else:
                self._hub.receive(conn, msg)

    async def _read(self, conn: BotConnection, stream: Stream, context: BotSessionContext, heard: _Heard) -> str | None:
        """Feed the bot's messages to the hub until the bot half-closes or the call ends; once the
        bot is cut off (`stream.overflowed`), only count them (`_drain`).

        Returns why the call must end INVALID_ARGUMENT, if the bot sent bytes that are not a BotBatch:
        nothing after them can be trusted to be framed right, so the session ends (seats get the
        reconnection grace period like any other disconnect)."""
        garbled = None
        try:
            while (batch := await _read_batch(context)) is not None:
                heard.batches += 1
                if stream.overflowed:
                    continue
                if conn.stream is not stream:
                    break
                self._receive(conn, stream, bot_session_wire.bot_batch_from_pb(batch))
        except bot_session_wire.UNDECODABLE:
            garbled = UNDECODABLE_MESSAGE
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError, grpc.aio.UsageError):
            pass
        stream.close()
        return garbled


class _Heard:
    """How many batches a stream's reader has taken: `_drain` watches it to see the bot pause."""

    __slots__ = ("batches",)

    def __init__(self) -> None:
        self.batches = 0


async def _drain(reader: asyncio.Task[str | None], heard: _Heard) -> None:
    """Let `reader` read and drop a cut-off bot's messages until it pauses for CUT_OFF_QUIET_S, half-closes,
    or CUT_OFF_DRAIN_S have passed; then stop it. Only then may the call end (CUT_OFF_QUIET_S says why)."""
    deadline = time.monotonic() + CUT_OFF_DRAIN_S
    try:
        while not reader.done() and time.monotonic() < deadline:
            before = heard.batches
            await asyncio.wait((reader,), timeout=CUT_OFF_QUIET_S)
            if heard.batches == before:
                return
    finally:
        reader.cancel()


async def _read_batch(context: BotSessionContext) -> BotBatch | None:
    """The bot's next batch, or None once it half-closed the stream.

    grpc.aio answers `grpc.aio.EOF` then, which types-grpcio leaves out of the server-side `read()`."""
    batch: object = await context.read()
    return batch if isinstance(batch, BotBatch) else None


def add_bot_session(service: BotSessionService, server: grpc.aio.Server) -> None:
    """Serve `service.Play` on `server`. Unlike the generated registration, responses go out as the
    bytes `Play` writes (`bot_session_wire.arena_batch_bytes` serializes batches itself)."""
    handlers: dict[str, grpc.RpcMethodHandler[BotBatch, bytes]] = {
        "Play": grpc.stream_stream_rpc_method_handler(
            service.Play, request_deserializer=bot_session_wire.bot_batch_from_bytes, response_serializer=None
        )
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(bot_session_wire.BOT_SESSION, handlers),))
    server.add_registered_method_handlers(bot_session_wire.BOT_SESSION, handlers)
