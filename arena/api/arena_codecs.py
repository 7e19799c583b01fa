"""What both ends of the Arena service encode alike: its enums, times, failure policies and stop
rules, which travel in requests (CreateTournament, ListGames) and in replies (a Tournament).

The server's side is `arena.api.arena_wire`, the `scout-arena` CLI's `arena.cli.remote_wire`.
Enum tables are derived from the descriptors (`sdk.wire.codecs.enum_tables`), never written out.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from arena.errors import InvalidSetting
from arena.play.results import ForfeitCause, PolicyDecision
from arena.records import GameStatus, TournamentStatus
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.stop_rule import StopOutcome, StopRule
from sdk.wire import arena_pb2 as pb
from sdk.wire.codecs import enum_tables

TOURNAMENT_STATUS_TO_PB, TOURNAMENT_STATUS_FROM_PB = enum_tables(TournamentStatus, pb.TournamentStatus)
GAME_STATUS_TO_PB, GAME_STATUS_FROM_PB = enum_tables(GameStatus, pb.GameStatus)
DECISION_TO_PB, DECISION_FROM_PB = enum_tables(
    PolicyDecision, pb.PolicyDecision, renames={PolicyDecision.CAP_REACHED: "VOID_CAP_REACHED"}
)
ACTION_TO_PB, ACTION_FROM_PB = enum_tables(FailureAction, pb.FailureAction)
OUTCOME_TO_PB, OUTCOME_FROM_PB = enum_tables(StopOutcome, pb.StopOutcome)

_POLICY_NUMBERS = ("absent_wait_ms", "grace_ms", "time_bank_ms", "max_invalid", "max_replays", "max_voids_per_bot")
_POLICY_ACTIONS = tuple(f"on_{cause.value}" for cause in ForfeitCause)
_ACTION_NAMES = " or ".join(pb.FailureAction.Name(v) for v in ACTION_FROM_PB)


def timestamp(when: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(when)
    return stamp


def from_timestamp(stamp: Timestamp) -> datetime:
    when: datetime = stamp.ToDatetime(tzinfo=UTC)
    return when


def optional_datetime(msg: Any, field: str) -> datetime | None:
    """`msg.field` as a time, None where unset."""
    return from_timestamp(getattr(msg, field)) if msg.HasField(field) else None


def policy_to_pb(policy: FailurePolicy) -> pb.FailurePolicy:
    msg = pb.FailurePolicy(**{f: getattr(policy, f) for f in _POLICY_NUMBERS})
    for f in _POLICY_ACTIONS:
        setattr(msg, f, ACTION_TO_PB[getattr(policy, f)])
    return msg


def policy_from_pb(msg: pb.FailurePolicy) -> dict[str, Any]:
    """The fields set in `msg`, as `FailurePolicy.from_json` reads them; InvalidSetting names an
    action that is neither forfeit nor void."""
    data: dict[str, Any] = {f: getattr(msg, f) for f in _POLICY_NUMBERS if msg.HasField(f)}
    for f in _POLICY_ACTIONS:
        if msg.HasField(f):
            if getattr(msg, f) not in ACTION_FROM_PB:
                raise InvalidSetting(f"{f} must be {_ACTION_NAMES}")
            data[f] = ACTION_FROM_PB[getattr(msg, f)].value
    return data


def stop_rule_to_pb(rule: StopRule) -> pb.StopRule:
    msg = pb.StopRule(confidence=rule.confidence, max_games=rule.max_games, equal_margin=rule.margin)
    if rule.top is not None:
        msg.top = rule.top
    return msg


def stop_rule_from_pb(msg: pb.StopRule) -> StopRule:
    """The rule, unset fields taking the defaults; InvalidSetting names a value out of range."""
    fields = {f: getattr(msg, f) for f in ("confidence", "top", "max_games") if msg.HasField(f)}
    if msg.HasField("equal_margin"):
        fields["margin"] = msg.equal_margin
    return StopRule(**fields)
