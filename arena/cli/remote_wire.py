"""The `scout-arena` CLI's side of the Arena service: the organiser's calls, their replies read back
into the store's own values, so a command shows the same thing whether it reads a database or a
server (`arena.cli.remote.RemoteArena`).

Requests are built by `sdk.wire.arena_client.request` from the service's descriptor, as a bot's
are; the server's side is `arena.api.arena_wire`, what both ends encode alike
`arena.api.arena_codecs`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from arena.api.arena_codecs import (
    DECISION_FROM_PB,
    GAME_STATUS_FROM_PB,
    OUTCOME_FROM_PB,
    TOURNAMENT_STATUS_FROM_PB,
    from_timestamp,
    optional_datetime,
    policy_from_pb,
    policy_to_pb,
    stop_rule_from_pb,
    stop_rule_to_pb,
    timestamp,
)
from arena.play.results import GameResult, SeatResult
from arena.ratings.head_to_head import PairRecord
from arena.ratings.table import RatingRow
from arena.records import BotRecord, GameCounts, GameDetail, GameInfo, GameSeed, SeedReveal, Tournament, VoidedAttempt
from arena.tournaments.failure_policy import FailurePolicy
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import PairCheck, Verdict
from sdk.engine import GameRecord
from sdk.wire import arena_pb2 as pb
from sdk.wire.arena_client import ARENA, Call
from sdk.wire.codecs import CAUSE_FROM_PB, END_REASON_FROM_PB

T = TypeVar("T")

Page = tuple[list[T], str]
"""A page of a list call: its items and the next page's token ('' after the last)."""


def settings_to_pb(settings: TournamentSettings) -> pb.CreateTournamentRequest:
    msg = pb.CreateTournamentRequest(
        name=settings.name,
        table_size=settings.table_size,
        games_per_table=settings.games_per_table,
        starts_at=timestamp(settings.starts_at),
        move_limit_ms=settings.move_limit_ms,
        concurrency=settings.concurrency,
        failure_policy=policy_to_pb(settings.policy),
    )
    if settings.seed is not None:
        msg.seed = settings.seed
    for f in ("max_entrants", "entry_code", "rounds"):
        if getattr(settings, f) is not None:
            setattr(msg, f, getattr(settings, f))
    if settings.stop_rule is not None:
        msg.stop_rule.CopyFrom(stop_rule_to_pb(settings.stop_rule))
    msg.spectator_delay_s = settings.spectator_delay_s
    return msg


def tournament_from_pb(msg: pb.Tournament) -> Tournament:
    return Tournament(
        id=msg.id,
        name=msg.name,
        table_size=msg.table_size,
        games_per_table=msg.games_per_table,
        starts_at=from_timestamp(msg.starts_at),
        move_limit_ms=msg.move_limit_ms,
        concurrency=msg.concurrency,
        seed=msg.seed if msg.HasField("seed") else None,
        status=TOURNAMENT_STATUS_FROM_PB[msg.status],
        failure_policy=FailurePolicy.from_json(policy_from_pb(msg.failure_policy)),
        created_at=from_timestamp(msg.created_at),
        started_at=optional_datetime(msg, "started_at"),
        finished_at=optional_datetime(msg, "finished_at"),
        entrants=tuple(msg.entrants),
        games=GameCounts(msg.games.scheduled, msg.games.running, msg.games.finished, msg.games.played),
        seed_commitment=msg.seed_commitment,
        seed_nonce=msg.seed_nonce if msg.HasField("seed_nonce") else None,
        failure=msg.failure if msg.HasField("failure") else None,
        max_entrants=msg.max_entrants,
        invite_only=msg.invite_only,
        rounds=msg.rounds if msg.HasField("rounds") else None,
        stop_rule=stop_rule_from_pb(msg.stop_rule) if msg.HasField("stop_rule") else None,
        stop=_verdict_from_pb(msg.stop_progress) if msg.HasField("stop_progress") else None,
        spectator_delay_s=msg.spectator_delay_s,
    )


def bot_from_pb(msg: pb.Bot) -> BotRecord:
    return BotRecord(msg.id, msg.name, from_timestamp(msg.created_at))


def rating_row_from_pb(msg: pb.RatingRow) -> RatingRow:
    return RatingRow(
        rank=msg.rank,
        bot=msg.bot,
        mu=msg.mu,
        sigma=msg.sigma,
        conservative=msg.conservative,
        games=msg.games,
        wins=msg.wins,
        average_points=msg.average_points if msg.HasField("average_points") else None,
        average_placing=msg.average_placing if msg.HasField("average_placing") else None,
        rank_low=msg.rank_low or None,
        rank_high=msg.rank_high or None,
        confidence=msg.confidence if msg.HasField("confidence") else None,
        bootstrap_confidence=msg.bootstrap_confidence if msg.HasField("bootstrap_confidence") else None,
    )


def pair_from_pb(msg: pb.HeadToHeadPair) -> PairRecord:
    return PairRecord(msg.bot, msg.other, msg.games, msg.above, msg.below, msg.ties, msg.point_difference, msg.p_value)


def game_info_from_pb(msg: pb.GameInfo) -> GameInfo:
    return GameInfo(
        id=msg.id,
        tournament=msg.tournament,
        table_index=msg.table_index,
        game_index=msg.game_index,
        seed=msg.seed if msg.HasField("seed") else None,
        status=GAME_STATUS_FROM_PB[msg.status],
        attempts=msg.attempts,
        seats=tuple(msg.seats),
        started_at=optional_datetime(msg, "started_at"),
        finished_at=optional_datetime(msg, "finished_at"),
        end_reasons=tuple(END_REASON_FROM_PB[r].name for r in msg.end_reasons),
        results=tuple(seat_result_from_pb(s) for s in msg.results),
    )


def seat_result_from_pb(msg: pb.SeatResult) -> SeatResult:
    if not msg.HasField("forfeit"):
        return SeatResult(msg.seat, msg.bot, msg.points, msg.rank)
    policy = DECISION_FROM_PB[msg.policy] if msg.HasField("policy") else None
    return SeatResult(msg.seat, msg.bot, msg.points, msg.rank, msg.forfeit, CAUSE_FROM_PB[msg.cause], policy)


def _voided_from_pb(msg: pb.VoidedAttempt) -> VoidedAttempt:
    result = GameResult(GameRecord.from_json(msg.record_json), tuple(seat_result_from_pb(s) for s in msg.seats))
    return VoidedAttempt(msg.attempt, from_timestamp(msg.voided_at), result, msg.seed)


def _game_detail_from_pb(msg: pb.ShowGameResponse, _: object) -> GameDetail:
    return GameDetail(
        game_info_from_pb(msg.game),
        GameRecord.from_json(msg.record_json) if msg.record_json else None,
        tuple(_voided_from_pb(v) for v in msg.voided_attempts),
    )


def _reveal_from_pb(msg: pb.RevealSeedsResponse, sent: pb.RevealSeedsRequest) -> SeedReveal:
    games = tuple(GameSeed(g.game_id, g.table_index, g.game_index, g.attempt, g.seed) for g in msg.games)
    return SeedReveal(sent.tournament, msg.seed, msg.seed_nonce, msg.seed_commitment, games)


def _verdict_from_pb(msg: pb.StopProgress) -> Verdict:
    pairs = tuple(
        PairCheck(
            p.upper,
            p.lower,
            p.above,
            p.below,
            p.settled,
            p.equal,
            p.games_needed if p.HasField("games_needed") else None,
        )
        for p in msg.pairs
    )
    return Verdict(msg.rounds, msg.games, OUTCOME_FROM_PB[msg.outcome], pairs, tuple(msg.order))


def _tournament_reply(
    msg: pb.CreateTournamentResponse | pb.StartTournamentResponse | pb.ShowTournamentResponse, _: object
) -> Tournament:
    return tournament_from_pb(msg.tournament)


def listing(method: str, decode: Callable[[Any], T]) -> Call[Page[T]]:
    """The Call of a list method (fields: page_size, page_token and its scope), reading a `Page`
    of the reply's one repeated field, each item by `decode`."""
    [items] = [f.name for f in ARENA.methods_by_name[method].output_type.fields if f.message_type and f.is_repeated]
    return Call(method, lambda reply, _: ([decode(m) for m in getattr(reply, items)], reply.next_page_token))


CREATE_TOURNAMENT: Call[Tournament] = Call("CreateTournament", _tournament_reply, build=settings_to_pb)
"""(settings)"""
START_TOURNAMENT: Call[Tournament] = Call("StartTournament", _tournament_reply)
"""(name=...)"""
SHOW_TOURNAMENT: Call[Tournament] = Call("ShowTournament", _tournament_reply)
"""(name=...)"""
SHOW_GAME: Call[GameDetail] = Call("ShowGame", _game_detail_from_pb)
"""(id=...)"""
REVEAL_SEEDS: Call[SeedReveal] = Call("RevealSeeds", _reveal_from_pb)
"""(tournament=...)"""
EXPORT_GAMES: Call[tuple[str, str]] = Call("ExportGames", lambda msg, _: (msg.game_json, msg.page_token))
"""(tournament=..., page_size=..., page_token=...): a stream, each message read as (a game's JSON
line, the token of the export after it)."""
LIST_TOURNAMENTS = listing("ListTournaments", tournament_from_pb)
LIST_BOTS = listing("ListBots", bot_from_pb)
RATINGS = listing("Ratings", rating_row_from_pb)
"""(tournament=..., bootstrap_resamples=...)"""
HEAD_TO_HEAD = listing("HeadToHead", pair_from_pb)
"""(tournament=...)"""
LIST_GAMES = listing("ListGames", game_info_from_pb)
"""(tournament=..., status=a GameStatus or None)"""
