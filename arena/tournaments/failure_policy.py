"""A tournament's failure policy: per `ForfeitCause`, whether a failing seat forfeits or the game is
voided and played again, with the caps that keep a tournament finite and the in-game clocks.

Stored with the tournament written out in full (`to_json`), so a later change of the defaults never
changes a tournament already created; read back once, by the store, into this value.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from arena.errors import InvalidSetting
from arena.play.referee import Limits
from arena.play.results import ForfeitCause, GameResult, PolicyDecision, SeatResult

DEFAULT_ABSENT_WAIT_MS = 30_000
"""Long enough for a bot whose connection broke to come back with the SDK's reconnect back-off
(at most 10 s between attempts) even across an arena restart; short enough that a bot that is
gone costs its opponents half a minute, once."""
MAX_ABSENT_WAIT_MS = 3_600_000
DEFAULT_MAX_REPLAYS = 2
"""Enough for a bot hit by a network fault or an arena restart to play the game out; few enough
that a bot which keeps failing the same way costs its opponents at most three plays of a game."""
MAX_REPLAYS = 10
DEFAULT_MAX_VOIDS_PER_BOT = 2
"""Enough for a bot hit by a network fault or an arena restart or two in a tournament; few enough
that a bot which keeps failing costs its opponents at most two replays, while every later failure
forfeits (docs/operator-guide.md, "Failure policy")."""
MAX_VOIDS_PER_BOT = 100
_REFEREE = Limits()


class FailureAction(StrEnum):
    """What a tournament does with a game in which a seat failed with a given `ForfeitCause`."""

    FORFEIT = "forfeit"
    """The seat forfeits (ranks last, the fallback plays it) and the game counts."""
    VOID = "void"
    """The attempt is voided (kept, not rated) and the game played again: the failing seats keep
    their hands, the others are dealt afresh (`arena.tournaments.fairness.kept_hands`)."""


@dataclass(frozen=True, slots=True)
class FailurePolicy:
    """What a tournament does when a bot fails; see `arena.play.referee` for the in-game clocks."""

    absent_wait_ms: int = DEFAULT_ABSENT_WAIT_MS
    """How long a bot that is not connected when its game is due is waited for, before it forfeits
    that game (and its next ones at once, until it connects again)."""
    grace_ms: int = _REFEREE.grace_ms
    time_bank_ms: int = _REFEREE.time_bank_ms
    max_invalid: int = _REFEREE.max_invalid
    on_timeout: FailureAction = FailureAction.FORFEIT
    """Too slow is the bot's own doing, and a replay of the same deal would likely time out again."""
    on_illegal: FailureAction = FailureAction.FORFEIT
    """A bug in the bot; voiding would also let a losing bot escape a game by answering nonsense."""
    on_disconnect: FailureAction = FailureAction.VOID
    """Often not the bot's doing (network, host or arena restarts); the replay waits for the bot up
    to `absent_wait_ms`, so one that stays gone then forfeits as absent."""
    on_absent: FailureAction = FailureAction.FORFEIT
    """The runner has already waited `absent_wait_ms` for the bot: a replay would find it absent again."""
    max_replays: int = DEFAULT_MAX_REPLAYS
    """How many times one game may be voided; after that a voiding failure forfeits (recorded as
    `void-cap-reached`), so a tournament always ends."""
    max_voids_per_bot: int = DEFAULT_MAX_VOIDS_PER_BOT
    """How many voids one bot may cause in the tournament; after that its voiding failures forfeit
    (recorded as `bot-void-cap-reached`). A replay deals the failing bot its hands again, so failing
    buys it nothing; this bounds the replays a failing bot costs its opponents."""

    def __post_init__(self) -> None:
        if not 0 <= self.absent_wait_ms <= MAX_ABSENT_WAIT_MS:
            raise InvalidSetting(f"absent_wait_ms must be within 0..{MAX_ABSENT_WAIT_MS}, not {self.absent_wait_ms}")
        for cause in ForfeitCause:
            if not isinstance(self.action(cause), FailureAction):
                raise InvalidSetting(f"on_{cause.value} must be 'forfeit' or 'void', not {self.action(cause)!r}")
        if not 0 <= self.max_replays <= MAX_REPLAYS:
            raise InvalidSetting(f"max_replays must be within 0..{MAX_REPLAYS}, not {self.max_replays}")
        if not 0 <= self.max_voids_per_bot <= MAX_VOIDS_PER_BOT:
            raise InvalidSetting(
                f"max_voids_per_bot must be within 0..{MAX_VOIDS_PER_BOT}, not {self.max_voids_per_bot}"
            )

    def action(self, cause: ForfeitCause) -> FailureAction:
        """What this policy does when a seat fails with `cause`."""
        action: FailureAction = getattr(self, f"on_{cause.value}")
        return action

    def judge(self, result: GameResult, voided: int, bot_voids: Mapping[str, int] | None = None) -> GameResult:
        """`result` with the decision on each forfeited seat. If any is VOID (`result.voided`), the
        attempt is to be voided and the game played again; once the game has been voided
        `max_replays` times, voiding causes forfeit instead (CAP_REACHED), and so do those of a
        bot that has caused `max_voids_per_bot` voids in the tournament (`bot_voids`, by bot:
        BOT_VOID_CAP_REACHED)."""
        capped = voided >= self.max_replays
        caused = bot_voids or {}

        def decided(seat: SeatResult) -> SeatResult:
            if seat.cause is None:
                return seat
            if self.action(seat.cause) is FailureAction.FORFEIT:
                return replace(seat, policy=PolicyDecision.FORFEIT)
            if capped:
                return replace(seat, policy=PolicyDecision.CAP_REACHED)
            if caused.get(seat.bot, 0) >= self.max_voids_per_bot:
                return replace(seat, policy=PolicyDecision.BOT_VOID_CAP_REACHED)
            return replace(seat, policy=PolicyDecision.VOID)

        return GameResult(result.record, tuple(decided(s) for s in result.seats))

    def limits(self, move_limit_ms: int) -> Limits:
        """The referee's clocks for one game; InvalidSetting names a value out of range."""
        try:
            return Limits(move_limit_ms, self.time_bank_ms, self.grace_ms, self.max_invalid)
        except ValueError as exc:
            raise InvalidSetting(str(exc).replace("move_ms", "move_limit_ms")) from None

    def to_json(self) -> dict[str, int | str]:
        return {k: v.value if isinstance(v, FailureAction) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> FailurePolicy:
        """The stored policy; None (a tournament created without one) means the defaults, and so
        does a setting it lacks (one stored before that setting existed)."""
        if data is None:
            return cls()
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise InvalidSetting(f"unknown failure policy settings: {', '.join(sorted(unknown))}")
        actions = {f"on_{cause.value}" for cause in ForfeitCause}
        numbers = {k: v for k, v in data.items() if k not in actions}
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers.values()):
            raise InvalidSetting(f"failure policy settings must be whole numbers: {numbers}")
        values: dict[str, Any] = {k: _action(k, v) if k in actions else v for k, v in data.items()}
        return cls(**values)


def _action(setting: str, value: object) -> FailureAction:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return FailureAction(value)
    raise InvalidSetting(f"{setting} must be 'forfeit' or 'void', not {value!r}")
