import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from . import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PolicyDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POLICY_DECISION_UNSPECIFIED: _ClassVar[PolicyDecision]
    POLICY_DECISION_FORFEIT: _ClassVar[PolicyDecision]
    POLICY_DECISION_VOID: _ClassVar[PolicyDecision]
    POLICY_DECISION_VOID_CAP_REACHED: _ClassVar[PolicyDecision]
    POLICY_DECISION_BOT_VOID_CAP_REACHED: _ClassVar[PolicyDecision]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_SCHEDULED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_STATUS_FAILED: _ClassVar[TournamentStatus]

class FailureAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAILURE_ACTION_UNSPECIFIED: _ClassVar[FailureAction]
    FAILURE_ACTION_FORFEIT: _ClassVar[FailureAction]
    FAILURE_ACTION_VOID: _ClassVar[FailureAction]

class StopOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_OUTCOME_UNSPECIFIED: _ClassVar[StopOutcome]
    STOP_OUTCOME_PLAYING: _ClassVar[StopOutcome]
    STOP_OUTCOME_SETTLED: _ClassVar[StopOutcome]
    STOP_OUTCOME_CAP_REACHED: _ClassVar[StopOutcome]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_SCHEDULED: _ClassVar[GameStatus]
    GAME_STATUS_RUNNING: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]
POLICY_DECISION_UNSPECIFIED: PolicyDecision
POLICY_DECISION_FORFEIT: PolicyDecision
POLICY_DECISION_VOID: PolicyDecision
POLICY_DECISION_VOID_CAP_REACHED: PolicyDecision
POLICY_DECISION_BOT_VOID_CAP_REACHED: PolicyDecision
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_STATUS_SCHEDULED: TournamentStatus
TOURNAMENT_STATUS_RUNNING: TournamentStatus
TOURNAMENT_STATUS_FINISHED: TournamentStatus
TOURNAMENT_STATUS_FAILED: TournamentStatus
FAILURE_ACTION_UNSPECIFIED: FailureAction
FAILURE_ACTION_FORFEIT: FailureAction
FAILURE_ACTION_VOID: FailureAction
STOP_OUTCOME_UNSPECIFIED: StopOutcome
STOP_OUTCOME_PLAYING: StopOutcome
STOP_OUTCOME_SETTLED: StopOutcome
STOP_OUTCOME_CAP_REACHED: StopOutcome
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_SCHEDULED: GameStatus
GAME_STATUS_RUNNING: GameStatus
GAME_STATUS_FINISHED: GameStatus

class DescribeArenaRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeArenaResponse(_message.Message):
    __slots__ = ("arena_id",)
    ARENA_ID_FIELD_NUMBER: _ClassVar[int]
    arena_id: str
    def __init__(self, arena_id: _Optional[str] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class PlayGameRequest(_message.Message):
    __slots__ = ("bots", "seed", "move_limit_ms", "time_bank_ms", "grace_ms")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MOVE_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    move_limit_ms: int
    time_bank_ms: int
    grace_ms: int
    def __init__(self, bots: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ..., move_limit_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "bot", "points", "rank", "forfeit", "cause", "policy")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    points: int
    rank: int
    forfeit: str
    cause: _game_pb2.ForfeitCause
    policy: PolicyDecision
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., points: _Optional[int] = ..., rank: _Optional[int] = ..., forfeit: _Optional[str] = ..., cause: _Optional[_Union[_game_pb2.ForfeitCause, str]] = ..., policy: _Optional[_Union[PolicyDecision, str]] = ...) -> None: ...

class PlayGameResponse(_message.Message):
    __slots__ = ("game_id", "seats", "round_end_reasons", "record_json")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_REASONS_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    round_end_reasons: _containers.RepeatedScalarFieldContainer[_game_pb2.EndReason]
    record_json: str
    def __init__(self, game_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., round_end_reasons: _Optional[_Iterable[_Union[_game_pb2.EndReason, str]]] = ..., record_json: _Optional[str] = ...) -> None: ...

class FailurePolicy(_message.Message):
    __slots__ = ("absent_wait_ms", "grace_ms", "time_bank_ms", "max_invalid", "on_timeout", "on_illegal", "on_disconnect", "on_absent", "max_replays", "max_voids_per_bot")
    ABSENT_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_INVALID_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ON_ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    ON_ABSENT_FIELD_NUMBER: _ClassVar[int]
    MAX_REPLAYS_FIELD_NUMBER: _ClassVar[int]
    MAX_VOIDS_PER_BOT_FIELD_NUMBER: _ClassVar[int]
    absent_wait_ms: int
    grace_ms: int
    time_bank_ms: int
    max_invalid: int
    on_timeout: FailureAction
    on_illegal: FailureAction
    on_disconnect: FailureAction
    on_absent: FailureAction
    max_replays: int
    max_voids_per_bot: int
    def __init__(self, absent_wait_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., max_invalid: _Optional[int] = ..., on_timeout: _Optional[_Union[FailureAction, str]] = ..., on_illegal: _Optional[_Union[FailureAction, str]] = ..., on_disconnect: _Optional[_Union[FailureAction, str]] = ..., on_absent: _Optional[_Union[FailureAction, str]] = ..., max_replays: _Optional[int] = ..., max_voids_per_bot: _Optional[int] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "table_size", "games_per_table", "starts_at", "move_limit_ms", "concurrency", "seed", "failure_policy", "max_entrants", "entry_code", "rounds", "stop_rule", "spectator_delay_s")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    GAMES_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    MOVE_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    FAILURE_POLICY_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CODE_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    STOP_RULE_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_S_FIELD_NUMBER: _ClassVar[int]
    name: str
    table_size: int
    games_per_table: int
    starts_at: _timestamp_pb2.Timestamp
    move_limit_ms: int
    concurrency: int
    seed: int
    failure_policy: FailurePolicy
    max_entrants: int
    entry_code: str
    rounds: int
    stop_rule: StopRule
    spectator_delay_s: int
    def __init__(self, name: _Optional[str] = ..., table_size: _Optional[int] = ..., games_per_table: _Optional[int] = ..., starts_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., move_limit_ms: _Optional[int] = ..., concurrency: _Optional[int] = ..., seed: _Optional[int] = ..., failure_policy: _Optional[_Union[FailurePolicy, _Mapping]] = ..., max_entrants: _Optional[int] = ..., entry_code: _Optional[str] = ..., rounds: _Optional[int] = ..., stop_rule: _Optional[_Union[StopRule, _Mapping]] = ..., spectator_delay_s: _Optional[int] = ...) -> None: ...

class StopRule(_message.Message):
    __slots__ = ("confidence", "top", "max_games", "equal_margin")
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    MAX_GAMES_FIELD_NUMBER: _ClassVar[int]
    EQUAL_MARGIN_FIELD_NUMBER: _ClassVar[int]
    confidence: float
    top: int
    max_games: int
    equal_margin: float
    def __init__(self, confidence: _Optional[float] = ..., top: _Optional[int] = ..., max_games: _Optional[int] = ..., equal_margin: _Optional[float] = ...) -> None: ...

class RankPair(_message.Message):
    __slots__ = ("upper", "lower", "above", "below", "settled", "equal", "games_needed")
    UPPER_FIELD_NUMBER: _ClassVar[int]
    LOWER_FIELD_NUMBER: _ClassVar[int]
    ABOVE_FIELD_NUMBER: _ClassVar[int]
    BELOW_FIELD_NUMBER: _ClassVar[int]
    SETTLED_FIELD_NUMBER: _ClassVar[int]
    EQUAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_NEEDED_FIELD_NUMBER: _ClassVar[int]
    upper: str
    lower: str
    above: int
    below: int
    settled: bool
    equal: bool
    games_needed: int
    def __init__(self, upper: _Optional[str] = ..., lower: _Optional[str] = ..., above: _Optional[int] = ..., below: _Optional[int] = ..., settled: _Optional[bool] = ..., equal: _Optional[bool] = ..., games_needed: _Optional[int] = ...) -> None: ...

class StopProgress(_message.Message):
    __slots__ = ("rounds", "games", "outcome", "pairs", "order")
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    rounds: int
    games: int
    outcome: StopOutcome
    pairs: _containers.RepeatedCompositeFieldContainer[RankPair]
    order: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rounds: _Optional[int] = ..., games: _Optional[int] = ..., outcome: _Optional[_Union[StopOutcome, str]] = ..., pairs: _Optional[_Iterable[_Union[RankPair, _Mapping]]] = ..., order: _Optional[_Iterable[str]] = ...) -> None: ...

class GameCounts(_message.Message):
    __slots__ = ("scheduled", "running", "finished", "played")
    SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    scheduled: int
    running: int
    finished: int
    played: int
    def __init__(self, scheduled: _Optional[int] = ..., running: _Optional[int] = ..., finished: _Optional[int] = ..., played: _Optional[int] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("id", "name", "table_size", "games_per_table", "starts_at", "move_limit_ms", "concurrency", "seed", "failure_policy", "status", "created_at", "started_at", "finished_at", "entrants", "games", "seed_commitment", "seed_nonce", "failure", "max_entrants", "invite_only", "rounds", "stop_rule", "stop_progress", "spectator_delay_s")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TABLE_SIZE_FIELD_NUMBER: _ClassVar[int]
    GAMES_PER_TABLE_FIELD_NUMBER: _ClassVar[int]
    STARTS_AT_FIELD_NUMBER: _ClassVar[int]
    MOVE_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    FAILURE_POLICY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_NONCE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    MAX_ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    INVITE_ONLY_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    STOP_RULE_FIELD_NUMBER: _ClassVar[int]
    STOP_PROGRESS_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_S_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    table_size: int
    games_per_table: int
    starts_at: _timestamp_pb2.Timestamp
    move_limit_ms: int
    concurrency: int
    seed: int
    failure_policy: FailurePolicy
    status: TournamentStatus
    created_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    entrants: _containers.RepeatedScalarFieldContainer[str]
    games: GameCounts
    seed_commitment: str
    seed_nonce: str
    failure: str
    max_entrants: int
    invite_only: bool
    rounds: int
    stop_rule: StopRule
    stop_progress: StopProgress
    spectator_delay_s: int
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., table_size: _Optional[int] = ..., games_per_table: _Optional[int] = ..., starts_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., move_limit_ms: _Optional[int] = ..., concurrency: _Optional[int] = ..., seed: _Optional[int] = ..., failure_policy: _Optional[_Union[FailurePolicy, _Mapping]] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., entrants: _Optional[_Iterable[str]] = ..., games: _Optional[_Union[GameCounts, _Mapping]] = ..., seed_commitment: _Optional[str] = ..., seed_nonce: _Optional[str] = ..., failure: _Optional[str] = ..., max_entrants: _Optional[int] = ..., invite_only: _Optional[bool] = ..., rounds: _Optional[int] = ..., stop_rule: _Optional[_Union[StopRule, _Mapping]] = ..., stop_progress: _Optional[_Union[StopProgress, _Mapping]] = ..., spectator_delay_s: _Optional[int] = ...) -> None: ...

class CreateTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class StartTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class EnterTournamentRequest(_message.Message):
    __slots__ = ("tournament", "entry_code")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CODE_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    entry_code: str
    def __init__(self, tournament: _Optional[str] = ..., entry_code: _Optional[str] = ...) -> None: ...

class EnterTournamentResponse(_message.Message):
    __slots__ = ("bot", "tournament")
    BOT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    tournament: Tournament
    def __init__(self, bot: _Optional[str] = ..., tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments", "next_page_token")
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[Tournament]
    next_page_token: str
    def __init__(self, tournaments: _Optional[_Iterable[_Union[Tournament, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ShowTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ShowTournamentResponse(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: Tournament
    def __init__(self, tournament: _Optional[_Union[Tournament, _Mapping]] = ...) -> None: ...

class Bot(_message.Message):
    __slots__ = ("id", "name", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: int
    name: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots", "next_page_token")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[Bot]
    next_page_token: str
    def __init__(self, bots: _Optional[_Iterable[_Union[Bot, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RatingsRequest(_message.Message):
    __slots__ = ("tournament", "page_size", "page_token", "bootstrap_resamples")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOOTSTRAP_RESAMPLES_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    page_size: int
    page_token: str
    bootstrap_resamples: int
    def __init__(self, tournament: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., bootstrap_resamples: _Optional[int] = ...) -> None: ...

class RatingRow(_message.Message):
    __slots__ = ("rank", "bot", "mu", "sigma", "conservative", "games", "wins", "average_points", "average_placing", "rank_low", "rank_high", "confidence", "bootstrap_confidence")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    CONSERVATIVE_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_POINTS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_PLACING_FIELD_NUMBER: _ClassVar[int]
    RANK_LOW_FIELD_NUMBER: _ClassVar[int]
    RANK_HIGH_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    BOOTSTRAP_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: float
    average_points: float
    average_placing: float
    rank_low: int
    rank_high: int
    confidence: float
    bootstrap_confidence: float
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., conservative: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[float] = ..., average_points: _Optional[float] = ..., average_placing: _Optional[float] = ..., rank_low: _Optional[int] = ..., rank_high: _Optional[int] = ..., confidence: _Optional[float] = ..., bootstrap_confidence: _Optional[float] = ...) -> None: ...

class RatingsResponse(_message.Message):
    __slots__ = ("rows", "next_page_token")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[RatingRow]
    next_page_token: str
    def __init__(self, rows: _Optional[_Iterable[_Union[RatingRow, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class HeadToHeadRequest(_message.Message):
    __slots__ = ("tournament", "page_size", "page_token")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    page_size: int
    page_token: str
    def __init__(self, tournament: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class HeadToHeadPair(_message.Message):
    __slots__ = ("bot", "other", "games", "above", "below", "ties", "point_difference", "p_value")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    ABOVE_FIELD_NUMBER: _ClassVar[int]
    BELOW_FIELD_NUMBER: _ClassVar[int]
    TIES_FIELD_NUMBER: _ClassVar[int]
    POINT_DIFFERENCE_FIELD_NUMBER: _ClassVar[int]
    P_VALUE_FIELD_NUMBER: _ClassVar[int]
    bot: str
    other: str
    games: int
    above: int
    below: int
    ties: int
    point_difference: float
    p_value: float
    def __init__(self, bot: _Optional[str] = ..., other: _Optional[str] = ..., games: _Optional[int] = ..., above: _Optional[int] = ..., below: _Optional[int] = ..., ties: _Optional[int] = ..., point_difference: _Optional[float] = ..., p_value: _Optional[float] = ...) -> None: ...

class HeadToHeadResponse(_message.Message):
    __slots__ = ("pairs", "next_page_token")
    PAIRS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    pairs: _containers.RepeatedCompositeFieldContainer[HeadToHeadPair]
    next_page_token: str
    def __init__(self, pairs: _Optional[_Iterable[_Union[HeadToHeadPair, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("id", "tournament", "table_index", "game_index", "seed", "status", "attempts", "seats", "started_at", "finished_at", "end_reasons", "results")
    ID_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    TABLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    END_REASONS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    id: int
    tournament: str
    table_index: int
    game_index: int
    seed: int
    status: GameStatus
    attempts: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    started_at: _timestamp_pb2.Timestamp
    finished_at: _timestamp_pb2.Timestamp
    end_reasons: _containers.RepeatedScalarFieldContainer[_game_pb2.EndReason]
    results: _containers.RepeatedCompositeFieldContainer[SeatResult]
    def __init__(self, id: _Optional[int] = ..., tournament: _Optional[str] = ..., table_index: _Optional[int] = ..., game_index: _Optional[int] = ..., seed: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., attempts: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_reasons: _Optional[_Iterable[_Union[_game_pb2.EndReason, str]]] = ..., results: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("tournament", "status", "page_size", "page_token")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    status: GameStatus
    page_size: int
    page_token: str
    def __init__(self, tournament: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameInfo]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ShowGameRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    def __init__(self, id: _Optional[int] = ...) -> None: ...

class VoidedAttempt(_message.Message):
    __slots__ = ("attempt", "voided_at", "seats", "record_json", "seed")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    VOIDED_AT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    voided_at: _timestamp_pb2.Timestamp
    seats: _containers.RepeatedCompositeFieldContainer[SeatResult]
    record_json: str
    seed: int
    def __init__(self, attempt: _Optional[int] = ..., voided_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., record_json: _Optional[str] = ..., seed: _Optional[int] = ...) -> None: ...

class ShowGameResponse(_message.Message):
    __slots__ = ("game", "record_json", "voided_attempts")
    GAME_FIELD_NUMBER: _ClassVar[int]
    RECORD_JSON_FIELD_NUMBER: _ClassVar[int]
    VOIDED_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    game: GameInfo
    record_json: str
    voided_attempts: _containers.RepeatedCompositeFieldContainer[VoidedAttempt]
    def __init__(self, game: _Optional[_Union[GameInfo, _Mapping]] = ..., record_json: _Optional[str] = ..., voided_attempts: _Optional[_Iterable[_Union[VoidedAttempt, _Mapping]]] = ...) -> None: ...

class ExportGamesRequest(_message.Message):
    __slots__ = ("tournament", "page_size", "page_token")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    page_size: int
    page_token: str
    def __init__(self, tournament: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ExportGamesResponse(_message.Message):
    __slots__ = ("game_json", "page_token")
    GAME_JSON_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_json: str
    page_token: str
    def __init__(self, game_json: _Optional[str] = ..., page_token: _Optional[str] = ...) -> None: ...

class RevealSeedsRequest(_message.Message):
    __slots__ = ("tournament",)
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    def __init__(self, tournament: _Optional[str] = ...) -> None: ...

class GameSeed(_message.Message):
    __slots__ = ("game_id", "table_index", "game_index", "attempt", "seed")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TABLE_INDEX_FIELD_NUMBER: _ClassVar[int]
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game_id: int
    table_index: int
    game_index: int
    attempt: int
    seed: int
    def __init__(self, game_id: _Optional[int] = ..., table_index: _Optional[int] = ..., game_index: _Optional[int] = ..., attempt: _Optional[int] = ..., seed: _Optional[int] = ...) -> None: ...

class RevealSeedsResponse(_message.Message):
    __slots__ = ("seed", "seed_nonce", "seed_commitment", "games")
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEED_NONCE_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    seed: int
    seed_nonce: str
    seed_commitment: str
    games: _containers.RepeatedCompositeFieldContainer[GameSeed]
    def __init__(self, seed: _Optional[int] = ..., seed_nonce: _Optional[str] = ..., seed_commitment: _Optional[str] = ..., games: _Optional[_Iterable[_Union[GameSeed, _Mapping]]] = ...) -> None: ...
