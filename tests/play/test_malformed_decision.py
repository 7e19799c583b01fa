"""A Decision whose action does not decode is rejected for its request, like an illegal answer.

In process, on a clock the test moves (tests/play/clock.py), without gRPC but through the arena's
decoding (`arena.api.bot_session_wire.bot_message_from_pb`): the bot gets an ActionRejected
naming its game and request with the reason and the attempts left, can retry, and forfeits
(ILLEGAL) after too many; a malformed answer naming a request that is not the bot's gets exactly
the answer a well-formed one would, so it tells nothing of other seats.
"""

from __future__ import annotations

import asyncio

from arena.api import bot_session_wire as convert
from arena.play.referee import Limits, Referee
from arena.play.results import ForfeitCause, GameResult
from arena.play.sessions import SessionHub, Stream
from sdk.engine import Flip
from sdk.protocol import (
    ActionRejected,
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    Hello,
)
from sdk.runner import local_legal_actions
from sdk.wire import bot_session_pb2 as pb
from tests.play.clock import ManualClock

MAX_INVALID = 3


def _malformed(game_id: str, request_id: int) -> pb.BotMessage:
    return pb.BotMessage(decision=pb.Decision(game_id=game_id, request_id=request_id))


def _well_formed(game_id: str, request_id: int) -> pb.BotMessage:
    return pb.BotMessage(decision=pb.Decision(game_id=game_id, request_id=request_id, action={"flip": {"flip": True}}))


async def _pump(hub: SessionHub, name: str, stream: Stream, heard: list[ArenaMessage]) -> None:
    """Play `name`: "bad" answers its first request only with Decisions that lack an action (and
    probes the next request id both ways first); the others answer the first legal action."""
    conn = hub.get(name)
    assert conn is not None
    while batch := await stream.next_batch():
        for msg in batch:
            heard.append(msg)
            if type(msg) is not DecisionRequest:
                continue
            if name == "bad" and msg.kind is DecisionKind.FLIP:
                for probe in (_malformed, _well_formed):
                    hub.receive(conn, convert.bot_message_from_pb(probe(msg.game_id, msg.request_id + 1)))
                for _ in range(MAX_INVALID):
                    hub.receive(conn, convert.bot_message_from_pb(_malformed(msg.game_id, msg.request_id)))
                continue
            action = Flip(False) if msg.kind is DecisionKind.FLIP else local_legal_actions(msg.observation)[0]
            hub.receive(conn, Decision(msg.game_id, msg.request_id, action))


def _play() -> tuple[GameResult, list[ArenaMessage]]:
    async def scenario() -> tuple[GameResult, list[ArenaMessage]]:
        clock = ManualClock()
        hub = SessionHub(clock)
        heard: list[ArenaMessage] = []
        streams, pumps = [], []
        for name in ("good", "bad"):
            _, stream = hub.open(name, Hello(name, "1", 1, False), name)
            streams.append(stream)
            pumps.append(asyncio.ensure_future(_pump(hub, name, stream, heard if name == "bad" else [])))
        limits = Limits(move_ms=2000, max_invalid=MAX_INVALID)
        result = await clock.run(Referee(hub).play("g", ["good", "bad"], 5, limits))
        for stream in streams:
            stream.close()
        await clock.run(asyncio.gather(*pumps))
        return result, heard

    return asyncio.run(scenario())


def test_a_malformed_decision_is_rejected_for_its_request_and_counts_as_an_attempt() -> None:
    result, heard = _play()
    request = next(m for m in heard if type(m) is DecisionRequest)
    rid = request.request_id
    rejections = [m for m in heard if type(m) is ActionRejected]
    reason = f"the Decision for request {rid} has no action"
    assert rejections == [ActionRejected("g", rid, reason, left) for left in range(MAX_INVALID - 1, -1, -1)]
    seat = result.seats[1]
    assert (seat.bot, seat.cause) == ("bad", ForfeitCause.ILLEGAL)
    assert seat.forfeit == f"invalid answers: {MAX_INVALID} illegal answers to request {rid}, the last: {reason}"


def test_a_malformed_probe_of_another_request_gets_the_answer_a_well_formed_one_gets() -> None:
    _, heard = _play()
    rid = next(m for m in heard if type(m) is DecisionRequest).request_id
    errors = [m for m in heard if type(m) is ErrorNotice and m.request_id == rid + 1]
    assert len(errors) == 2 and errors[0] == errors[1]
    assert errors[0].code is ErrorCode.NOT_YOUR_REQUEST
