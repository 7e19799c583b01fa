"""The server's side of the Arena service: requests read into plain values, replies built from the
store's values.

The client's side is `sdk.wire.arena_client` (a bot's calls) and `arena.cli.remote_wire` (the
organiser's); what both ends encode alike is `arena.api.arena_codecs`. Plain fields of a request
are read where they are used; `reply` and `page_reply` build every reply that holds no more than
store values (each converted by its type), the functions below the few that take more.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from google.protobuf.message import Message

from arena.api.arena_codecs import (
    DECISION_TO_PB,
    GAME_STATUS_FROM_PB,
    GAME_STATUS_TO_PB,
    OUTCOME_TO_PB,
    TOURNAMENT_STATUS_TO_PB,
    from_timestamp,
    policy_from_pb,
    policy_to_pb,
    stop_rule_from_pb,
    stop_rule_to_pb,
    timestamp,
)
from arena.errors import InvalidSetting
from arena.play.referee import Limits
from arena.play.results import GameResult, SeatResult
from arena.play.spectators import DEFAULT_SPECTATOR_DELAY_S
from arena.ratings.head_to_head import PairRecord
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameDetail, GameInfo, GameStatus, SeedReveal, Tournament, VoidedAttempt
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import Verdict
from sdk.engine import EndReason
from sdk.wire import arena_pb2 as pb
from sdk.wire.codecs import CAUSE_TO_PB, END_REASON_TO_PB

R = TypeVar("R", bound=Message)

ARENA_SERVICE = pb.DESCRIPTOR.services_by_name["Arena"].full_name
"""The service's full name, for health checking and reflection."""
PagedRequest = (
    pb.ListTournamentsRequest
    | pb.ListBotsRequest
    | pb.RatingsRequest
    | pb.ListGamesRequest
    | pb.ExportGamesRequest
    | pb.HeadToHeadRequest
)
"""The requests of the list calls, each with its page_size and page_token."""


def reply(message: type[R], **fields: object) -> R:
    """A reply with `fields` set; a store value among them, or a list of them, is converted by its
    type (a Tournament by `tournament_to_pb`, ...)."""
    return message(**{name: _encoded(value) for name, value in fields.items()})


def page_reply(message: type[R], items: Sequence[object], next_page_token: str) -> R:
    """One page of a list call: `items` in the reply's one repeated field, and the next page's token."""
    return reply(message, **{_items_field(message): list(items)}, next_page_token=next_page_token)


def _items_field(message: type[Message]) -> str:
    [name] = [f.name for f in message.DESCRIPTOR.fields if f.message_type is not None and f.is_repeated]
    return name


def _encoded(value: object) -> object:
    if isinstance(value, list):
        return [_encoded(v) for v in value]
    encode = _ENCODERS.get(type(value))
    return value if encode is None else encode(value)


def settings_from_pb(msg: pb.CreateTournamentRequest) -> TournamentSettings:
    """The request's settings, unset policy fields taking the defaults; InvalidSetting if bad."""
    if not msg.HasField("starts_at"):
        raise InvalidSetting("a tournament needs a start time (starts_at)")
    policy = FailurePolicy.from_json(policy_from_pb(msg.failure_policy))
    return TournamentSettings(
        name=msg.name,
        table_size=msg.table_size,
        games_per_table=msg.games_per_table,
        starts_at=from_timestamp(msg.starts_at),
        move_limit_ms=msg.move_limit_ms,
        concurrency=msg.concurrency,
        seed=msg.seed if msg.HasField("seed") else None,
        policy=policy,
        rounds=msg.rounds if msg.HasField("rounds") else None,
        max_entrants=msg.max_entrants if msg.HasField("max_entrants") else None,
        entry_code=msg.entry_code if msg.HasField("entry_code") else None,
        stop_rule=stop_rule_from_pb(msg.stop_rule) if msg.HasField("stop_rule") else None,
        spectator_delay_s=msg.spectator_delay_s if msg.HasField("spectator_delay_s") else DEFAULT_SPECTATOR_DELAY_S,
    )


def tournament_to_pb(t: Tournament) -> pb.Tournament:
    msg = pb.Tournament(
        id=t.id,
        name=t.name,
        table_size=t.table_size,
        games_per_table=t.games_per_table,
        starts_at=timestamp(t.starts_at),
        move_limit_ms=t.move_limit_ms,
        concurrency=t.concurrency,
        seed=t.seed,
        status=TOURNAMENT_STATUS_TO_PB[t.status],
        created_at=timestamp(t.created_at),
        entrants=t.entrants,
        games=pb.GameCounts(
            scheduled=t.games.scheduled, running=t.games.running, finished=t.games.finished, played=t.games.played
        ),
        seed_commitment=t.seed_commitment,
        seed_nonce=t.seed_nonce,
        max_entrants=t.max_entrants,
        invite_only=t.invite_only,
        failure=t.failure,
        rounds=t.rounds,
        spectator_delay_s=t.spectator_delay_s,
    )
    msg.failure_policy.CopyFrom(policy_to_pb(t.failure_policy))
    if t.started_at is not None:
        msg.started_at.CopyFrom(timestamp(t.started_at))
    if t.finished_at is not None:
        msg.finished_at.CopyFrom(timestamp(t.finished_at))
    if t.stop_rule is not None:
        msg.stop_rule.CopyFrom(stop_rule_to_pb(t.stop_rule))
    if t.stop is not None:
        msg.stop_progress.CopyFrom(_verdict_to_pb(t.stop))
    return msg


def bot_to_pb(bot: BotRecord) -> pb.Bot:
    return pb.Bot(id=bot.id, name=bot.name, created_at=timestamp(bot.created_at))


def rating_row_to_pb(row: RatingRow) -> pb.RatingRow:
    msg = pb.RatingRow(
        rank=row.rank,
        bot=row.bot,
        mu=row.mu,
        sigma=row.sigma,
        conservative=row.conservative,
        games=row.games,
        wins=row.wins,
    )
    if row.average_points is not None:
        msg.average_points = row.average_points
    if row.average_placing is not None:
        msg.average_placing = row.average_placing
    msg.rank_low, msg.rank_high = row.rank_low or 0, row.rank_high or 0
    if row.confidence is not None:
        msg.confidence = row.confidence
    if row.bootstrap_confidence is not None:
        msg.bootstrap_confidence = row.bootstrap_confidence
    return msg


def pair_to_pb(p: PairRecord) -> pb.HeadToHeadPair:
    return pb.HeadToHeadPair(
        bot=p.bot,
        other=p.other,
        games=p.games,
        above=p.above,
        below=p.below,
        ties=p.ties,
        point_difference=p.point_difference,
        p_value=p.p_value,
    )


def game_info_to_pb(game: GameInfo) -> pb.GameInfo:
    msg = pb.GameInfo(
        id=game.id,
        tournament=game.tournament,
        table_index=game.table_index,
        game_index=game.game_index,
        seed=game.seed,
        status=GAME_STATUS_TO_PB[game.status],
        attempts=game.attempts,
        seats=game.seats,
        end_reasons=[END_REASON_TO_PB[EndReason[name]] for name in game.end_reasons],
    )
    if game.started_at is not None:
        msg.started_at.CopyFrom(timestamp(game.started_at))
    if game.finished_at is not None:
        msg.finished_at.CopyFrom(timestamp(game.finished_at))
    msg.results.extend(seat_result_to_pb(s) for s in game.results)
    return msg


def seat_result_to_pb(s: SeatResult) -> pb.SeatResult:
    msg = pb.SeatResult(seat=s.seat, bot=s.bot, points=s.points, rank=s.rank)
    if s.forfeit is not None and s.cause is not None:
        msg.forfeit, msg.cause = s.forfeit, CAUSE_TO_PB[s.cause]
    if s.policy is not None:
        msg.policy = DECISION_TO_PB[s.policy]
    return msg


def _voided_to_pb(voided: VoidedAttempt) -> pb.VoidedAttempt:
    return pb.VoidedAttempt(
        attempt=voided.attempt,
        voided_at=timestamp(voided.voided_at),
        seats=[seat_result_to_pb(s) for s in voided.result.seats],
        record_json=voided.result.record.to_json(),
        seed=voided.seed,
    )


def game_detail_to_pb(detail: GameDetail) -> pb.ShowGameResponse:
    return pb.ShowGameResponse(
        game=game_info_to_pb(detail.info),
        record_json=detail.record.to_json() if detail.record is not None else "",
        voided_attempts=[_voided_to_pb(v) for v in detail.voided],
    )


def games_request_from_pb(msg: pb.ListGamesRequest) -> tuple[str | None, GameStatus | None]:
    """(tournament, status) of a ListGames request; None where unset."""
    tournament = msg.tournament if msg.HasField("tournament") else None
    return tournament, GAME_STATUS_FROM_PB.get(msg.status) if msg.HasField("status") else None


def enter_request_from_pb(msg: pb.EnterTournamentRequest) -> tuple[str, str | None]:
    """(tournament, entry code or None)."""
    return msg.tournament, msg.entry_code if msg.HasField("entry_code") else None


def scope_from_pb(msg: pb.RatingsRequest | pb.ExportGamesRequest | pb.HeadToHeadRequest) -> str | None:
    """The tournament a Ratings, HeadToHead or ExportGames request is about; None for all of them."""
    return msg.tournament if msg.HasField("tournament") else None


def reveal_to_pb(reveal: SeedReveal) -> pb.RevealSeedsResponse:
    return pb.RevealSeedsResponse(
        seed=reveal.seed,
        seed_nonce=reveal.seed_nonce,
        seed_commitment=reveal.seed_commitment,
        games=[
            pb.GameSeed(
                game_id=g.game_id, table_index=g.table_index, game_index=g.game_index, attempt=g.attempt, seed=g.seed
            )
            for g in reveal.games
        ],
    )


def _verdict_to_pb(verdict: Verdict) -> pb.StopProgress:
    return pb.StopProgress(
        rounds=verdict.rounds,
        games=verdict.games,
        outcome=OUTCOME_TO_PB[verdict.outcome],
        pairs=[
            pb.RankPair(
                upper=p.upper,
                lower=p.lower,
                above=p.above,
                below=p.below,
                settled=p.settled,
                equal=p.equal,
                games_needed=p.games_needed,
            )
            for p in verdict.pairs
        ],
        order=verdict.order,
    )


def play_request_from_pb(req: pb.PlayGameRequest, defaults: Limits) -> tuple[tuple[str, ...], int, Limits]:
    """(bots in seat order, seed, limits); a ValueError explains a limit out of range."""
    overrides = {
        name: getattr(req, field)
        for field, name in (("move_limit_ms", "move_ms"), ("time_bank_ms", "time_bank_ms"), ("grace_ms", "grace_ms"))
        if req.HasField(field)
    }
    return tuple(req.bots), req.seed, dataclasses.replace(defaults, **overrides)


def play_response_to_pb(game_id: str, result: GameResult) -> pb.PlayGameResponse:
    return pb.PlayGameResponse(
        game_id=game_id,
        seats=[seat_result_to_pb(s) for s in result.seats],
        round_end_reasons=[END_REASON_TO_PB[r.reason] for r in result.record.results],
        record_json=result.record.to_json(),
    )


_ENCODERS: dict[type, Callable[[Any], Message]] = {
    Tournament: tournament_to_pb,
    BotRecord: bot_to_pb,
    RatingRow: rating_row_to_pb,
    PairRecord: pair_to_pb,
    GameInfo: game_info_to_pb,
}
