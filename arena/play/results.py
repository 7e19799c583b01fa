"""What a finished game produced, seat by seat: the referee writes it, storage and ratings read it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sdk.engine import GameRecord, competition_ranks
from sdk.protocol import ForfeitCause

__all__ = ["ForfeitCause", "GameResult", "PolicyDecision", "SeatResult", "final_ranks"]


class PolicyDecision(Enum):
    """What a tournament's failure policy did with a forfeited seat. Stored with the result, beside
    the cause, so a tournament can be re-rated later under another policy."""

    FORFEIT = "forfeit"
    """The policy forfeits this cause: the seat ranks last and the game counts."""
    VOID = "void"
    """The policy voids this cause: the attempt was voided and the game played again (only in
    voided attempts)."""
    CAP_REACHED = "void-cap-reached"
    """The policy voids this cause, but the game had been voided `max_replays` times already, so
    the seat forfeited and the game counts: a tournament always ends."""
    BOT_VOID_CAP_REACHED = "bot-void-cap-reached"
    """The policy voids this cause, but this bot had already caused `max_voids_per_bot` voids in
    the tournament, so the seat forfeited: a bot that keeps failing costs its opponents few
    replays."""


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's result. `forfeit` is the reason the seat was forfeited, or None; `cause`
    classifies it and is set exactly when `forfeit` is. `policy` is the tournament's decision on
    that failure (`FailurePolicy.judge`); None outside tournaments and for seats that played on."""

    seat: int
    bot: str
    points: int
    rank: int
    forfeit: str | None = None
    cause: ForfeitCause | None = None
    policy: PolicyDecision | None = None

    def __post_init__(self) -> None:
        if (self.forfeit is None) != (self.cause is None):
            raise ValueError("a forfeited seat needs both a reason and a cause, any other seat neither")
        if self.forfeit is None and self.policy is not None:
            raise ValueError("only a forfeited seat has a failure policy decision")

    def to_json(self) -> dict[str, Any]:
        """A plain JSON object: the fields by name, enums by value (exports, voided attempts)."""
        return {
            "seat": self.seat,
            "bot": self.bot,
            "points": self.points,
            "rank": self.rank,
            "forfeit": self.forfeit,
            "cause": None if self.cause is None else self.cause.value,
            "policy": None if self.policy is None else self.policy.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatResult:
        cause, policy = data["cause"], data["policy"]
        return cls(
            data["seat"],
            data["bot"],
            data["points"],
            data["rank"],
            data["forfeit"],
            None if cause is None else ForfeitCause(cause),
            None if policy is None else PolicyDecision(policy),
        )


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: its full record and one `SeatResult` per seat, in seat order."""

    record: GameRecord
    seats: tuple[SeatResult, ...]

    @property
    def voided(self) -> bool:
        """Whether the failure policy voided this attempt: the game is to be played again."""
        return any(s.policy is PolicyDecision.VOID for s in self.seats)


def final_ranks(points: Sequence[int], forfeited: Sequence[bool]) -> tuple[int, ...]:
    """Competition ranks by points (docs/rules.md §8), except that forfeiting seats rank last, together.

    >>> final_ranks([7, 5, 5, 1], [False, False, False, False])
    (1, 2, 2, 4)
    >>> final_ranks([9, 5, 5, 1], [True, False, False, False])
    (4, 1, 1, 3)
    """
    playing = [p for p, f in zip(points, forfeited, strict=True) if not f]
    ranks = iter(competition_ranks(playing))
    last = len(playing) + 1
    return tuple(last if f else next(ranks) for f in forfeited)
