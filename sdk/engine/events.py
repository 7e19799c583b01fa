"""The public history of a game: what every seat and spectator sees happen (RULES.md §9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from .actions import End
from .cards import Card, Seat
from .results import EndReason


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round was dealt; `hand_size` cards each, `first_player` moves first after the flips."""

    round: int
    first_player: Seat
    hand_size: int


@dataclass(frozen=True, slots=True)
class FlipsRevealed:
    """Every seat's blind flip decision, revealed together (RULES.md §3)."""

    round: int
    flips: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class Shown:
    """A show, public as (start position in the hand, length, cards)."""

    seat: Seat
    start: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Scouted:
    """A scout, public in full: the end, the card as inserted (its orientation), the position."""

    seat: Seat
    end: End
    flip: bool
    card: Card
    position: int


@dataclass(frozen=True, slots=True)
class ScoutedAndShown:
    """A Scout & Show: its scout half, then its show half."""

    scouted: Scouted
    shown: Shown


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """A round ended; only hand sizes are revealed, never the cards left in hand."""

    round: int
    reason: EndReason
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]


Event: TypeAlias = RoundStarted | FlipsRevealed | Shown | Scouted | ScoutedAndShown | RoundEnded
