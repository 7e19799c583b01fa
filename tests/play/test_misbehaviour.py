"""Bots that break the rules or the protocol, each with its exact outcome; and access control."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from sdk import Bot
from sdk.engine import Flip, Game, GameRecord, Phase
from sdk.runner import ArenaRefused, run_async
from sdk.wire import arena_pb2, arena_pb2_grpc, game_pb2
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot, flip, show
from tests.conftest import Arena, check_against_replay

NOT_STARTED = "the round has not started: decide whether to flip your hand first"


async def two_raw_bots(arena: Arena) -> tuple[tuple[str, RawBot], tuple[str, RawBot]]:
    (a, a_token), (b, b_token) = (
        await asyncio.to_thread(arena.register, "raw"),
        await asyncio.to_thread(arena.register, "raw"),
    )
    return (a, await RawBot.connect(arena.target, a_token)), (b, await RawBot.connect(arena.target, b_token))


def test_illegal_action_is_rejected_with_the_engines_reason_and_a_retry_works(arena: Arena) -> None:
    async def scenario() -> arena_pb2.PlayGameResponse:
        (a, bot_a), (b, bot_b) = await two_raw_bots(arena)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [a, b], 21))
        b_done = asyncio.create_task(bot_b.play_to_the_end(random.Random(1)))
        req = (await bot_a.next("decision_request")).decision_request
        await bot_a.answer(req.game_id, req.request_id, show(0, 1))
        rejected = (await bot_a.read()).action_rejected
        assert (rejected.request_id, rejected.reason, rejected.attempts_left) == (req.request_id, NOT_STARTED, 4)
        await bot_a.answer(req.game_id, req.request_id, flip(False))
        assert (await bot_a.read()).action_accepted.request_id == req.request_id
        while (req := (await bot_a.next("decision_request")).decision_request).kind != pb.DECISION_KIND_ACTION:
            await bot_a.answer(req.game_id, req.request_id, flip(False))
        hand = len(req.observation.hand)
        await bot_a.answer(req.game_id, req.request_id, show(hand, 1))
        rejected = (await bot_a.read()).action_rejected
        assert rejected.reason == f"cards {hand}..{hand} are not in your hand of {hand} cards"
        assert rejected.attempts_left == 4
        await bot_a.play_to_the_end(random.Random(2), pending=req)
        await b_done
        return await game

    check_against_replay(asyncio.run(scenario()))


def test_repeated_invalid_answers_forfeit_the_seat_and_the_fallback_plays_it(arena: Arena) -> None:
    async def scenario() -> tuple[arena_pb2.PlayGameResponse, list[pb.ArenaMessage], pb.GameOver]:
        (a, bot_a), (b, bot_b) = await two_raw_bots(arena)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [a, b], 22))
        b_done = asyncio.create_task(bot_b.play_to_the_end(random.Random(3)))
        req = (await bot_a.next("decision_request")).decision_request
        for left in (4, 3, 2, 1, 0):
            await bot_a.answer(req.game_id, req.request_id, show(0, 1))
            assert (await bot_a.read()).action_rejected.attempts_left == left
        error = (await bot_a.read()).error
        assert error.code == pb.ERROR_CODE_SEAT_FORFEITED
        rest = []
        while (msg := await bot_a.read()).WhichOneof("kind") != "game_over":
            rest.append(msg)
        await b_done
        return await game, rest, msg.game_over

    response, rest, over = asyncio.run(scenario())
    assert {m.WhichOneof("kind") for m in rest} == {"public_event"}, "a forfeited seat gets no more requests"
    record = check_against_replay(response, forfeited={0})
    assert response.seats[0].forfeit == f"invalid answers: 5 illegal answers to request 1, the last: {NOT_STARTED}"
    assert response.seats[0].cause == game_pb2.FORFEIT_CAUSE_ILLEGAL
    assert [(f.seat, f.cause, f.reason) for f in over.forfeits] == [
        (0, game_pb2.FORFEIT_CAUSE_ILLEGAL, response.seats[0].forfeit)
    ], "the bot hears the cause and the reason the referee decided"
    assert not response.seats[1].HasField("cause")
    assert all(flips[0] is False for flips in record.flips), "the fallback keeps the hand"
    assert_seat_played_first_legal_actions(record, seat=0)


def assert_seat_played_first_legal_actions(record: GameRecord, seat: int) -> None:
    """Replay `record`, checking that every action of `seat` was its first legal action."""
    game = Game(record.players, record.seed)
    actions = iter(record.actions)
    for flips in record.flips:
        for s, value in enumerate(flips):
            game.apply(s, Flip(value))
        while game.phase is Phase.PLAY:
            _, mover, action = next(actions)
            if mover == seat:
                assert action == game.legal_actions(seat)[0]
            game.apply(mover, action)
    assert game.is_over


def test_answers_for_another_seat_another_game_or_a_stale_request_change_nothing(arena: Arena) -> None:
    async def scenario() -> arena_pb2.PlayGameResponse:
        (a, bot_a), (b, bot_b) = await two_raw_bots(arena)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [a, b], 23))
        req_a = (await bot_a.next("decision_request")).decision_request
        req_b = (await bot_b.next("decision_request")).decision_request
        gid = req_a.game_id

        async def refused(game_id: str, request_id: int) -> pb.Error:
            await bot_a.answer(game_id, request_id, flip(True))
            return (await bot_a.read()).error

        error = await refused(gid, req_b.request_id)
        assert error.code == pb.ERROR_CODE_NOT_YOUR_REQUEST
        assert error.message == f"request {req_b.request_id} of game {gid!r} was never sent to bot {a!r}"
        error = await refused("no-such-game", req_a.request_id)
        assert (error.code, error.message) == (
            pb.ERROR_CODE_UNKNOWN_GAME,
            f"bot {a!r} is not playing a game 'no-such-game'",
        )
        error = await refused(gid, 999)
        assert (error.code, error.message) == (
            pb.ERROR_CODE_NOT_YOUR_REQUEST,
            f"request 999 of game {gid!r} was never sent to bot {a!r}",
        )
        await bot_a.answer(gid, req_a.request_id, flip(True))
        assert (await bot_a.read()).action_accepted.request_id == req_a.request_id
        error = await refused(gid, req_a.request_id)
        assert error.code == pb.ERROR_CODE_STALE_REQUEST
        assert error.message == f"request {req_a.request_id} of game {gid!r} was already answered or has expired"
        await bot_b.answer(gid, req_b.request_id, flip(False))
        assert (await bot_b.read()).action_accepted.request_id == req_b.request_id
        await asyncio.gather(bot_a.play_to_the_end(random.Random(4)), bot_b.play_to_the_end(random.Random(5)))
        return await game

    record = check_against_replay(asyncio.run(scenario()))
    assert record.flips[0] == (True, False), "seat 1 kept its own decision, not the one bot A sent for it"


def test_a_bot_at_capacity_gets_no_further_game(arena: Arena) -> None:
    (a, a_token), (b, b_token) = arena.register("raw"), arena.register("raw")

    async def scenario() -> None:
        bot_a = RawBot(arena.target, a_token)
        await bot_a.write(pb.BotMessage(hello=pb.Hello(capacity=1, want_legal_actions=True)))
        assert (await bot_a.read()).welcome.capacity == 1
        bot_b = await RawBot.connect(arena.target, b_token)
        game = asyncio.create_task(asyncio.to_thread(arena.play, [a, b], 24))
        first = (await bot_a.next("decision_request")).decision_request
        with pytest.raises(grpc.RpcError) as refused:
            await asyncio.to_thread(arena.play, [b, a], 25)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.value.details() == f"bot {a!r} is already playing 1 games, its capacity"
        await asyncio.gather(bot_a.play_to_the_end(random.Random(6), first), bot_b.play_to_the_end(random.Random(7)))
        check_against_replay(await game)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "token, details",
    [
        (None, "missing bot token: send the metadata 'authorization: Bearer <token>'"),
        ("not-a-token", "unknown bot token: register the bot to get one"),
    ],
)
def test_wrong_or_missing_token_is_unauthenticated(arena: Arena, token: str | None, details: str) -> None:
    async def scenario() -> None:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await RawBot.connect(arena.target, token)
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.UNAUTHENTICATED, details)

    asyncio.run(scenario())


class _NeverCalled(Bot):
    def choose(self, obs):  # type: ignore[no-untyped-def]
        raise AssertionError("a refused bot is never asked")


def test_runner_with_a_wrong_token_stops_with_a_clear_error(arena: Arena) -> None:
    with pytest.raises(ArenaRefused, match=r"^UNAUTHENTICATED: unknown bot token: register the bot to get one$"):
        asyncio.run(asyncio.wait_for(run_async(_NeverCalled(), target=arena.target, token="wrong"), 10))


@pytest.mark.parametrize(
    "hello, details",
    [
        (
            pb.BotMessage(decision=pb.Decision(game_id="g", request_id=1, action=flip(True))),
            "the first message of a stream must be a Hello",
        ),
        (pb.BotMessage(hello=pb.Hello(capacity=0)), "Hello.capacity must be within 1..256, not 0"),
        (pb.BotMessage(), "a BotMessage must set hello or decision"),
    ],
)
def test_a_stream_must_open_with_a_valid_hello(arena: Arena, hello: pb.BotMessage, details: str) -> None:
    token = arena.register("raw")[1]

    async def scenario() -> None:
        bot = RawBot(arena.target, token)
        await bot.write(hello)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.read()
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.INVALID_ARGUMENT, details)

    asyncio.run(scenario())


def test_operator_calls_check_their_caller_and_arguments(arena: Arena) -> None:
    name, _ = arena.register("idle")
    with grpc.insecure_channel(arena.target) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)

        def status(call, request, metadata=arena.admin_metadata):  # type: ignore[no-untyped-def]
            with pytest.raises(grpc.RpcError) as refused:
                call(request, metadata=metadata, timeout=10)
            return refused.value.code(), refused.value.details()

        play = arena_pb2.PlayGameRequest(bots=[name, name], seed=1)
        assert status(stub.PlayGame, play, ()) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "PlayGame needs the arena's admin token as 'authorization: Bearer <token>'",
        )
        assert status(stub.PlayGame, play, (("authorization", "Bearer nope"),))[0] == grpc.StatusCode.UNAUTHENTICATED
        assert status(stub.PlayGame, play) == (grpc.StatusCode.FAILED_PRECONDITION, f"bot {name!r} is not connected")
        assert status(stub.PlayGame, arena_pb2.PlayGameRequest(bots=[name])) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "SCOUT is played by 2 to 5 players, not 1",
        )
        assert status(stub.PlayGame, arena_pb2.PlayGameRequest(bots=[name, name], move_limit_ms=1)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "move_ms must be within 10..600000, not 1",
        )
        assert status(stub.RegisterBot, arena_pb2.RegisterBotRequest(name=name)) == (
            grpc.StatusCode.ALREADY_EXISTS,
            f"the bot name {name!r} is taken: choose another",
        )
        code, details = status(stub.RegisterBot, arena_pb2.RegisterBotRequest(name="no spaces"))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("invalid bot name 'no spaces'")
