"""The enum tables and field tags the conversion modules derive from the protobuf descriptors:
complete both ways, refusing a value one side lacks, and the tags the protobuf library writes."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from arena.api import arena_codecs, arena_wire, bot_session_wire
from arena.cli import remote_wire as client_wire
from arena.errors import InvalidSetting
from arena.play.results import PolicyDecision
from arena.play.sessions import MalformedDecision
from arena.records import GameStatus, TournamentStatus
from arena.tournaments.failure_policy import FailureAction
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import StopOutcome
from sdk.engine import End, EndReason, Phase
from sdk.protocol import DecisionKind, ErrorCode, ForfeitCause, TournamentEnd
from sdk.wire import arena_pb2, bot_session_pb2, codecs, game_pb2
from sdk.wire.arena_client import request
from sdk.wire.framing import tag

TABLES: list[tuple[type[enum.Enum], Any, dict[Any, int], dict[int, Any]]] = [
    (End, game_pb2.End, codecs.END_TO_PB, codecs.END_FROM_PB),
    (Phase, game_pb2.Phase, codecs.PHASE_TO_PB, codecs.PHASE_FROM_PB),
    (EndReason, game_pb2.EndReason, codecs.END_REASON_TO_PB, codecs.END_REASON_FROM_PB),
    (DecisionKind, bot_session_pb2.DecisionKind, codecs.KIND_TO_PB, codecs.KIND_FROM_PB),
    (ErrorCode, bot_session_pb2.ErrorCode, codecs.ERROR_TO_PB, codecs.ERROR_FROM_PB),
    (TournamentEnd, bot_session_pb2.TournamentEnd, codecs.TOURNAMENT_END_TO_PB, codecs.TOURNAMENT_END_FROM_PB),
    (ForfeitCause, game_pb2.ForfeitCause, codecs.CAUSE_TO_PB, codecs.CAUSE_FROM_PB),
    (
        TournamentStatus,
        arena_pb2.TournamentStatus,
        arena_codecs.TOURNAMENT_STATUS_TO_PB,
        arena_codecs.TOURNAMENT_STATUS_FROM_PB,
    ),
    (GameStatus, arena_pb2.GameStatus, arena_codecs.GAME_STATUS_TO_PB, arena_codecs.GAME_STATUS_FROM_PB),
    (PolicyDecision, arena_pb2.PolicyDecision, arena_codecs.DECISION_TO_PB, arena_codecs.DECISION_FROM_PB),
    (FailureAction, arena_pb2.FailureAction, arena_codecs.ACTION_TO_PB, arena_codecs.ACTION_FROM_PB),
    (StopOutcome, arena_pb2.StopOutcome, arena_codecs.OUTCOME_TO_PB, arena_codecs.OUTCOME_FROM_PB),
]


@pytest.mark.parametrize("domain, wire, to_pb, from_pb", TABLES, ids=[t[0].__name__ for t in TABLES])
def test_every_value_round_trips_both_ways(
    domain: type[enum.Enum], wire: Any, to_pb: dict[Any, int], from_pb: dict[int, Any]
) -> None:
    assert {from_pb[to_pb[member]] for member in domain} == set(domain)
    named = {v for v in wire.values() if v != 0}
    assert {to_pb[from_pb[v]] for v in named} == named == set(to_pb.values())
    for member in domain:
        assert wire.Name(to_pb[member]).endswith(member.name)


def test_the_one_renamed_member_is_the_void_cap() -> None:
    assert arena_pb2.PolicyDecision.Name(arena_codecs.DECISION_TO_PB[PolicyDecision.CAP_REACHED]) == (
        "POLICY_DECISION_VOID_CAP_REACHED"
    )


def test_a_value_on_one_side_only_fails_at_derivation() -> None:
    wider = enum.Enum("End", ["LEFT", "RIGHT", "MIDDLE"])  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"^End.MIDDLE has no value END_MIDDLE in scout.arena.v1.End$"):
        codecs.enum_tables(wider, game_pb2.End)
    narrower = enum.Enum("Phase", ["FLIP", "PLAY"])  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"^scout.arena.v1.Phase values PHASE_OVER have no Phase member$"):
        codecs.enum_tables(narrower, game_pb2.Phase)
    with pytest.raises(TypeError, match="CAP_REACHED has no value POLICY_DECISION_CAP_REACHED"):
        codecs.enum_tables(PolicyDecision, arena_pb2.PolicyDecision)


def test_a_hostile_bots_unknown_scout_end_is_the_same_malformed_decision() -> None:
    for end in (0, 3, 99):
        action = game_pb2.Action(scout=game_pb2.Scout(end=end))  # type: ignore[arg-type]
        msg = bot_session_pb2.BotMessage(decision=bot_session_pb2.Decision(game_id="g", request_id=4, action=action))
        assert bot_session_wire.bot_message_from_pb(msg) == MalformedDecision(
            "g", 4, "scout end must be END_LEFT or END_RIGHT"
        )


def test_a_hostile_clients_unknown_failure_action_is_the_same_invalid_setting() -> None:
    create = client_wire.settings_to_pb(TournamentSettings("cup", 3, 1, datetime(2030, 1, 1, tzinfo=UTC), 1000))
    create.failure_policy.on_timeout = 7  # type: ignore[assignment]
    with pytest.raises(InvalidSetting, match=r"^on_timeout must be FAILURE_ACTION_FORFEIT or FAILURE_ACTION_VOID$"):
        arena_wire.settings_from_pb(create)


def test_an_unknown_game_status_filter_lists_every_status_as_before() -> None:
    listed = arena_pb2.ListGamesRequest(tournament="cup", status=9)  # type: ignore[arg-type]
    assert arena_wire.games_request_from_pb(listed) == ("cup", None)
    asked = request("ListGames", status=GameStatus.FINISHED)
    assert arena_wire.games_request_from_pb(asked) == (None, GameStatus.FINISHED)  # type: ignore[arg-type]


def _messages() -> list[type[Message]]:
    found: list[type[Message]] = []
    for module in (game_pb2, bot_session_pb2, arena_pb2):
        found += [getattr(module, name) for name in module.DESCRIPTOR.message_types_by_name]
    return found


_SAMPLES = {
    FieldDescriptor.TYPE_STRING: "x",
    FieldDescriptor.TYPE_BYTES: b"x",
    FieldDescriptor.TYPE_BOOL: True,
    FieldDescriptor.TYPE_DOUBLE: 1.5,
    FieldDescriptor.TYPE_FLOAT: 1.5,
}


@pytest.mark.parametrize("message", _messages(), ids=lambda m: m.DESCRIPTOR.name)
def test_every_derived_tag_is_what_the_protobuf_library_writes(message: type[Message]) -> None:
    """Each field set alone serializes as its tag then its value: the tag `framing.tag` derives."""
    for field in message.DESCRIPTOR.fields:
        msg = message()
        if field.message_type is not None:
            entry = getattr(msg, field.name).add() if field.is_repeated else getattr(msg, field.name)
            entry.SetInParent()
        else:
            value = _SAMPLES.get(field.type, 1)
            if field.is_repeated:
                getattr(msg, field.name).append(value)
            else:
                setattr(msg, field.name, value)
        expected = tag(message, field.name)
        assert msg.SerializeToString()[: len(expected)] == expected, f"{message.DESCRIPTOR.name}.{field.name}"
        assert expected[0] >> 3 == field.number or field.number > 15
