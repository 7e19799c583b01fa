"""The seeded deal (RULES.md §2, Decision: reproducibility).

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
"""

from __future__ import annotations

from .cards import TURNED, Card, TableRules, table_rules

_MASK = (1 << 64) - 1


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


def shuffled_deck(rules: TableRules, rng: SplitMix64) -> list[Card]:
    """The table's deck shuffled in order and orientation, as the module docstring specifies.

    `SplitMix64.next` is written out in the loop (a deal draws 40-odd numbers per round)."""
    deck = list(rules.deck)
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


def deal_hands(cards: list[Card], players: int, hand_size: int) -> list[tuple[Card, ...]]:
    """Seat s gets cards [s*h, (s+1)*h) of `cards`."""
    return [tuple(cards[s * hand_size : (s + 1) * hand_size]) for s in range(players)]


def deal_rounds(players: int, seed: int) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    """Every round's hands of a `players`-player game dealt from `seed`, as `GameRecord.deals`
    holds them (deal[round][seat]): the procedure above, without playing the game, so anyone can
    check a record's deals against its seed."""
    rules = table_rules(players)
    rng = SplitMix64(seed)
    if rules.two_player:
        stock = shuffled_deck(rules, rng)
        rounds = [stock[r * 2 * rules.hand_size :] for r in range(rules.rounds)]
    else:
        rounds = [shuffled_deck(rules, rng) for _ in range(rules.rounds)]
    return tuple(tuple(deal_hands(cards, players, rules.hand_size)) for cards in rounds)
