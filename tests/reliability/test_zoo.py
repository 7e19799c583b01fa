"""The broken-bot zoo: one test per way a bot can fail, each with its exact outcome; after each,
the other seats' game has completed (its result is the engine's replay of its record) and the
arena still serves healthy bots. Cases tests/api already pins exactly are listed in
docs/reliability.md, not repeated here."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from sdk.wire import arena_pb2, arena_pb2_grpc, game_pb2
from sdk.wire import bot_session_pb2 as pb
from tests.api.rawclient import RawBot, flip, show
from tests.conftest import HEALTHY_MOVE_MS
from tests.play.test_misbehaviour import NOT_STARTED, assert_seat_played_first_legal_actions
from tests.reliability.conftest import WAIT_S, Arena, Healthy, check_against_replay, start_zoo, wait_for_text
from tests.reliability.zoo_bot import EXIT_CODE

SUPERSEDED_STATUS = "superseded by a newer session of this bot: do not reconnect, the newer one plays its seats"
"""How the arena ends a stream another one of the same bot took over (docs/protocol.md, "Reconnecting")."""
GRACE = 300
"""The grace period (ms) the crash tests play with, so a crashed seat forfeits quickly."""


def disconnected(grace_ms: int = GRACE) -> str:
    return f"disconnected: not back within the {grace_ms} ms grace period"


# -- whole processes that die ------------------------------------------------------------------


def test_crash_at_connect_leaves_the_bot_unavailable(arena: Arena, healthy: Healthy) -> None:
    """A process that dies right after its Welcome is simply not connected: a game naming it is
    refused with FAILED_PRECONDITION before anything starts."""
    name, token = arena.register("zoo")
    proc, log = start_zoo(arena, token, "crash-at-connect")
    assert proc.wait(timeout=WAIT_S) == EXIT_CODE
    wait_for_text(arena.logs / "server.log", f"bot {name!r} disconnected")
    with grpc.insecure_channel(arena.target) as channel, pytest.raises(grpc.RpcError) as refused:
        arena_pb2_grpc.ArenaStub(channel).PlayGame(
            arena_pb2.PlayGameRequest(bots=[healthy.names[0], name], seed=1),
            metadata=arena.admin_metadata,
            timeout=WAIT_S,
        )
    assert (refused.value.code(), refused.value.details()) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        f"bot {name!r} is not connected",
    )
    assert "received welcome" in log.read_text()
    healthy.check_still_served(seed=101)


def test_crash_at_game_start_forfeits_after_grace_and_the_fallback_plays_every_move(
    arena: Arena, healthy: Healthy
) -> None:
    name, token = arena.register("zoo")
    proc, log = start_zoo(arena, token, "crash-at-start")
    wait_for_text(log, "received welcome")
    a, b = healthy.names
    response = arena.play([a, name, b], seed=102, grace_ms=GRACE)
    assert proc.wait(timeout=WAIT_S) == EXIT_CODE
    record = check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == disconnected()
    assert [s.rank for s in response.seats][1] == 3
    assert_seat_played_first_legal_actions(record, seat=1)
    healthy.check_still_served(seed=103)


def test_crash_mid_game_forfeits_after_grace_and_the_game_completes(arena: Arena, healthy: Healthy) -> None:
    name, token = arena.register("zoo")
    proc, log = start_zoo(arena, token, "crash-mid-game", "--after", "6")
    a, b = healthy.names
    response = arena.play([a, name, b], seed=104, grace_ms=GRACE)
    assert proc.wait(timeout=WAIT_S) == EXIT_CODE
    assert "decision 5" in log.read_text() and "crashing on decision 6" in log.read_text()
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == disconnected()
    healthy.check_still_served(seed=105)


def test_a_bot_whose_code_raises_times_out_and_its_session_survives(arena: Arena, healthy: Healthy) -> None:
    """The SDK runner logs the bot's exception and does not answer; the arena times the seat
    out; the process and its session stay up for later games."""
    name, token = arena.register("zoo")
    proc, log = start_zoo(arena, token, "raises")
    a, b = healthy.names
    response = arena.play([a, name, b], seed=106, move_limit_ms=HEALTHY_MOVE_MS, time_bank_ms=0)
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == f"timeout: no legal answer to request 2 within {HEALTHY_MOVE_MS} ms"
    assert "raising" in log.read_text()
    again = arena.play([name, a], seed=107, move_limit_ms=HEALTHY_MOVE_MS, time_bank_ms=0)
    check_against_replay(again, forfeited={0})
    assert again.seats[0].forfeit == f"timeout: no legal answer to request 1 within {HEALTHY_MOVE_MS} ms"
    assert proc.poll() is None, "a bot raising in its code must not take its process down"
    healthy.check_still_served(seed=108)


# -- raw sessions that send the wrong things ---------------------------------------------------


async def raw_game(arena: Arena, bots: list[str], seed: int, **limits: int) -> asyncio.Task[arena_pb2.PlayGameResponse]:
    return asyncio.create_task(asyncio.to_thread(arena.play, bots, seed, **limits))


def test_answers_after_the_deadline_forfeit_and_the_late_answer_is_stale(arena: Arena, healthy: Healthy) -> None:
    """The rival seat is a raw session too: it holds its first turn until the late answer has been
    refused, so the game is still being played when that answer arrives (against a fast bot the
    game could end first, and the answer would name an unknown game instead)."""
    name, token = arena.register("late")
    rival_name, rival_token = arena.register("rival")

    async def scenario() -> tuple[arena_pb2.PlayGameResponse, list[pb.ArenaMessage]]:
        bot = await RawBot.connect(arena.target, token)
        rival = await RawBot.connect(arena.target, rival_token)
        game = await raw_game(arena, [name, rival_name], 109, move_limit_ms=HEALTHY_MOVE_MS, time_bank_ms=0)
        rival_flip = (await rival.next("decision_request")).decision_request
        await rival.answer(rival_flip.game_id, rival_flip.request_id, flip(False))
        req = (await bot.next("decision_request")).decision_request
        forfeited = (await bot.next("error")).error
        assert (forfeited.code, forfeited.message) == (
            pb.ERROR_CODE_SEAT_FORFEITED,
            f"seat 0 of game {req.game_id!r} was forfeited: "
            f"timeout: no legal answer to request {req.request_id} within {HEALTHY_MOVE_MS} ms",
        )
        held = (await rival.next("decision_request")).decision_request
        await bot.answer(req.game_id, req.request_id, flip(False))
        stale = (await bot.next("error")).error
        assert (stale.code, stale.message) == (
            pb.ERROR_CODE_STALE_REQUEST,
            f"request {req.request_id} of game {req.game_id!r} was already answered or has expired",
        )
        await rival.play_to_the_end(random.Random(109), held)
        rest = []
        while (msg := await bot.read()).WhichOneof("kind") != "game_over":
            rest.append(msg)
        await bot.close()
        await rival.close()
        return await game, rest

    response, rest = asyncio.run(scenario())
    assert {m.WhichOneof("kind") for m in rest} <= {"public_event"}, "a forfeited seat gets no more requests"
    check_against_replay(response, forfeited={0})
    assert response.seats[0].forfeit == f"timeout: no legal answer to request 1 within {HEALTHY_MOVE_MS} ms"
    healthy.check_still_served(seed=110)


def test_illegal_answers_forever_forfeit_once_and_every_later_answer_is_stale(arena: Arena, healthy: Healthy) -> None:
    """Beyond test_misbehaviour's forfeit at the fifth illegal answer: the bot keeps sending, each
    later answer is refused as stale, no further request comes, and the game completes."""
    name, token = arena.register("illegal")

    async def scenario() -> arena_pb2.PlayGameResponse:
        bot = await RawBot.connect(arena.target, token)
        game = await raw_game(arena, [name, healthy.names[0]], 111)
        req = (await bot.next("decision_request")).decision_request
        for left in (4, 3, 2, 1, 0):
            await bot.answer(req.game_id, req.request_id, show(0, 1))
            assert (await bot.read()).action_rejected.attempts_left == left
        assert (await bot.next("error")).error.code == pb.ERROR_CODE_SEAT_FORFEITED
        for _ in range(20):
            await bot.answer(req.game_id, req.request_id, show(0, 1))
        kinds = []
        while (msg := await bot.read()).WhichOneof("kind") != "game_over":
            kinds.append(msg.WhichOneof("kind"))
            if msg.WhichOneof("kind") == "error":
                assert msg.error.code == pb.ERROR_CODE_STALE_REQUEST
        assert "decision_request" not in kinds
        await bot.close()
        return await game

    response = asyncio.run(scenario())
    check_against_replay(response, forfeited={0})
    assert response.seats[0].forfeit == f"invalid answers: 5 illegal answers to request 1, the last: {NOT_STARTED}"
    healthy.check_still_served(seed=112)


def with_unknown_field(msg: pb.BotMessage) -> pb.BotMessage:
    """`msg` carrying an unknown field 111 (varint 1), as a newer client's message would."""
    return pb.BotMessage.FromString(msg.SerializeToString() + b"\xf8\x06\x01")


def test_out_of_range_fields_and_unknown_enum_values_get_specific_errors_and_change_nothing(
    arena: Arena, healthy: Healthy
) -> None:
    """Each bad message gets its own reply: one that cannot be routed an Error; a malformed or
    illegal answer to the bot's own request an ActionRejected for it, each counting as an attempt;
    an unknown field is ignored, so that decision is accepted."""
    name, token = arena.register("odd")

    async def scenario() -> arena_pb2.PlayGameResponse:
        bot = await RawBot.connect(arena.target, token)
        # A minute a move: the dozen replies below all answer one request, and under the arena's
        # 400 ms default a busy machine timed the seat out between two of them.
        game = await raw_game(arena, [name, healthy.names[0]], 113, move_limit_ms=60_000)
        req = (await bot.next("decision_request")).decision_request
        gid, rid = req.game_id, req.request_id

        async def reply(msg: pb.BotMessage) -> pb.ArenaMessage:
            await bot.write(msg)
            while (got := await bot.read()).WhichOneof("kind") == "public_event":
                pass
            return got

        def decision(action: game_pb2.Action | None, game_id: str = gid, request_id: int = rid) -> pb.BotMessage:
            return pb.BotMessage(decision=pb.Decision(game_id=game_id, request_id=request_id, action=action))

        odd_id = "\x00" + "g" * 50
        unknown_end = game_pb2.Action(scout=game_pb2.Scout(end=7, flip=True, position=-3))  # type: ignore[arg-type]
        cases: list[tuple[pb.BotMessage, int, str]] = [
            (pb.BotMessage(), pb.ERROR_CODE_MALFORMED, "a BotMessage must set hello or decision"),
            (
                pb.BotMessage(hello=pb.Hello(capacity=64)),
                pb.ERROR_CODE_PROTOCOL,
                "Hello may only be the first message of a stream",
            ),
            (
                decision(flip(True), request_id=2**64 - 1),
                pb.ERROR_CODE_NOT_YOUR_REQUEST,
                f"request {2**64 - 1} of game {gid!r} was never sent to bot {name!r}",
            ),
            (
                decision(flip(True), game_id=odd_id),
                pb.ERROR_CODE_UNKNOWN_GAME,
                f"bot {name!r} is not playing a game {odd_id!r}",
            ),
            (
                decision(flip(True), game_id=odd_id * 20),
                pb.ERROR_CODE_MALFORMED,
                f"the Decision for request {rid} names a game id of {len(odd_id) * 20} characters; "
                "game ids have at most 64",
            ),
        ]
        for msg, code, message in cases:
            got = await reply(msg)
            assert (got.WhichOneof("kind"), got.error.code, got.error.message) == ("error", code, message), msg
        rejected: list[tuple[pb.BotMessage, str]] = [
            (decision(None), f"the Decision for request {rid} has no action"),
            (decision(unknown_end), "scout end must be END_LEFT or END_RIGHT"),
            (decision(game_pb2.Action()), "the action has none of flip, show, scout, scout_show set"),
            (decision(show(2**31 - 1, -(2**31))), NOT_STARTED),
        ]
        for attempts_left, (msg, reason) in zip(range(4, 0, -1), rejected, strict=True):
            got = (await reply(msg)).action_rejected
            assert (got.game_id, got.request_id, got.reason, got.attempts_left) == (gid, rid, reason, attempts_left), (
                msg
            )
        accepted = await reply(with_unknown_field(decision(flip(False))))
        assert accepted.action_accepted.request_id == rid
        await bot.play_to_the_end(random.Random(113))
        await bot.close()
        return await game

    response = asyncio.run(scenario())
    record = check_against_replay(response)
    assert record.flips[0][0] is False
    healthy.check_still_served(seed=114)


def test_a_message_over_the_receive_limit_mid_game_ends_the_stream_and_the_seat_forfeits(
    arena: Arena, healthy: Healthy
) -> None:
    name, token = arena.register("big")

    async def scenario() -> tuple[arena_pb2.PlayGameResponse, grpc.StatusCode]:
        bot = await RawBot.connect(arena.target, token)
        game = await raw_game(arena, [healthy.names[0], name], 115, grace_ms=GRACE)
        req = (await bot.next("decision_request")).decision_request
        await bot.answer(req.game_id + "x" * 70_000, req.request_id, flip(False))
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            while True:
                await bot.read()
        await bot.close()
        return await game, ended.value.code()

    response, code = asyncio.run(scenario())
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    check_against_replay(response, forfeited={1})
    assert response.seats[1].forfeit == disconnected()
    healthy.check_still_served(seed=116)


def test_another_bots_token_takes_over_its_seats_and_the_old_stream_is_superseded(
    arena: Arena, healthy: Healthy
) -> None:
    """The token is the bot's identity: a second program holding it becomes that bot. The stream
    it displaces is told so and ends with a status that says not to reconnect; the game goes on
    with the newcomer, without a forfeit."""
    name, token = arena.register("victim")

    async def scenario() -> arena_pb2.PlayGameResponse:
        owner = await RawBot.connect(arena.target, token)
        game = await raw_game(arena, [name, healthy.names[0]], 117)
        req = (await owner.next("decision_request")).decision_request
        impostor = RawBot(arena.target, token)
        await impostor.write(pb.BotMessage(hello=pb.Hello(bot_name="impostor", capacity=2, want_legal_actions=True)))
        welcome = (await impostor.read()).welcome
        superseded = (await owner.next("error")).error
        assert (superseded.code, superseded.message) == (
            pb.ERROR_CODE_SUPERSEDED,
            f"a newer session ({welcome.session_id}) took over bot {name!r}",
        )
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(owner.call.read(), WAIT_S)
        assert (ended.value.code(), ended.value.details()) == (grpc.StatusCode.FAILED_PRECONDITION, SUPERSEDED_STATUS)
        started = (await impostor.read()).game_started
        assert (started.game_id, started.seat) == (req.game_id, 0)
        resent = (await impostor.next("decision_request")).decision_request
        assert resent.request_id == req.request_id
        await impostor.play_to_the_end(random.Random(117), pending=resent)
        await owner.close()
        await impostor.close()
        return await game

    check_against_replay(asyncio.run(scenario()))
    healthy.check_still_served(seed=118)


def test_a_reconnect_storm_leaves_exactly_one_live_session(arena: Arena, healthy: Healthy) -> None:
    """Forty streams opened at once with one token: every one is welcomed, all but one are
    superseded and end, and the survivor plays a full game."""
    name, token = arena.register("storm")
    storm = 40

    async def serve(bot: RawBot, rng: random.Random) -> str:
        """Answer requests with random legal actions until the stream ends (superseded) or the
        game is over; return which."""
        errors = []
        messages = list(bot._unread)  # what arrived with the Welcome
        while True:
            for msg in messages:
                kind = msg.WhichOneof("kind")
                if kind == "decision_request":
                    req = msg.decision_request
                    await bot.answer(req.game_id, req.request_id, rng.choice(req.legal_actions))
                elif kind == "error":
                    errors.append(msg.error)
                elif kind == "game_over":
                    assert errors == []
                    return "played"
            try:
                batch = await bot.call.read()
            except grpc.aio.AioRpcError as ended:
                assert ended.code() == grpc.StatusCode.FAILED_PRECONDITION, ended
                assert [e.code for e in errors] == [pb.ERROR_CODE_SUPERSEDED], errors
                return "superseded"
            assert batch is not grpc.aio.EOF, "a superseded stream must end with FAILED_PRECONDITION, not OK"
            messages = list(batch.messages)

    async def scenario() -> arena_pb2.PlayGameResponse:
        bots = await asyncio.gather(*(RawBot.connect(arena.target, token) for _ in range(storm)))
        pending = {asyncio.create_task(serve(bot, random.Random(i))) for i, bot in enumerate(bots)}
        while len(pending) > 1:
            done, pending = await asyncio.wait(pending, timeout=WAIT_S, return_when=asyncio.FIRST_COMPLETED)
            assert done, f"{len(pending)} streams neither superseded nor live after {WAIT_S} s"
            assert [task.result() for task in done] == ["superseded"] * len(done)
        game = await raw_game(arena, [name, healthy.names[1]], 119)
        (survivor,) = pending
        assert await asyncio.wait_for(survivor, 60) == "played"
        for bot in bots:
            await bot.close()
        return await game

    check_against_replay(asyncio.run(scenario()))
    healthy.check_still_served(seed=120)


def test_reconnecting_within_grace_resumes_the_seat_and_delivers_the_missed_events(arena: Arena) -> None:
    """Bot A answers its flip and drops its stream; bot B flips and moves meanwhile, so events
    happen that A never received; A's new stream gets GameStarted, every event from seq 0 (the
    missed ones included, identical to what the old stream had) and its pending request."""
    (a, a_token), (b, b_token) = arena.register("resume"), arena.register("resume")

    async def scenario() -> tuple[arena_pb2.PlayGameResponse, list[pb.ArenaMessage], list[pb.ArenaMessage]]:
        bot_a, bot_b = await RawBot.connect(arena.target, a_token), await RawBot.connect(arena.target, b_token)
        game = await raw_game(arena, [b, a], 121, grace_ms=10_000)
        req_a = (await bot_a.next("decision_request")).decision_request
        await bot_a.answer(req_a.game_id, req_a.request_id, flip(False))
        assert (await bot_a.next("action_accepted")).action_accepted.request_id == req_a.request_id
        await bot_a.close()
        req_b = (await bot_b.next("decision_request")).decision_request
        await bot_b.answer(req_b.game_id, req_b.request_id, flip(False))
        req_b = (await bot_b.next("decision_request")).decision_request
        assert req_b.kind == pb.DECISION_KIND_ACTION
        await bot_b.answer(req_b.game_id, req_b.request_id, req_b.legal_actions[0])
        assert (await bot_b.next("action_accepted")).action_accepted.request_id == req_b.request_id
        b_done = asyncio.create_task(bot_b.play_to_the_end(random.Random(121)))
        again = await RawBot.connect(arena.target, a_token)
        started = (await again.read()).game_started
        assert (started.game_id, started.seat) == (req_a.game_id, 1)
        resumed = []
        while (msg := await again.read()).WhichOneof("kind") == "public_event":
            resumed.append(msg)
        assert msg.WhichOneof("kind") == "decision_request" and msg.decision_request.kind == pb.DECISION_KIND_ACTION
        await again.play_to_the_end(random.Random(122), pending=msg.decision_request)
        await b_done
        for bot in (bot_b, again):
            await bot.close()
        return await game, bot_a.received, resumed

    response, before, resumed = asyncio.run(scenario())
    check_against_replay(response)
    seqs = [m.public_event.seq for m in resumed]
    assert seqs == list(range(len(seqs))), "the resumed stream gets every event from seq 0, in order"
    old = {m.public_event.seq: m.public_event for m in before if m.WhichOneof("kind") == "public_event"}
    assert all(resumed[seq].public_event == event for seq, event in old.items())
    missed = [m.public_event.event.WhichOneof("kind") for m in resumed if m.public_event.seq not in old]
    assert missed[0] == "flips_revealed" and missed[1] in ("shown", "scouted"), f"missed events: {missed}"


def test_a_healthy_bot_is_served_while_a_broken_one_crashes_in_a_parallel_game(arena: Arena, healthy: Healthy) -> None:
    """A crash in one game does not disturb another game the healthy bots play at the same time."""
    name, token = arena.register("zoo")
    proc, _ = start_zoo(arena, token, "crash-mid-game", "--after", "3")
    a, b = healthy.names
    with ThreadPoolExecutor(2) as pool:
        broken = pool.submit(arena.play, [name, a, b], 123, grace_ms=GRACE)
        clean = pool.submit(arena.play, [b, a], 124)
        broken_result, clean_result = broken.result(timeout=120), clean.result(timeout=120)
    assert proc.wait(timeout=WAIT_S) == EXIT_CODE
    check_against_replay(broken_result, forfeited={0})
    assert broken_result.seats[0].forfeit == disconnected()
    check_against_replay(clean_result)
