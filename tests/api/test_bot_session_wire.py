"""Both sides of the wire agree: arena encoding then SDK decoding (and the reverse) is lossless."""

import dataclasses
import random

import pytest

from arena.api import bot_session_wire as arena_convert
from arena.play.sessions import MalformedDecision
from sdk.engine import (
    FLIPS,
    Action,
    End,
    EndReason,
    Flip,
    Game,
    Observation,
    Phase,
    Scout,
    ScoutShow,
    Show,
    observe,
)
from sdk.protocol import (
    ActionAccepted,
    ActionRejected,
    ArenaMessage,
    Decision,
    DecisionKind,
    DecisionRequest,
    ErrorCode,
    ErrorNotice,
    Forfeit,
    ForfeitCause,
    GameOver,
    GameStarted,
    Hello,
    PublicEvent,
    Welcome,
)
from sdk.wire import bot_session as sdk_convert
from sdk.wire import bot_session_pb2 as session_pb
from sdk.wire import codecs, framing
from sdk.wire import game_pb2 as game_pb


def over_the_wire(msg: ArenaMessage, legal_actions: bool = True) -> ArenaMessage:
    data = arena_convert.arena_batch_bytes([msg], legal_actions)
    received, skipped = sdk_convert.arena_batch_from_pb(session_pb.ArenaBatch.FromString(data))
    assert skipped == [] and len(received) == 1
    return received[0]


def bot_over_the_wire(msg: Hello | Decision) -> object:
    data = sdk_convert.bot_batch_bytes([msg])
    [received] = arena_convert.bot_batch_from_pb(session_pb.BotBatch.FromString(data))
    return received


def without_history(obs: Observation, legal: bool = True) -> Observation:
    table = dataclasses.replace(obs.table, history=())
    return dataclasses.replace(obs, table=table, legal_actions=obs.legal_actions if legal else ())


def random_games(players: int, count: int):
    """Yield every intermediate state of `count` random games."""
    for seed in range(count):
        game, rng = Game(players, seed), random.Random(seed)
        yield game
        while not game.is_over:
            seat = game.awaiting[0]
            actions = game.legal_actions(seat)
            game.apply(seat, actions[rng.randrange(len(actions))])
            yield game


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observations_events_and_requests_round_trip(players: int) -> None:
    kinds_seen: set[str] = set()
    sent_events = 0
    for game in random_games(players, 2):
        if not game.events or len(game.events) < sent_events:
            sent_events = 0
        for seq in range(sent_events, len(game.events)):
            event = PublicEvent("g", seq, game.events[seq])
            assert over_the_wire(event) == event
            kinds_seen.add(type(game.events[seq]).__name__)
        sent_events = len(game.events)
        for seat in {*game.awaiting[:1], (game.round + sent_events) % players}:
            obs = observe(game, seat)
            kind = DecisionKind.FLIP if game.phase is Phase.FLIP else DecisionKind.ACTION
            request = DecisionRequest("g", 7, kind, obs, 1500, 300)
            assert over_the_wire(request) == dataclasses.replace(request, observation=without_history(obs))
            assert over_the_wire(request, legal_actions=False) == dataclasses.replace(
                request, observation=without_history(obs, legal=False)
            )
    expected = {"RoundStarted", "FlipsRevealed", "Shown", "Scouted", "RoundEnded"}
    if players > 2:
        expected.add("ScoutedAndShown")
    assert expected <= kinds_seen


@pytest.mark.parametrize(
    "msg",
    [
        Welcome("s1", "alice", 4),
        GameStarted("g", 2, ("a", "b", "c"), 2000, 500),
        ActionAccepted("g", 3),
        ActionRejected("g", 3, "the set shown is not stronger than the active set", 4),
        GameOver("g", (5, -2, 7), (2, 3, 1), (Forfeit(1, ForfeitCause.TIMEOUT, "timeout: no legal answer"),), ()),
        GameOver(
            "g",
            (5, -2, 7, 0),
            (2, 4, 1, 3),
            (*(Forfeit(s, cause, cause.value) for s, cause in enumerate(ForfeitCause)),),
            tuple(EndReason)[:3],
        ),
        GameOver("g", (5, -2), (1, 2), (Forfeit(1, None, "casual game ended: a tournament game took it"),), ()),
        *(ErrorNotice(code, f"because {code.value}", "g", 9) for code in ErrorCode),
    ],
)
def test_session_messages_round_trip(msg: ArenaMessage) -> None:
    assert over_the_wire(msg) == msg


ACTIONS: list[Action] = [
    *FLIPS,
    Show(0, 1),
    Show(3, 4),
    Scout(End.LEFT, False, 0),
    Scout(End.RIGHT, True, 11),
    ScoutShow(Scout(End.RIGHT, False, 2), Show(1, 3)),
]


@pytest.mark.parametrize("action", ACTIONS)
def test_decisions_round_trip(action: Action) -> None:
    decision = Decision("game-1", 2**40, action)
    assert bot_over_the_wire(decision) == decision


@pytest.mark.parametrize("accept_casual", [False, True])
def test_hello_round_trips(accept_casual: bool) -> None:
    hello = Hello("RandomBot", "1.2", 8, True, ("cup",), accept_casual)
    assert bot_over_the_wire(hello) == hello


@pytest.mark.parametrize(
    "pb, reason",
    [
        (session_pb.BotMessage(), "a BotMessage must set hello or decision"),
        (
            session_pb.BotMessage(decision=session_pb.Decision(game_id="g" * 65, request_id=4, action={"flip": {}})),
            "the Decision for request 4 names a game id of 65 characters; game ids have at most 64",
        ),
    ],
)
def test_unroutable_bot_messages_name_the_problem(pb: session_pb.BotMessage, reason: str) -> None:
    with pytest.raises(codecs.WireError, match=f"^{reason}$"):
        arena_convert.bot_message_from_pb(pb)


@pytest.mark.parametrize(
    "action, reason",
    [
        (None, "the Decision for request 4 has no action"),
        ({}, "the action has none of flip, show, scout, scout_show set"),
        ({"scout": {"position": 1}}, "scout end must be END_LEFT or END_RIGHT"),
        ({"scout_show": {"show": {"length": 1}}}, "a scout_show action needs both its scout and its show"),
    ],
)
def test_a_decision_with_a_malformed_action_keeps_its_ids_for_the_rejection(action: dict | None, reason: str) -> None:
    pb = session_pb.BotMessage(decision=session_pb.Decision(game_id="g", request_id=4, action=action))
    assert arena_convert.bot_message_from_pb(pb) == MalformedDecision("g", 4, reason)


def test_flip_requests_offer_both_choices_on_the_wire() -> None:
    obs = observe(Game(3, 1), 0)
    received = over_the_wire(DecisionRequest("g", 1, DecisionKind.FLIP, obs, 100, 0))
    assert isinstance(received, DecisionRequest)
    assert received.observation.legal_actions == (Flip(False), Flip(True))


def test_a_batch_keeps_its_order_and_reports_what_it_cannot_read() -> None:
    messages = [ActionAccepted("g", i) for i in range(5)]
    batch = session_pb.ArenaBatch.FromString(arena_convert.arena_batch_bytes(messages, legal_actions=True))
    batch.messages.insert(2, session_pb.ArenaMessage())
    received, skipped = sdk_convert.arena_batch_from_pb(session_pb.ArenaBatch.FromString(batch.SerializeToString()))
    assert received == messages
    assert skipped == ["unknown arena message kind None"]


def test_a_bot_batch_keeps_its_order_and_flags_what_does_not_decode() -> None:
    messages = [Hello("b", "1", 2, False), *(Decision("g", i, Show(i, 1)) for i in range(3))]
    batch = session_pb.BotBatch.FromString(sdk_convert.bot_batch_bytes(messages))
    batch.messages.insert(1, session_pb.BotMessage())
    received = arena_convert.bot_batch_from_pb(session_pb.BotBatch.FromString(batch.SerializeToString()))
    assert received[:1] + received[2:] == messages
    assert isinstance(received[1], codecs.WireError)
    assert str(received[1]) == "a BotMessage must set hello or decision"


def test_a_batch_written_as_bytes_is_the_protobuf_serialization_of_its_messages() -> None:
    """The arena frames batch entries itself; long messages need multi-byte varint lengths."""
    game = Game(5, 3)
    obs = observe(game, 0)
    event = PublicEvent("g", 0, game.events[0])
    messages: list[ArenaMessage] = [
        event,
        DecisionRequest("g", 1, DecisionKind.FLIP, obs, 100, 0),
        event,
        ErrorNotice(ErrorCode.MALFORMED, "x" * 20_000),
        PublicEvent("g", 0, game.events[0]),
        ActionAccepted("g", 1),
    ]
    data = arena_convert.arena_batch_bytes(messages, legal_actions=True)
    parsed = session_pb.ArenaBatch.FromString(data)
    assert [m.WhichOneof("kind") for m in parsed.messages] == [
        "public_event",
        "decision_request",
        "public_event",
        "error",
        "public_event",
        "action_accepted",
    ]
    assert parsed.SerializeToString() == data
    received, skipped = sdk_convert.arena_batch_from_pb(parsed)
    assert skipped == [] and received[0] == received[2] == received[4] == event
    assert received[3] == messages[3]


@pytest.mark.parametrize("n", [0, 1, 127, 128, 300, 16_383, 16_384, 2**31 - 1, 2**63, -1, -(2**31)])
def test_hand_framed_integers_are_the_protobuf_encoding(n: int) -> None:
    """sdk.wire.framing writes what the protobuf library writes, for one- to ten-byte varints."""
    if n < 0:
        assert framing.int_field(b"\x08", n) == game_pb.Card(top=n).SerializeToString()
    else:
        assert framing.int_field(b"\x10", n) == session_pb.Decision(request_id=n).SerializeToString()


def test_bot_batches_are_the_protobuf_serialization_of_their_messages() -> None:
    """Every action of real games, with request ids needing one to three varint bytes."""
    game, rng = Game(4, 11), random.Random(11)
    messages: list[Hello | Decision] = [Hello("bot", "1.0", 3, True)]
    while not game.is_over:
        seat = game.awaiting[0]
        actions = game.legal_actions(seat)
        action = actions[rng.randrange(len(actions))]
        messages.append(Decision(f"game-{seat}", 7 * len(messages) ** 2, action))
        game.apply(seat, action)
    expected = session_pb.BotBatch(messages=[bot_message_pb(m) for m in messages]).SerializeToString()
    assert sdk_convert.bot_batch_bytes(messages) == expected


def bot_message_pb(msg: Hello | Decision) -> session_pb.BotMessage:
    """The reference encoding, built field by field with the protobuf library."""
    if isinstance(msg, Hello):
        return session_pb.BotMessage(
            hello=session_pb.Hello(
                bot_name=msg.bot_name,
                bot_version=msg.bot_version,
                capacity=msg.capacity,
                want_legal_actions=msg.want_legal_actions,
            )
        )
    action = codecs.action_to_pb(msg.action)
    return session_pb.BotMessage(
        decision=session_pb.Decision(game_id=msg.game_id, request_id=msg.request_id, action=action)
    )
