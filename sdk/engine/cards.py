"""Cards, the deck for each player count, and the per-count table of docs/rules.md §2."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

Seat = int
"""A seat number, 0..N-1 clockwise (docs/rules.md §3)."""


class Card(NamedTuple):
    """A card as held: `top` counts in play, `bottom` is its value when turned over (docs/rules.md §1).

    A plain tuple underneath, so hands are cheap to copy and compare; the card's identity is its
    unordered pair, `card.id`.
    """

    top: int
    bottom: int

    @property
    def id(self) -> tuple[int, int]:
        """The stable identity of the physical card: its two numbers, lowest first."""
        return (self.top, self.bottom) if self.top < self.bottom else (self.bottom, self.top)

    def turned(self) -> Card:
        """The same card upside down."""
        return Card(self.bottom, self.top)

    def __str__(self) -> str:
        return f"{self.top}/{self.bottom}"


FULL_DECK: tuple[Card, ...] = tuple(Card(a, b) for a in range(1, 11) for b in range(a + 1, 11))
"""All 45 cards, in a fixed canonical order, each oriented lowest number on top."""


class _Turned(dict[tuple[int, int], Card]):
    """card -> the same card upside down, built once per orientation: turning a card over is a
    dictionary look-up instead of a tuple construction, on the engine's hot paths."""

    def __missing__(self, card: tuple[int, int]) -> Card:
        turned = self[card] = Card(card[1], card[0])
        return turned


TURNED = _Turned()
"""TURNED[card] == card.turned(), for any card."""


@dataclass(frozen=True, slots=True)
class TableRules:
    """What changes with the number of players (docs/rules.md §2, §3, §5)."""

    players: int
    deck: tuple[Card, ...]
    hand_size: int
    rounds: int
    start_chips: int
    scout_and_show: bool

    @property
    def two_player(self) -> bool:
        return self.players == 2


def _deck_without(*removed: tuple[int, int]) -> tuple[Card, ...]:
    return tuple(c for c in FULL_DECK if c.id not in removed)


TABLE_RULES: dict[int, TableRules] = {
    2: TableRules(2, _deck_without((9, 10)), 11, 2, 3, False),
    3: TableRules(3, tuple(c for c in FULL_DECK if 10 not in c), 12, 3, 0, True),
    4: TableRules(4, _deck_without((9, 10)), 11, 4, 0, True),
    5: TableRules(5, FULL_DECK, 9, 5, 0, True),
}


def table_rules(players: int) -> TableRules:
    """The rules for `players` at the table; a ValueError names the allowed range."""
    try:
        return TABLE_RULES[players]
    except KeyError:
        raise ValueError(f"SCOUT is played by 2 to 5 players, not {players}") from None
