"""The seeded deal (docs/rules.md §2, Decision: reproducibility).

The procedure is written down so any implementation, in any language, deals the same hands:

* The PRNG is SplitMix64 (Steele, Lea & Flood 2014) seeded with the game seed (an integer taken
  modulo 2**64). One stream serves the whole game; deals draw from it in round order.
* A deal of an n-card deck (the table's deck in its canonical order, `TableRules.deck`) is one
  Fisher-Yates shuffle: for i from n-1 down to 1, draw x and swap positions i and x mod (i+1).
  Then one more draw x orients the cards: the card at position k is turned over when bit k of x
  is set.
* Seat s receives positions [s*h, (s+1)*h), left to right, where h is the hand size.
* 3-5 players deal a fresh shuffle at every round. 2 players shuffle once: round 0 deals positions
  [0, 22) and round 1 positions [22, 44) of the same shuffle.
* Kept hands (a tournament's replay of a voided attempt: docs/security.md, "Voids cannot be
  bought"). A seat may be given its hand for every round in advance. The shuffle is then of the
  deck without the kept cards, in canonical order, and the other seats take consecutive hands of
  it in seat order (2 players: in round-then-seat order across both rounds, from the one shuffle).
  With nothing kept this is exactly the procedure above.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .cards import TURNED, Card, Seat, TableRules, table_rules

_MASK = (1 << 64) - 1

Hand = tuple[Card, ...]
Kept = Mapping[Seat, Sequence[Hand]]
"""Hands given in advance: for a seat, its hand in every round of the game, as dealt."""


class SplitMix64:
    """A tiny, well-known 64-bit generator; chosen because it is easy to port exactly."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next(self) -> int:
        self._state = z = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)


def shuffled(cards: Sequence[Card], rng: SplitMix64) -> list[Card]:
    """`cards` shuffled in order and orientation, as the module docstring specifies.

    `SplitMix64.next` is written out in the loop (a deal draws 40-odd numbers per round)."""
    deck = list(cards)
    state = rng._state
    for i in range(len(deck) - 1, 0, -1):
        state = z = (state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        j = (z ^ (z >> 31)) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    rng._state = state
    bits = rng.next()
    return [TURNED[c] if bits >> k & 1 else c for k, c in enumerate(deck)]


def check_kept(rules: TableRules, kept: Kept) -> None:
    """ValueError unless `kept` gives seats of the table a hand of the right size for every
    round, of cards of the table's deck, no card twice in a round (2 players: in the game)."""
    deck = {c.id for c in rules.deck}
    for seat, hands in kept.items():
        if not 0 <= seat < rules.players:
            raise ValueError(f"kept hands for seat {seat} of a {rules.players}-player game")
        if len(hands) != rules.rounds or any(len(h) != rules.hand_size for h in hands):
            raise ValueError(f"seat {seat}'s kept hands are not {rules.rounds} hands of {rules.hand_size} cards")
    span = rules.rounds if rules.two_player else 1
    for first in range(0, rules.rounds, span):
        ids = [c.id for hands in kept.values() for hand in hands[first : first + span] for c in hand]
        if len(set(ids)) != len(ids) or not deck.issuperset(ids):
            raise ValueError("kept hands hold a card twice, or one not in the deck")


def deal_round(
    rules: TableRules, rng: SplitMix64, round_: int, stock: Sequence[Card], kept: Kept
) -> tuple[tuple[Hand, ...], Sequence[Card]]:
    """Round `round_`'s hands by seat, drawing from `rng`, and the stock: with 2 players both
    rounds come from one shuffle, drawn when `stock` is empty and returned for the next round
    (never changed in place: copies of a game share it)."""
    h = rules.hand_size
    if rules.two_player:
        if not stock:
            stock = shuffled(_without(rules.deck, kept, range(rules.rounds)), rng)
        cards = stock[sum(s not in kept for s in range(rules.players)) * round_ * h :]
    else:
        cards = shuffled(_without(rules.deck, kept, (round_,)), rng)
    hands: list[Hand] = []
    for seat in range(rules.players):
        if seat in kept:
            hands.append(tuple(kept[seat][round_]))
        else:
            hands.append(tuple(cards[:h]))
            cards = cards[h:]
    return tuple(hands), stock


def _without(deck: tuple[Card, ...], kept: Kept, rounds: Sequence[int]) -> Sequence[Card]:
    if not kept:
        return deck
    gone = {c.id for hands in kept.values() for r in rounds for c in hands[r]}
    return [c for c in deck if c.id not in gone]


def deal_rounds(players: int, seed: int, kept: Kept | None = None) -> tuple[tuple[Hand, ...], ...]:
    """Every round's hands of a `players`-player game dealt from `seed` (with `kept`'s hands
    given in advance), as `GameRecord.deals` holds them (deal[round][seat]): the procedure
    above, without playing the game, so anyone can check a record's deals against its seed."""
    rules = table_rules(players)
    kept = kept or {}
    check_kept(rules, kept)
    rng = SplitMix64(seed)
    stock: Sequence[Card] = ()
    deals = []
    for round_ in range(rules.rounds):
        hands, stock = deal_round(rules, rng, round_, stock, kept)
        deals.append(hands)
    return tuple(deals)
