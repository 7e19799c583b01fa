"""The bot session's conversation as plain values (docs/protocol.md explains the order).

Both sides speak in these types: the arena's referee builds them, the SDK's runner reads them, and
one conversion module per side (`sdk.wire.bot_session`, `arena.api.bot_session_wire`) maps them to and from the
protobuf messages of proto/scout/arena/v1/bot_session.proto, field for field. Several are built
per decision, so they are not frozen dataclasses (those cost several times as much to build); no
code changes one after building it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

from .engine import Action, EndReason, Event, Observation, Seat


class DecisionKind(Enum):
    """What a DecisionRequest asks for."""

    FLIP = "flip"
    ACTION = "action"


class ErrorCode(Enum):
    """Why the arena refused a bot's message; the message itself changed nothing."""

    MALFORMED = "malformed"
    PROTOCOL = "protocol"
    UNKNOWN_GAME = "unknown game"
    NOT_YOUR_REQUEST = "not your request"
    STALE_REQUEST = "stale request"
    SEAT_FORFEITED = "seat forfeited"
    SUPERSEDED = "superseded"


class ForfeitCause(Enum):
    """Why the referee forfeited a seat; a tournament's failure policy decides what follows, per
    cause. The values are the arena's stored names."""

    TIMEOUT = "timeout"
    """No legal answer to a request within its time."""
    ILLEGAL = "illegal"
    """Too many illegal answers to one request."""
    DISCONNECT = "disconnect"
    """The bot's connection broke mid-game and it did not come back within the grace period."""
    ABSENT = "absent"
    """The bot was not connected when the game began (it crashed at start, or never came)."""


class TournamentEnd(Enum):
    """How a tournament ended."""

    FINISHED = "finished"
    FAILED = "failed"


# ---- bot -> arena ------------------------------------------------------------------------------


@dataclass(slots=True)
class Hello:
    """Opens a session: who the program is, how many games it plays at once, the tournaments it
    plays for (each gets a TournamentOver once it has ended), and whether it accepts casual games."""

    bot_name: str
    bot_version: str
    capacity: int
    want_legal_actions: bool
    tournaments: tuple[str, ...] = ()
    accept_casual: bool = False
    """Whether people may choose the bot for a casual game on the arena's Play page (unrated)."""


@dataclass(slots=True)
class Decision:
    """The answer to one DecisionRequest."""

    game_id: str
    request_id: int
    action: Action


BotMessage: TypeAlias = Hello | Decision


# ---- arena -> bot ------------------------------------------------------------------------------


@dataclass(slots=True)
class Welcome:
    """The arena accepted the Hello; `bot_name` is the name the token is registered under."""

    session_id: str
    bot_name: str
    capacity: int


@dataclass(slots=True)
class GameStarted:
    """The bot holds `seat` in a game; sent again for each running game after a reconnect."""

    game_id: str
    seat: Seat
    players: tuple[str, ...]
    move_limit_ms: int
    time_bank_ms: int


@dataclass(slots=True)
class DecisionRequest:
    """The seat must decide. On the wire the observation carries no history (the bot keeps it
    from the PublicEvents) and its legal actions only if the Hello asked for them."""

    game_id: str
    request_id: int
    kind: DecisionKind
    observation: Observation
    time_left_ms: int
    time_bank_ms: int


@dataclass(slots=True)
class ActionAccepted:
    game_id: str
    request_id: int


@dataclass(slots=True)
class ActionRejected:
    """The answer was illegal and nothing changed; the same request may be answered again."""

    game_id: str
    request_id: int
    reason: str
    attempts_left: int


@dataclass(slots=True)
class PublicEvent:
    """Event number `seq` of the game's public history."""

    game_id: str
    seq: int
    event: Event


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A seat the referee took over: why, as a `ForfeitCause` and in words. `cause` is None for a
    casual game that ended early to give way to a tournament game (and from an older arena)."""

    seat: Seat
    cause: ForfeitCause | None
    reason: str


@dataclass(slots=True)
class GameOver:
    """The final standing; `forfeits` lists the seats the referee took over."""

    game_id: str
    totals: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[Forfeit, ...]
    round_end_reasons: tuple[EndReason, ...]


@dataclass(slots=True)
class TournamentOver:
    """A tournament the Hello named has ended: it gives the bot no more games."""

    tournament: str
    end: TournamentEnd


@dataclass(slots=True)
class ErrorNotice:
    """An in-band error (the wire's `ArenaError` message): `code` says why, `message` says what to do
    about it."""

    code: ErrorCode
    message: str
    game_id: str = ""
    request_id: int = 0


ArenaMessage: TypeAlias = (
    Welcome
    | GameStarted
    | DecisionRequest
    | ActionAccepted
    | ActionRejected
    | PublicEvent
    | GameOver
    | ErrorNotice
    | TournamentOver
)
