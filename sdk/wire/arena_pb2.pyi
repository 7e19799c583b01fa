from . import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
    __slots__ = ("seat", "bot", "points", "rank", "forfeit")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot: str
    points: int
    rank: int
    forfeit: str
    def __init__(self, seat: _Optional[int] = ..., bot: _Optional[str] = ..., points: _Optional[int] = ..., rank: _Optional[int] = ..., forfeit: _Optional[str] = ...) -> None: ...

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
