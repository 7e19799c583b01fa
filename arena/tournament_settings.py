"""A tournament's settings as the CLI and the Arena service pass them: format, clocks, failure policy.

`TournamentSettings.create` validates everything at once (the referee's clock ranges included) and
stores the tournament with its failure policy written out in full, so a later change of the
defaults never changes a tournament already created.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session

from . import store
from .errors import InvalidSetting
from .referee import Limits

DEFAULT_ABSENT_WAIT_MS = 30_000
"""Long enough for a bot whose connection broke to come back with the SDK's reconnect back-off
(at most 10 s between attempts) even across an arena restart; short enough that a bot that is
gone costs its opponents half a minute, once."""
MAX_ABSENT_WAIT_MS = 3_600_000
_REFEREE = Limits()


@dataclass(frozen=True, slots=True)
class FailurePolicy:
    """What a tournament does when a bot fails; see `arena.referee` for the in-game clocks."""

    absent_wait_ms: int = DEFAULT_ABSENT_WAIT_MS
    """How long a bot that is not connected when its game is due is waited for, before it forfeits
    that game (and its next ones at once, until it connects again)."""
    grace_ms: int = _REFEREE.grace_ms
    time_bank_ms: int = _REFEREE.time_bank_ms
    max_invalid: int = _REFEREE.max_invalid

    def __post_init__(self) -> None:
        if not 0 <= self.absent_wait_ms <= MAX_ABSENT_WAIT_MS:
            raise InvalidSetting(f"absent_wait_ms must be within 0..{MAX_ABSENT_WAIT_MS}, not {self.absent_wait_ms}")

    def limits(self, move_limit_ms: int) -> Limits:
        """The referee's clocks for one game; InvalidSetting names a value out of range."""
        try:
            return Limits(move_limit_ms, self.time_bank_ms, self.grace_ms, self.max_invalid)
        except ValueError as exc:
            raise InvalidSetting(str(exc).replace("move_ms", "move_limit_ms")) from None

    def to_json(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> FailurePolicy:
        """The stored policy; None (a tournament created without one) means the defaults."""
        if data is None:
            return cls()
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise InvalidSetting(f"unknown failure policy settings: {', '.join(sorted(unknown))}")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
            raise InvalidSetting(f"failure policy settings must be whole numbers of ms: {dict(data)}")
        return cls(**data)


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """Everything that defines a tournament before it has entrants."""

    name: str
    table_size: int
    games_per_table: int
    starts_at: datetime
    move_limit_ms: int
    concurrency: int = 1
    seed: int | None = None
    """None draws one at random (it is stored, so the tournament stays reproducible)."""
    policy: FailurePolicy = field(default_factory=FailurePolicy)

    def create(self, *, session: Session) -> store.Tournament:
        """Store the tournament; InvalidSetting, InvalidName or DuplicateName say what is wrong."""
        self.policy.limits(self.move_limit_ms)
        return store.create_tournament(
            session=session,
            name=self.name,
            table_size=self.table_size,
            games_per_table=self.games_per_table,
            starts_at=self.starts_at,
            move_limit_ms=self.move_limit_ms,
            concurrency=self.concurrency,
            seed=self.seed,
            failure_policy=self.policy.to_json(),
        )
