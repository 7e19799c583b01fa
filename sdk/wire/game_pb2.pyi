from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class End(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_UNSPECIFIED: _ClassVar[End]
    END_LEFT: _ClassVar[End]
    END_RIGHT: _ClassVar[End]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_FLIP: _ClassVar[Phase]
    PHASE_PLAY: _ClassVar[Phase]
    PHASE_OVER: _ClassVar[Phase]

class EndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    END_REASON_UNSPECIFIED: _ClassVar[EndReason]
    END_REASON_EMPTY_HAND: _ClassVar[EndReason]
    END_REASON_BACK_TO_OWNER: _ClassVar[EndReason]
    END_REASON_CANNOT_ANSWER: _ClassVar[EndReason]
    END_REASON_ACTION_CAP: _ClassVar[EndReason]

class ForfeitCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORFEIT_CAUSE_UNSPECIFIED: _ClassVar[ForfeitCause]
    FORFEIT_CAUSE_TIMEOUT: _ClassVar[ForfeitCause]
    FORFEIT_CAUSE_ILLEGAL: _ClassVar[ForfeitCause]
    FORFEIT_CAUSE_DISCONNECT: _ClassVar[ForfeitCause]
    FORFEIT_CAUSE_ABSENT: _ClassVar[ForfeitCause]
END_UNSPECIFIED: End
END_LEFT: End
END_RIGHT: End
PHASE_UNSPECIFIED: Phase
PHASE_FLIP: Phase
PHASE_PLAY: Phase
PHASE_OVER: Phase
END_REASON_UNSPECIFIED: EndReason
END_REASON_EMPTY_HAND: EndReason
END_REASON_BACK_TO_OWNER: EndReason
END_REASON_CANNOT_ANSWER: EndReason
END_REASON_ACTION_CAP: EndReason
FORFEIT_CAUSE_UNSPECIFIED: ForfeitCause
FORFEIT_CAUSE_TIMEOUT: ForfeitCause
FORFEIT_CAUSE_ILLEGAL: ForfeitCause
FORFEIT_CAUSE_DISCONNECT: ForfeitCause
FORFEIT_CAUSE_ABSENT: ForfeitCause

class Card(_message.Message):
    __slots__ = ("top", "bottom")
    TOP_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    top: int
    bottom: int
    def __init__(self, top: _Optional[int] = ..., bottom: _Optional[int] = ...) -> None: ...

class Flip(_message.Message):
    __slots__ = ("flip",)
    FLIP_FIELD_NUMBER: _ClassVar[int]
    flip: bool
    def __init__(self, flip: _Optional[bool] = ...) -> None: ...

class Show(_message.Message):
    __slots__ = ("start", "length")
    START_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    start: int
    length: int
    def __init__(self, start: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...

class Scout(_message.Message):
    __slots__ = ("end", "flip", "position")
    END_FIELD_NUMBER: _ClassVar[int]
    FLIP_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    end: End
    flip: bool
    position: int
    def __init__(self, end: _Optional[_Union[End, str]] = ..., flip: _Optional[bool] = ..., position: _Optional[int] = ...) -> None: ...

class ScoutShow(_message.Message):
    __slots__ = ("scout", "show")
    SCOUT_FIELD_NUMBER: _ClassVar[int]
    SHOW_FIELD_NUMBER: _ClassVar[int]
    scout: Scout
    show: Show
    def __init__(self, scout: _Optional[_Union[Scout, _Mapping]] = ..., show: _Optional[_Union[Show, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("flip", "show", "scout", "scout_show")
    FLIP_FIELD_NUMBER: _ClassVar[int]
    SHOW_FIELD_NUMBER: _ClassVar[int]
    SCOUT_FIELD_NUMBER: _ClassVar[int]
    SCOUT_SHOW_FIELD_NUMBER: _ClassVar[int]
    flip: Flip
    show: Show
    scout: Scout
    scout_show: ScoutShow
    def __init__(self, flip: _Optional[_Union[Flip, _Mapping]] = ..., show: _Optional[_Union[Show, _Mapping]] = ..., scout: _Optional[_Union[Scout, _Mapping]] = ..., scout_show: _Optional[_Union[ScoutShow, _Mapping]] = ...) -> None: ...

class PlayerView(_message.Message):
    __slots__ = ("seat", "hand_size", "captured", "scout_chips", "has_scout_show", "flipped", "round_scores", "total")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_FIELD_NUMBER: _ClassVar[int]
    SCOUT_CHIPS_FIELD_NUMBER: _ClassVar[int]
    HAS_SCOUT_SHOW_FIELD_NUMBER: _ClassVar[int]
    FLIPPED_FIELD_NUMBER: _ClassVar[int]
    ROUND_SCORES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand_size: int
    captured: int
    scout_chips: int
    has_scout_show: bool
    flipped: bool
    round_scores: _containers.RepeatedScalarFieldContainer[int]
    total: int
    def __init__(self, seat: _Optional[int] = ..., hand_size: _Optional[int] = ..., captured: _Optional[int] = ..., scout_chips: _Optional[int] = ..., has_scout_show: _Optional[bool] = ..., flipped: _Optional[bool] = ..., round_scores: _Optional[_Iterable[int]] = ..., total: _Optional[int] = ...) -> None: ...

class TableView(_message.Message):
    __slots__ = ("players", "round", "rounds", "first_player", "phase", "to_move", "active_set", "active_owner", "seats", "round_actions")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SET_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_OWNER_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    ROUND_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    players: int
    round: int
    rounds: int
    first_player: int
    phase: Phase
    to_move: int
    active_set: _containers.RepeatedCompositeFieldContainer[Card]
    active_owner: int
    seats: _containers.RepeatedCompositeFieldContainer[PlayerView]
    round_actions: int
    def __init__(self, players: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., first_player: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_move: _Optional[int] = ..., active_set: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., active_owner: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[PlayerView, _Mapping]]] = ..., round_actions: _Optional[int] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "hand", "table")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    table: TableView
    def __init__(self, seat: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., table: _Optional[_Union[TableView, _Mapping]] = ...) -> None: ...

class RoundStarted(_message.Message):
    __slots__ = ("round", "first_player", "hand_size")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    round: int
    first_player: int
    hand_size: int
    def __init__(self, round: _Optional[int] = ..., first_player: _Optional[int] = ..., hand_size: _Optional[int] = ...) -> None: ...

class FlipsRevealed(_message.Message):
    __slots__ = ("round", "flips")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    FLIPS_FIELD_NUMBER: _ClassVar[int]
    round: int
    flips: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, round: _Optional[int] = ..., flips: _Optional[_Iterable[bool]] = ...) -> None: ...

class Shown(_message.Message):
    __slots__ = ("seat", "start", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    start: int
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, seat: _Optional[int] = ..., start: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Scouted(_message.Message):
    __slots__ = ("seat", "end", "flip", "card", "position")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    FLIP_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    end: End
    flip: bool
    card: Card
    position: int
    def __init__(self, seat: _Optional[int] = ..., end: _Optional[_Union[End, str]] = ..., flip: _Optional[bool] = ..., card: _Optional[_Union[Card, _Mapping]] = ..., position: _Optional[int] = ...) -> None: ...

class ScoutedAndShown(_message.Message):
    __slots__ = ("scouted", "shown")
    SCOUTED_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    scouted: Scouted
    shown: Shown
    def __init__(self, scouted: _Optional[_Union[Scouted, _Mapping]] = ..., shown: _Optional[_Union[Shown, _Mapping]] = ...) -> None: ...

class RoundEnded(_message.Message):
    __slots__ = ("round", "reason", "scores", "hand_sizes")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    round: int
    reason: EndReason
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., reason: _Optional[_Union[EndReason, str]] = ..., scores: _Optional[_Iterable[int]] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("round_started", "flips_revealed", "shown", "scouted", "scouted_and_shown", "round_ended")
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    FLIPS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    SHOWN_FIELD_NUMBER: _ClassVar[int]
    SCOUTED_FIELD_NUMBER: _ClassVar[int]
    SCOUTED_AND_SHOWN_FIELD_NUMBER: _ClassVar[int]
    ROUND_ENDED_FIELD_NUMBER: _ClassVar[int]
    round_started: RoundStarted
    flips_revealed: FlipsRevealed
    shown: Shown
    scouted: Scouted
    scouted_and_shown: ScoutedAndShown
    round_ended: RoundEnded
    def __init__(self, round_started: _Optional[_Union[RoundStarted, _Mapping]] = ..., flips_revealed: _Optional[_Union[FlipsRevealed, _Mapping]] = ..., shown: _Optional[_Union[Shown, _Mapping]] = ..., scouted: _Optional[_Union[Scouted, _Mapping]] = ..., scouted_and_shown: _Optional[_Union[ScoutedAndShown, _Mapping]] = ..., round_ended: _Optional[_Union[RoundEnded, _Mapping]] = ...) -> None: ...
