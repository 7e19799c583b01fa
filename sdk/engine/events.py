"""The public history of a game: what every seat and spectator sees happen (docs/rules.md §9)."""

from __future__ import annotations

from dataclasses import dataclass, fields
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
    """Every seat's blind flip decision, revealed together (docs/rules.md §3)."""

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


# The engine records an event at every show and scout. A frozen dataclass's __init__ sets each
# field through object.__setattr__; setting the slots directly builds the same object in about two
# thirds of the time.
_new = object.__new__
_shown_seat, _shown_start, _shown_cards = (getattr(Shown, f.name).__set__ for f in fields(Shown))
_scouted_seat, _scouted_end, _scouted_flip, _scouted_card, _scouted_position = (
    getattr(Scouted, f.name).__set__ for f in fields(Scouted)
)


def new_shown(seat: Seat, start: int, cards: tuple[Card, ...]) -> Shown:
    """`Shown(seat, start, cards)`, built faster."""
    event: Shown = _new(Shown)
    _shown_seat(event, seat)
    _shown_start(event, start)
    _shown_cards(event, cards)
    return event


def new_scouted(seat: Seat, end: End, flip: bool, card: Card, position: int) -> Scouted:
    """`Scouted(seat, end, flip, card, position)`, built faster."""
    event: Scouted = _new(Scouted)
    _scouted_seat(event, seat)
    _scouted_end(event, end)
    _scouted_flip(event, flip)
    _scouted_card(event, card)
    _scouted_position(event, position)
    return event
