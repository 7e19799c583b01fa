"""A bot that answers another seat's request learns nothing about that seat: the rejection is the
same, byte for byte, before and after the seat decides, and the same as for an id never sent."""

from __future__ import annotations

import asyncio
import random

import grpc

from sdk.wire import arena_pb2, arena_pb2_grpc
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot, flip
from tests.security.helpers import admin, running_arena, target


def test_a_probe_of_another_seats_request_gets_the_same_answer_before_and_after_it_decides() -> None:
    async def scenario() -> tuple[bytes, bytes, bytes, arena_pb2.PlayGameResponse]:
        async with running_arena() as arena, grpc.aio.insecure_channel(target(arena)) as channel:
            a, b = "prober", "flipper"
            bot_a = await RawBot.connect(target(arena), await arena.directory.register(a))
            bot_b = await RawBot.connect(target(arena), await arena.directory.register(b))
            stub = arena_pb2_grpc.ArenaStub(channel)
            game = asyncio.ensure_future(
                stub.PlayGame(arena_pb2.PlayGameRequest(bots=[a, b], seed=7), metadata=admin(arena), timeout=60)
            )
            mine = (await bot_a.next("decision_request")).decision_request
            theirs = (await bot_b.next("decision_request")).decision_request
            gid = mine.game_id

            async def probe(request_id: int) -> bytes:
                await bot_a.answer(gid, request_id, flip(True))
                return (await bot_a.next("error")).error.SerializeToString()

            before = await probe(theirs.request_id)
            await bot_b.answer(gid, theirs.request_id, flip(False))
            assert (await bot_b.next("action_accepted")).action_accepted.request_id == theirs.request_id
            after = await probe(theirs.request_id)
            never = await probe(99)
            await bot_a.answer(gid, mine.request_id, flip(True))
            await asyncio.gather(bot_a.play_to_the_end(random.Random(1)), bot_b.play_to_the_end(random.Random(2)))
            result = await game
            await bot_a.close()
            await bot_b.close()
            return before, after, never, result

    before, after, never, result = asyncio.run(scenario())
    assert before == after
    rejected = pb.Error.FromString(before)
    assert rejected.code == pb.ERROR_CODE_NOT_YOUR_REQUEST
    assert (
        rejected.message == f"request {rejected.request_id} of game {rejected.game_id!r} was never sent to bot 'prober'"
    )
    other = pb.Error.FromString(never)
    assert (other.code, other.message) == (
        rejected.code,
        f"request 99 of game {rejected.game_id!r} was never sent to bot 'prober'",
    )
    assert len(result.seats) == 2
