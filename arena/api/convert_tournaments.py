"""The tournament, rating and game calls of the Arena service, to and from protobuf.

Both ends are here: the server builds replies from `arena.storage.store` values and reads requests; the
`scout-arena` CLI builds requests and reads the replies back into the same store values, so a
command shows the same thing whether it reads a database or a server. Next to `arena.api.convert`
(the bot session's messages), this is the only arena module touching `_pb2` types.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from arena.errors import InvalidSetting
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult
from arena.ratings.head_to_head import PairRecord
from arena.ratings.table import RatingRow
from arena.records import (
    BotRecord,
    GameCounts,
    GameDetail,
    GameInfo,
    GameSeed,
    GameStatus,
    SeedReveal,
    Tournament,
    TournamentStatus,
    VoidedAttempt,
)
from arena.tournaments.failure_policy import FailureAction, FailurePolicy
from arena.tournaments.settings import TournamentSettings
from arena.tournaments.stop_rule import Outcome, PairCheck, StopRule, Verdict
from sdk.engine import EndReason, GameRecord
from sdk.wire import arena_pb2 as pb
from sdk.wire.convert import END_REASON_FROM_PB, END_REASON_TO_PB

TOURNAMENT_STATUS_TO_PB = {
    TournamentStatus.SCHEDULED: pb.TOURNAMENT_STATUS_SCHEDULED,
    TournamentStatus.RUNNING: pb.TOURNAMENT_STATUS_RUNNING,
    TournamentStatus.FINISHED: pb.TOURNAMENT_STATUS_FINISHED,
    TournamentStatus.FAILED: pb.TOURNAMENT_STATUS_FAILED,
}
TOURNAMENT_STATUS_FROM_PB = {v: k for k, v in TOURNAMENT_STATUS_TO_PB.items()}
GAME_STATUS_TO_PB = {
    GameStatus.SCHEDULED: pb.GAME_STATUS_SCHEDULED,
    GameStatus.RUNNING: pb.GAME_STATUS_RUNNING,
    GameStatus.FINISHED: pb.GAME_STATUS_FINISHED,
}
GAME_STATUS_FROM_PB = {v: k for k, v in GAME_STATUS_TO_PB.items()}
CAUSE_TO_PB = {
    ForfeitCause.TIMEOUT: pb.FORFEIT_CAUSE_TIMEOUT,
    ForfeitCause.ILLEGAL: pb.FORFEIT_CAUSE_ILLEGAL,
    ForfeitCause.DISCONNECT: pb.FORFEIT_CAUSE_DISCONNECT,
    ForfeitCause.ABSENT: pb.FORFEIT_CAUSE_ABSENT,
}
CAUSE_FROM_PB = {v: k for k, v in CAUSE_TO_PB.items()}
DECISION_TO_PB = {
    PolicyDecision.FORFEIT: pb.POLICY_DECISION_FORFEIT,
    PolicyDecision.VOID: pb.POLICY_DECISION_VOID,
    PolicyDecision.CAP_REACHED: pb.POLICY_DECISION_VOID_CAP_REACHED,
    PolicyDecision.BOT_VOID_CAP_REACHED: pb.POLICY_DECISION_BOT_VOID_CAP_REACHED,
}
DECISION_FROM_PB = {v: k for k, v in DECISION_TO_PB.items()}
ACTION_TO_PB = {FailureAction.FORFEIT: pb.FAILURE_ACTION_FORFEIT, FailureAction.VOID: pb.FAILURE_ACTION_VOID}
ACTION_FROM_PB = {v: k for k, v in ACTION_TO_PB.items()}
OUTCOME_TO_PB = {
    Outcome.PLAYING: pb.STOP_OUTCOME_PLAYING,
    Outcome.SETTLED: pb.STOP_OUTCOME_SETTLED,
    Outcome.CAP_REACHED: pb.STOP_OUTCOME_CAP_REACHED,
}
OUTCOME_FROM_PB = {v: k for k, v in OUTCOME_TO_PB.items()}
_POLICY_NUMBERS = ("absent_wait_ms", "grace_ms", "time_bank_ms", "max_invalid", "max_replays", "max_voids_per_bot")
_POLICY_ACTIONS = tuple(f"on_{cause.value}" for cause in ForfeitCause)


# ---- times ------------------------------------------------------------------------------------------


def _timestamp(when: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(when)
    return stamp


def _datetime(stamp: Timestamp) -> datetime:
    when: datetime = stamp.ToDatetime(tzinfo=UTC)
    return when


def _optional_datetime(msg: object, field: str) -> datetime | None:
    return _datetime(getattr(msg, field)) if msg.HasField(field) else None  # type: ignore[attr-defined]


# ---- tournaments --------------------------------------------------------------------------------


def _policy_to_pb(policy: FailurePolicy) -> pb.FailurePolicy:
    msg = pb.FailurePolicy(**{f: getattr(policy, f) for f in _POLICY_NUMBERS})
    for f in _POLICY_ACTIONS:
        setattr(msg, f, ACTION_TO_PB[getattr(policy, f)])
    return msg


def _policy_from_pb(msg: pb.FailurePolicy) -> dict[str, Any]:
    """The fields set in `msg`, as `FailurePolicy.from_json` reads them; InvalidSetting names an
    action that is neither forfeit nor void."""
    data: dict[str, Any] = {f: getattr(msg, f) for f in _POLICY_NUMBERS if msg.HasField(f)}
    for f in _POLICY_ACTIONS:
        if msg.HasField(f):
            if getattr(msg, f) not in ACTION_FROM_PB:
                raise InvalidSetting(f"{f} must be FAILURE_ACTION_FORFEIT or FAILURE_ACTION_VOID")
            data[f] = ACTION_FROM_PB[getattr(msg, f)].value
    return data


def _stop_rule_to_pb(rule: StopRule) -> pb.StopRule:
    msg = pb.StopRule(confidence=rule.confidence, max_games=rule.max_games)
    if rule.top is not None:
        msg.top = rule.top
    return msg


def _stop_rule_from_pb(msg: pb.StopRule) -> StopRule:
    """The rule, unset fields taking the defaults; InvalidSetting names a value out of range."""
    return StopRule(**{f: getattr(msg, f) for f in ("confidence", "top", "max_games") if msg.HasField(f)})


def _verdict_to_pb(verdict: Verdict) -> pb.StopProgress:
    return pb.StopProgress(
        rounds=verdict.rounds,
        games=verdict.games,
        outcome=OUTCOME_TO_PB[verdict.outcome],
        pairs=[
            pb.RankPair(upper=p.upper, lower=p.lower, above=p.above, below=p.below, settled=p.settled)
            for p in verdict.pairs
        ],
    )


def _verdict_from_pb(msg: pb.StopProgress) -> Verdict:
    pairs = tuple(PairCheck(p.upper, p.lower, p.above, p.below, p.settled) for p in msg.pairs)
    return Verdict(msg.rounds, msg.games, OUTCOME_FROM_PB[msg.outcome], pairs)


def settings_to_pb(settings: TournamentSettings) -> pb.CreateTournamentRequest:
    msg = pb.CreateTournamentRequest(
        name=settings.name,
        table_size=settings.table_size,
        games_per_table=settings.games_per_table,
        starts_at=_timestamp(settings.starts_at),
        move_limit_ms=settings.move_limit_ms,
        concurrency=settings.concurrency,
        failure_policy=_policy_to_pb(settings.policy),
    )
    if settings.seed is not None:
        msg.seed = settings.seed
    for f in ("max_entrants", "entry_code", "rounds"):
        if getattr(settings, f) is not None:
            setattr(msg, f, getattr(settings, f))
    if settings.stop_rule is not None:
        msg.stop_rule.CopyFrom(_stop_rule_to_pb(settings.stop_rule))
    return msg


def settings_from_pb(msg: pb.CreateTournamentRequest) -> TournamentSettings:
    """The request's settings, unset policy fields taking the defaults; InvalidSetting if bad."""
    if not msg.HasField("starts_at"):
        raise InvalidSetting("a tournament needs a start time (starts_at)")
    policy = FailurePolicy.from_json(_policy_from_pb(msg.failure_policy))
    return TournamentSettings(
        name=msg.name,
        table_size=msg.table_size,
        games_per_table=msg.games_per_table,
        starts_at=_datetime(msg.starts_at),
        move_limit_ms=msg.move_limit_ms,
        concurrency=msg.concurrency,
        seed=msg.seed if msg.HasField("seed") else None,
        policy=policy,
        rounds=msg.rounds if msg.HasField("rounds") else None,
        max_entrants=msg.max_entrants if msg.HasField("max_entrants") else None,
        entry_code=msg.entry_code if msg.HasField("entry_code") else None,
        stop_rule=_stop_rule_from_pb(msg.stop_rule) if msg.HasField("stop_rule") else None,
    )


def tournament_to_pb(t: Tournament) -> pb.Tournament:
    msg = pb.Tournament(
        id=t.id,
        name=t.name,
        table_size=t.table_size,
        games_per_table=t.games_per_table,
        starts_at=_timestamp(t.starts_at),
        move_limit_ms=t.move_limit_ms,
        concurrency=t.concurrency,
        seed=t.seed,
        status=TOURNAMENT_STATUS_TO_PB[t.status],
        created_at=_timestamp(t.created_at),
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
    )
    msg.failure_policy.CopyFrom(_policy_to_pb(t.failure_policy))
    if t.started_at is not None:
        msg.started_at.CopyFrom(_timestamp(t.started_at))
    if t.finished_at is not None:
        msg.finished_at.CopyFrom(_timestamp(t.finished_at))
    if t.stop_rule is not None:
        msg.stop_rule.CopyFrom(_stop_rule_to_pb(t.stop_rule))
    if t.stop is not None:
        msg.stop_progress.CopyFrom(_verdict_to_pb(t.stop))
    return msg


def tournament_from_pb(msg: pb.Tournament) -> Tournament:
    return Tournament(
        id=msg.id,
        name=msg.name,
        table_size=msg.table_size,
        games_per_table=msg.games_per_table,
        starts_at=_datetime(msg.starts_at),
        move_limit_ms=msg.move_limit_ms,
        concurrency=msg.concurrency,
        seed=msg.seed if msg.HasField("seed") else None,
        status=TOURNAMENT_STATUS_FROM_PB[msg.status],
        failure_policy=FailurePolicy.from_json(_policy_from_pb(msg.failure_policy)),
        created_at=_datetime(msg.created_at),
        started_at=_optional_datetime(msg, "started_at"),
        finished_at=_optional_datetime(msg, "finished_at"),
        entrants=tuple(msg.entrants),
        games=GameCounts(msg.games.scheduled, msg.games.running, msg.games.finished, msg.games.played),
        seed_commitment=msg.seed_commitment,
        seed_nonce=msg.seed_nonce if msg.HasField("seed_nonce") else None,
        failure=msg.failure if msg.HasField("failure") else None,
        max_entrants=msg.max_entrants,
        invite_only=msg.invite_only,
        rounds=msg.rounds if msg.HasField("rounds") else None,
        stop_rule=_stop_rule_from_pb(msg.stop_rule) if msg.HasField("stop_rule") else None,
        stop=_verdict_from_pb(msg.stop_progress) if msg.HasField("stop_progress") else None,
    )


# ---- bots and ratings -----------------------------------------------------------------------------


def bot_to_pb(bot: BotRecord) -> pb.Bot:
    return pb.Bot(id=bot.id, name=bot.name, created_at=_timestamp(bot.created_at))


def bot_from_pb(msg: pb.Bot) -> BotRecord:
    return BotRecord(msg.id, msg.name, _datetime(msg.created_at))


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


def pair_from_pb(msg: pb.HeadToHeadPair) -> PairRecord:
    return PairRecord(msg.bot, msg.other, msg.games, msg.above, msg.below, msg.ties, msg.point_difference, msg.p_value)


# ---- games ------------------------------------------------------------------------------------------


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
        msg.started_at.CopyFrom(_timestamp(game.started_at))
    if game.finished_at is not None:
        msg.finished_at.CopyFrom(_timestamp(game.finished_at))
    msg.results.extend(seat_result_to_pb(s) for s in game.results)
    return msg


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
        started_at=_optional_datetime(msg, "started_at"),
        finished_at=_optional_datetime(msg, "finished_at"),
        end_reasons=tuple(END_REASON_FROM_PB[r].name for r in msg.end_reasons),
        results=tuple(seat_result_from_pb(s) for s in msg.results),
    )


def seat_result_to_pb(s: SeatResult) -> pb.SeatResult:
    msg = pb.SeatResult(seat=s.seat, bot=s.bot, points=s.points, rank=s.rank)
    if s.forfeit is not None and s.cause is not None:
        msg.forfeit, msg.cause = s.forfeit, CAUSE_TO_PB[s.cause]
    if s.policy is not None:
        msg.policy = DECISION_TO_PB[s.policy]
    return msg


def seat_result_from_pb(msg: pb.SeatResult) -> SeatResult:
    if not msg.HasField("forfeit"):
        return SeatResult(msg.seat, msg.bot, msg.points, msg.rank)
    policy = DECISION_FROM_PB[msg.policy] if msg.HasField("policy") else None
    return SeatResult(msg.seat, msg.bot, msg.points, msg.rank, msg.forfeit, CAUSE_FROM_PB[msg.cause], policy)


def _voided_to_pb(voided: VoidedAttempt) -> pb.VoidedAttempt:
    return pb.VoidedAttempt(
        attempt=voided.attempt,
        voided_at=_timestamp(voided.voided_at),
        seats=[seat_result_to_pb(s) for s in voided.result.seats],
        record_json=voided.result.record.to_json(),
        seed=voided.seed,
    )


def _voided_from_pb(msg: pb.VoidedAttempt) -> VoidedAttempt:
    result = GameResult(GameRecord.from_json(msg.record_json), tuple(seat_result_from_pb(s) for s in msg.seats))
    return VoidedAttempt(msg.attempt, _datetime(msg.voided_at), result, msg.seed)


def game_detail_to_pb(detail: GameDetail) -> pb.ShowGameResponse:
    return pb.ShowGameResponse(
        game=game_info_to_pb(detail.info),
        record_json=detail.record.to_json() if detail.record is not None else "",
        voided_attempts=[_voided_to_pb(v) for v in detail.voided],
    )


def game_detail_from_pb(msg: pb.ShowGameResponse) -> GameDetail:
    return GameDetail(
        game_info_from_pb(msg.game),
        GameRecord.from_json(msg.record_json) if msg.record_json else None,
        tuple(_voided_from_pb(v) for v in msg.voided_attempts),
    )


def games_request_to_pb(
    tournament: str | None, status: GameStatus | None, page_size: int = 0, page_token: str = ""
) -> pb.ListGamesRequest:
    msg = pb.ListGamesRequest(tournament=tournament, page_size=page_size, page_token=page_token)
    if status is not None:
        msg.status = GAME_STATUS_TO_PB[status]
    return msg


def games_request_from_pb(msg: pb.ListGamesRequest) -> tuple[str | None, GameStatus | None]:
    """(tournament, status) of a ListGames request; None where unset."""
    tournament = msg.tournament if msg.HasField("tournament") else None
    return tournament, GAME_STATUS_FROM_PB.get(msg.status) if msg.HasField("status") else None


# ---- requests and replies, for the servicer (reading requests) and the client (building them) ---


def name_request(msg: pb.StartTournamentRequest | pb.ShowTournamentRequest) -> str:
    return msg.name


def start_request_to_pb(name: str) -> pb.StartTournamentRequest:
    return pb.StartTournamentRequest(name=name)


def show_request_to_pb(name: str) -> pb.ShowTournamentRequest:
    return pb.ShowTournamentRequest(name=name)


def enter_request_to_pb(tournament: str) -> pb.EnterTournamentRequest:
    return pb.EnterTournamentRequest(tournament=tournament)


def enter_request_from_pb(msg: pb.EnterTournamentRequest) -> tuple[str, str | None]:
    """(tournament, entry code or None)."""
    return msg.tournament, msg.entry_code if msg.HasField("entry_code") else None


def scope_to_pb(
    tournament: str | None, page_size: int = 0, page_token: str = "", bootstrap: int = 0
) -> pb.RatingsRequest:
    return pb.RatingsRequest(
        tournament=tournament, page_size=page_size, page_token=page_token, bootstrap_resamples=bootstrap
    )


def head_to_head_request_to_pb(
    tournament: str | None, page_size: int = 0, page_token: str = ""
) -> pb.HeadToHeadRequest:
    return pb.HeadToHeadRequest(tournament=tournament, page_size=page_size, page_token=page_token)


def export_request_to_pb(tournament: str | None, page_size: int = 0, page_token: str = "") -> pb.ExportGamesRequest:
    return pb.ExportGamesRequest(tournament=tournament, page_size=page_size, page_token=page_token)


def scope_from_pb(msg: pb.RatingsRequest | pb.ExportGamesRequest | pb.HeadToHeadRequest) -> str | None:
    """The tournament a Ratings, HeadToHead or ExportGames request is about; None for all of them."""
    return msg.tournament if msg.HasField("tournament") else None


def show_game_request_to_pb(game_id: int) -> pb.ShowGameRequest:
    return pb.ShowGameRequest(id=game_id)


def show_game_request_from_pb(msg: pb.ShowGameRequest) -> int:
    return msg.id


def list_tournaments_request(page_size: int = 0, page_token: str = "") -> pb.ListTournamentsRequest:
    return pb.ListTournamentsRequest(page_size=page_size, page_token=page_token)


def list_bots_request(page_size: int = 0, page_token: str = "") -> pb.ListBotsRequest:
    return pb.ListBotsRequest(page_size=page_size, page_token=page_token)


PagedRequest = (
    pb.ListTournamentsRequest
    | pb.ListBotsRequest
    | pb.RatingsRequest
    | pb.ListGamesRequest
    | pb.ExportGamesRequest
    | pb.HeadToHeadRequest
)
PagedResponse = (
    pb.ListTournamentsResponse | pb.ListBotsResponse | pb.RatingsResponse | pb.ListGamesResponse | pb.HeadToHeadResponse
)


def page_request(msg: PagedRequest) -> tuple[int, str]:
    """(page_size, page_token) of a list or export request."""
    return msg.page_size, msg.page_token


def next_page_token(msg: PagedResponse | pb.ExportGamesResponse) -> str:
    """The token of a list reply's next page, or of the export after this message; '' at the end."""
    return msg.page_token if isinstance(msg, pb.ExportGamesResponse) else msg.next_page_token


def create_response_to_pb(t: Tournament) -> pb.CreateTournamentResponse:
    return pb.CreateTournamentResponse(tournament=tournament_to_pb(t))


def start_response_to_pb(t: Tournament) -> pb.StartTournamentResponse:
    return pb.StartTournamentResponse(tournament=tournament_to_pb(t))


def show_response_to_pb(t: Tournament) -> pb.ShowTournamentResponse:
    return pb.ShowTournamentResponse(tournament=tournament_to_pb(t))


def tournament_reply_from_pb(
    msg: pb.CreateTournamentResponse | pb.StartTournamentResponse | pb.ShowTournamentResponse,
) -> Tournament:
    return tournament_from_pb(msg.tournament)


def enter_response_to_pb(bot: str, t: Tournament) -> pb.EnterTournamentResponse:
    return pb.EnterTournamentResponse(bot=bot, tournament=tournament_to_pb(t))


def tournaments_to_pb(tournaments: list[Tournament], next_page: str = "") -> pb.ListTournamentsResponse:
    return pb.ListTournamentsResponse(tournaments=[tournament_to_pb(t) for t in tournaments], next_page_token=next_page)


def tournaments_from_pb(msg: pb.ListTournamentsResponse) -> list[Tournament]:
    return [tournament_from_pb(t) for t in msg.tournaments]


def bots_to_pb(bots: list[BotRecord], next_page: str = "") -> pb.ListBotsResponse:
    return pb.ListBotsResponse(bots=[bot_to_pb(b) for b in bots], next_page_token=next_page)


def bots_from_pb(msg: pb.ListBotsResponse) -> list[BotRecord]:
    return [bot_from_pb(b) for b in msg.bots]


def ratings_to_pb(rows: list[RatingRow], next_page: str = "") -> pb.RatingsResponse:
    return pb.RatingsResponse(rows=[rating_row_to_pb(r) for r in rows], next_page_token=next_page)


def ratings_from_pb(msg: pb.RatingsResponse) -> list[RatingRow]:
    return [rating_row_from_pb(r) for r in msg.rows]


def pairs_to_pb(pairs: list[PairRecord], next_page: str = "") -> pb.HeadToHeadResponse:
    return pb.HeadToHeadResponse(pairs=[pair_to_pb(p) for p in pairs], next_page_token=next_page)


def pairs_from_pb(msg: pb.HeadToHeadResponse) -> list[PairRecord]:
    return [pair_from_pb(p) for p in msg.pairs]


def games_to_pb(games: list[GameInfo], next_page: str = "") -> pb.ListGamesResponse:
    return pb.ListGamesResponse(games=[game_info_to_pb(g) for g in games], next_page_token=next_page)


def games_from_pb(msg: pb.ListGamesResponse) -> list[GameInfo]:
    return [game_info_from_pb(g) for g in msg.games]


def exported_to_pb(line: str, page_token: str = "") -> pb.ExportGamesResponse:
    return pb.ExportGamesResponse(game_json=line, page_token=page_token)


def exported_from_pb(msg: pb.ExportGamesResponse) -> str:
    return msg.game_json


def reveal_request_to_pb(tournament: str) -> pb.RevealSeedsRequest:
    return pb.RevealSeedsRequest(tournament=tournament)


def reveal_request_from_pb(msg: pb.RevealSeedsRequest) -> str:
    return msg.tournament


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


def reveal_from_pb(tournament: str, msg: pb.RevealSeedsResponse) -> SeedReveal:
    games = tuple(GameSeed(g.game_id, g.table_index, g.game_index, g.attempt, g.seed) for g in msg.games)
    return SeedReveal(tournament, msg.seed, msg.seed_nonce, msg.seed_commitment, games)
