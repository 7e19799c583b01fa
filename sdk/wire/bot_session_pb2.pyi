from . import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_FLIP: _ClassVar[DecisionKind]
    DECISION_KIND_ACTION: _ClassVar[DecisionKind]

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_MALFORMED: _ClassVar[ErrorCode]
    ERROR_CODE_PROTOCOL: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_GAME: _ClassVar[ErrorCode]
    ERROR_CODE_NOT_YOUR_REQUEST: _ClassVar[ErrorCode]
    ERROR_CODE_STALE_REQUEST: _ClassVar[ErrorCode]
    ERROR_CODE_SEAT_FORFEITED: _ClassVar[ErrorCode]
    ERROR_CODE_SUPERSEDED: _ClassVar[ErrorCode]

class TournamentEnd(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_END_UNSPECIFIED: _ClassVar[TournamentEnd]
    TOURNAMENT_END_FINISHED: _ClassVar[TournamentEnd]
    TOURNAMENT_END_FAILED: _ClassVar[TournamentEnd]
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_FLIP: DecisionKind
DECISION_KIND_ACTION: DecisionKind
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_MALFORMED: ErrorCode
ERROR_CODE_PROTOCOL: ErrorCode
ERROR_CODE_UNKNOWN_GAME: ErrorCode
ERROR_CODE_NOT_YOUR_REQUEST: ErrorCode
ERROR_CODE_STALE_REQUEST: ErrorCode
ERROR_CODE_SEAT_FORFEITED: ErrorCode
ERROR_CODE_SUPERSEDED: ErrorCode
TOURNAMENT_END_UNSPECIFIED: TournamentEnd
TOURNAMENT_END_FINISHED: TournamentEnd
TOURNAMENT_END_FAILED: TournamentEnd

class Hello(_message.Message):
    __slots__ = ("bot_name", "bot_version", "capacity", "want_legal_actions", "tournaments", "accept_casual")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    WANT_LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_CASUAL_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    bot_version: str
    capacity: int
    want_legal_actions: bool
    tournaments: _containers.RepeatedScalarFieldContainer[str]
    accept_casual: bool
    def __init__(self, bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., capacity: _Optional[int] = ..., want_legal_actions: _Optional[bool] = ..., tournaments: _Optional[_Iterable[str]] = ..., accept_casual: _Optional[bool] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("game_id", "request_id", "action")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    action: _game_pb2.Action
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action: _Optional[_Union[_game_pb2.Action, _Mapping]] = ...) -> None: ...

class BotMessage(_message.Message):
    __slots__ = ("hello", "decision")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    decision: Decision
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class BotBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[BotMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[BotMessage, _Mapping]]] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "bot_name", "capacity")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    CAPACITY_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    bot_name: str
    capacity: int
    def __init__(self, session_id: _Optional[str] = ..., bot_name: _Optional[str] = ..., capacity: _Optional[int] = ...) -> None: ...

class GameStarted(_message.Message):
    __slots__ = ("game_id", "seat", "players", "move_limit_ms", "time_bank_ms")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MOVE_LIMIT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    players: _containers.RepeatedScalarFieldContainer[str]
    move_limit_ms: int
    time_bank_ms: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., move_limit_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("game_id", "request_id", "kind", "observation", "time_left_ms", "time_bank_ms", "legal_actions")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    kind: DecisionKind
    observation: _game_pb2.Observation
    time_left_ms: int
    time_bank_ms: int
    legal_actions: _containers.RepeatedCompositeFieldContainer[_game_pb2.Action]
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., observation: _Optional[_Union[_game_pb2.Observation, _Mapping]] = ..., time_left_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ..., legal_actions: _Optional[_Iterable[_Union[_game_pb2.Action, _Mapping]]] = ...) -> None: ...

class ActionAccepted(_message.Message):
    __slots__ = ("game_id", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class ActionRejected(_message.Message):
    __slots__ = ("game_id", "request_id", "reason", "attempts_left")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    request_id: int
    reason: str
    attempts_left: int
    def __init__(self, game_id: _Optional[str] = ..., request_id: _Optional[int] = ..., reason: _Optional[str] = ..., attempts_left: _Optional[int] = ...) -> None: ...

class PublicEvent(_message.Message):
    __slots__ = ("game_id", "seq", "event")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seq: int
    event: _game_pb2.Event
    def __init__(self, game_id: _Optional[str] = ..., seq: _Optional[int] = ..., event: _Optional[_Union[_game_pb2.Event, _Mapping]] = ...) -> None: ...

class Forfeit(_message.Message):
    __slots__ = ("seat", "reason", "cause")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    reason: str
    cause: _game_pb2.ForfeitCause
    def __init__(self, seat: _Optional[int] = ..., reason: _Optional[str] = ..., cause: _Optional[_Union[_game_pb2.ForfeitCause, str]] = ...) -> None: ...

class GameOver(_message.Message):
    __slots__ = ("game_id", "totals", "ranks", "forfeits", "round_end_reasons")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    FORFEITS_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_REASONS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    totals: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    forfeits: _containers.RepeatedCompositeFieldContainer[Forfeit]
    round_end_reasons: _containers.RepeatedScalarFieldContainer[_game_pb2.EndReason]
    def __init__(self, game_id: _Optional[str] = ..., totals: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., forfeits: _Optional[_Iterable[_Union[Forfeit, _Mapping]]] = ..., round_end_reasons: _Optional[_Iterable[_Union[_game_pb2.EndReason, str]]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "game_id", "request_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    game_id: str
    request_id: int
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., game_id: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class TournamentOver(_message.Message):
    __slots__ = ("tournament", "end")
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    tournament: str
    end: TournamentEnd
    def __init__(self, tournament: _Optional[str] = ..., end: _Optional[_Union[TournamentEnd, str]] = ...) -> None: ...

class ArenaMessage(_message.Message):
    __slots__ = ("welcome", "game_started", "decision_request", "action_accepted", "action_rejected", "public_event", "game_over", "error", "tournament_over")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    ACTION_ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_REJECTED_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_EVENT_FIELD_NUMBER: _ClassVar[int]
    GAME_OVER_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_OVER_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    game_started: GameStarted
    decision_request: DecisionRequest
    action_accepted: ActionAccepted
    action_rejected: ActionRejected
    public_event: PublicEvent
    game_over: GameOver
    error: Error
    tournament_over: TournamentOver
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., game_started: _Optional[_Union[GameStarted, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., action_accepted: _Optional[_Union[ActionAccepted, _Mapping]] = ..., action_rejected: _Optional[_Union[ActionRejected, _Mapping]] = ..., public_event: _Optional[_Union[PublicEvent, _Mapping]] = ..., game_over: _Optional[_Union[GameOver, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., tournament_over: _Optional[_Union[TournamentOver, _Mapping]] = ...) -> None: ...

class ArenaBatch(_message.Message):
    __slots__ = ("messages",)
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ArenaMessage]
    def __init__(self, messages: _Optional[_Iterable[_Union[ArenaMessage, _Mapping]]] = ...) -> None: ...
