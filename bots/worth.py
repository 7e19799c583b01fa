"""What a rollout's round is worth to the seat that searches: the objective of the search bots.

A table is won by the highest game total, so a round's scores are not worth their sum to a seat:
early on any rival may end up ahead, and what the seat gives or takes from one (chips, captures)
counts as much as from another (`round_margin`); in the last round only the rival ahead counts
(`lead_margin`). `Worth` blends the two by the share of the game's rounds played by the end of
this one. The compiled playout (bots/_playout.c) computes `Worth` for each of its rollouts with
the same operations in the same order, so both give the same floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def round_margin(scores: Sequence[float], seat: int) -> float:
    """The seat's round score minus the mean score of the other seats."""
    return scores[seat] - (sum(scores) - scores[seat]) / (len(scores) - 1)


def lead_margin(scores: Sequence[float], seat: int, totals: Sequence[int]) -> float:
    """The seat's game total after the round minus the best total among the others."""
    mine = totals[seat] + scores[seat]
    return mine - max(totals[s] + scores[s] for s in range(len(scores)) if s != seat)


@dataclass(frozen=True)
class Worth:
    """`(1 - lead) * round_margin + lead * lead_margin` of a round's scores to `seat`, whose
    table's totals before the round are `totals`; `lead` 0 is the round margin alone."""

    seat: int
    lead: float
    totals: tuple[int, ...]

    def __post_init__(self) -> None:
        if not 0 <= self.seat < len(self.totals):
            raise ValueError(f"seat {self.seat} is not at a table of {len(self.totals)}")
        if not 0 <= self.lead <= 1:
            raise ValueError(f"the lead margin's weight is from 0 to 1, not {self.lead}")

    def __call__(self, scores: Sequence[float]) -> float:
        return (1 - self.lead) * round_margin(scores, self.seat) + self.lead * lead_margin(
            scores, self.seat, self.totals
        )

    @property
    def encoded(self) -> tuple[int, float, tuple[int, ...]]:
        """As the compiled playout reads it: (seat, lead, totals)."""
        return (self.seat, self.lead, self.totals)
