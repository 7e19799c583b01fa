"""A hand-driven bot session speaking protobuf directly, for tests that need exact messages.

It records every ArenaMessage it receives, so tests can inspect what the arena sent a seat.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random

import grpc

from sdk.wire import bot_session_pb2 as pb
from sdk.wire import bot_session_pb2_grpc, game_pb2
from tests.timeouts import CALL_S

READ_TIMEOUT_S = CALL_S
"""Bound on waiting for the arena's next batch (tests/timeouts.py)."""


class RawBot:
    """One Play stream; `received` holds every message the arena sent on it."""

    def __init__(self, target: str, token: str | None) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        metadata = (("authorization", f"Bearer {token}"),) if token is not None else ()
        self.call = bot_session_pb2_grpc.BotSessionStub(self.channel).Play(metadata=metadata)
        self.received: list[pb.ArenaMessage] = []
        self._unread: collections.deque[pb.ArenaMessage] = collections.deque()

    @classmethod
    async def connect(
        cls, target: str, token: str | None, want_legal_actions: bool = True, tournaments: tuple[str, ...] = ()
    ) -> RawBot:
        bot = cls(target, token)
        hello = pb.Hello(bot_name="raw", capacity=4, want_legal_actions=want_legal_actions, tournaments=tournaments)
        await bot.write(pb.BotMessage(hello=hello))
        welcome = await bot.read()
        assert welcome.WhichOneof("kind") == "welcome", welcome
        return bot

    async def read(self) -> pb.ArenaMessage:
        """The next ArenaMessage, taken from the arena's batches in order."""
        if not self._unread:
            batch = await asyncio.wait_for(self.call.read(), READ_TIMEOUT_S)
            assert batch is not grpc.aio.EOF, "the arena ended the stream"
            assert batch.messages, "the arena never writes an empty batch"
            self._unread.extend(batch.messages)
        msg = self._unread.popleft()
        self.received.append(msg)
        return msg

    async def next(self, kind: str) -> pb.ArenaMessage:
        """The next message of `kind` (a field name of the ArenaMessage oneof), skipping others."""
        while True:
            msg = await self.read()
            if msg.WhichOneof("kind") == kind:
                return msg

    async def write(self, msg: pb.BotMessage) -> None:
        """Send `msg`; if the call has already ended, the next read raises its real status."""
        with contextlib.suppress(grpc.aio.AioRpcError):
            await self.call.write(pb.BotBatch(messages=[msg]))

    async def answer(self, game_id: str, request_id: int, action: game_pb2.Action) -> None:
        await self.write(pb.BotMessage(decision=pb.Decision(game_id=game_id, request_id=request_id, action=action)))

    async def play_to_the_end(self, rng: random.Random, pending: pb.DecisionRequest | None = None) -> pb.GameOver:
        """Answer every request with a random legal action until GameOver."""
        while True:
            if pending is not None:
                await self.answer(pending.game_id, pending.request_id, rng.choice(pending.legal_actions))
                pending = None
            msg = await self.read()
            kind = msg.WhichOneof("kind")
            if kind == "decision_request":
                pending = msg.decision_request
            elif kind == "game_over":
                return msg.game_over
            elif kind in ("action_rejected", "error"):
                raise AssertionError(f"unexpected {msg}")

    async def play_until(self, rng: random.Random, kind: str) -> pb.ArenaMessage:
        """Answer every request with a random legal action until a message of `kind` arrives."""
        while (msg := await self.read()).WhichOneof("kind") != kind:
            if msg.WhichOneof("kind") == "decision_request":
                req = msg.decision_request
                await self.answer(req.game_id, req.request_id, rng.choice(req.legal_actions))
        return msg

    async def leave(self) -> grpc.StatusCode:
        """Half-close the stream, read what the arena still sends until it ends the call, and
        return the call's status."""
        await self.call.done_writing()
        self.received.extend(self._unread)
        self._unread.clear()
        while True:
            batch = await asyncio.wait_for(self.call.read(), READ_TIMEOUT_S)
            if batch is grpc.aio.EOF:
                return await self.call.code()
            self.received.extend(batch.messages)

    def kinds(self) -> list[str]:
        """The kind of every message received so far, in order."""
        return [str(m.WhichOneof("kind")) for m in self.received]

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


def show(start: int, length: int) -> game_pb2.Action:
    return game_pb2.Action(show=game_pb2.Show(start=start, length=length))


def flip(value: bool) -> game_pb2.Action:
    return game_pb2.Action(flip=game_pb2.Flip(flip=value))
