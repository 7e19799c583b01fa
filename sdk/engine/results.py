"""How rounds end and games finish: end reasons, round results, the final standing (§6-§8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .cards import Seat

ROUND_ACTION_CAP = 1000
"""A round ends after this many accepted actions (docs/rules.md §6, Decision: termination)."""


class EndReason(Enum):
    """Why a round ended; the value names the rule."""

    EMPTY_HAND = "6.1 a player emptied their hand"
    BACK_TO_OWNER = "6.2 the turn came back to the owner of the active set"
    CANNOT_ANSWER = "6.2 (2 players) the player to move has no chip and no stronger set"
    ACTION_CAP = "6 the round reached the action cap"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One scored round (docs/rules.md §7). `exempt` is the owner who lost nothing for their hand."""

    round: int
    reason: EndReason
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    exempt: Seat | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game (docs/rules.md §8): totals, competition ranks (1, 2, 2, 4) and the winners."""

    totals: tuple[int, ...]
    ranks: tuple[int, ...]

    @property
    def winners(self) -> tuple[Seat, ...]:
        """Every seat that shares the victory."""
        return tuple(s for s, r in enumerate(self.ranks) if r == 1)


def competition_ranks(totals: Sequence[int]) -> tuple[int, ...]:
    """Rank 1 for the highest total; equal totals share a rank and the next rank skips.

    >>> competition_ranks([7, 5, 5, 1])
    (1, 2, 2, 4)
    """
    return tuple(1 + sum(other > mine for other in totals) for mine in totals)
