"""A one-move-lookahead heuristic: score every legal action by what it gains now plus the shape
of the hand it leaves, and play the best. The baseline a real bot should beat.

A hand is worth less the more cards it holds and the more separate sets it needs to be emptied
(`min_sets`): a run broken in two costs a future turn. So the bot shows sets that beat the table
without breaking longer ones, scouts cards into the gap where they extend a run or a group, and
flips its hand when the other side is better shaped.

Run it against an arena: `python -m bots.greedy --target HOST:PORT --token TOKEN`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from sdk import Action, Bot, Observation, Scout, ScoutShow, Show
from sdk.engine import Card, End
from sdk.memo import memoised

SET_WEIGHT = 1.5
"""Cost of each set the hand needs to be emptied, in points; measured against a card's 1 point."""
EMPTY_BONUS = 3.0
"""Emptying the hand ends the round while others still hold cards."""
SCOUT_SHOW_COST = 2.0
"""The once-a-round Scout & Show chip is worth keeping for a move that needs it."""
HAND_VALUES = 1 << 16
"""Hands one bot's memo of `hand_value` holds (`hand_values`)."""

HandValue: TypeAlias = Callable[[tuple[int, ...]], float]
"""`hand_value` or a memo of it: what the scores below value hands with."""


def min_sets(tops: Sequence[int]) -> int:
    """The fewest contiguous sets (singles, groups, runs) that together make up the hand.

    Taking the longest set from the left each time is optimal: every contiguous part of a set is
    a set, so no other split can have cut further by its k-th set (tests/bots/test_heuristics.py
    checks it against an exhaustive split).
    """
    return greedy_split(tops)[0]


def greedy_split(tops: Sequence[int]) -> tuple[int, int]:
    """How many sets `min_sets`' split of the hand has, and how many cards its longest set has.

    The split takes the longest set from the left each time, so its longest set is not always the
    hand's: (1, 2, 2, 2) splits as 1 2 | 2 2. One pass, which search bots call in every rollout.
    """
    n = len(tops)
    sets = 0
    longest = 0
    i = 0
    while i < n:
        sets += 1
        j = i + 1
        if j < n:
            step = tops[j] - tops[i]
            if -1 <= step <= 1:
                j += 1
                while j < n and tops[j] - tops[j - 1] == step:
                    j += 1
        if j - i > longest:
            longest = j - i
        i = j
    return sets, longest


def hand_value(tops: tuple[int, ...]) -> float:
    """Higher is better: minus a point per card and `SET_WEIGHT` per set needed to empty it."""
    return -len(tops) - SET_WEIGHT * min_sets(tops)


def hand_values() -> HandValue:
    """A memo of `hand_value` for one bot (sdk.memo): search bots value the same few hands over
    and over, and a lookup is several times faster than `min_sets`."""
    return memoised(hand_value, size=HAND_VALUES)


def scouted_card(active: Sequence[Card], scout: Scout) -> int:
    """The top value the scouted card will have in hand."""
    card = active[-1] if scout.end is End.RIGHT else active[0]
    return card.bottom if scout.flip else card.top


def action_score(tops: tuple[int, ...], active: Sequence[Card], action: Action, value: HandValue = hand_value) -> float:
    """Points gained now (captures; minus the chip a scout costs) plus the value of the hand after."""
    if isinstance(action, Show):
        after = tops[: action.start] + tops[action.start + action.length :]
        gain = float(len(active))
        return gain + (EMPTY_BONUS if not after else value(after))
    if isinstance(action, Scout):
        pos = action.position
        return -1.0 + value((*tops[:pos], scouted_card(active, action), *tops[pos:]))
    if isinstance(action, ScoutShow):
        pos = action.scout.position
        hand = (*tops[:pos], scouted_card(active, action.scout), *tops[pos:])
        show = action.show
        after = hand[: show.start] + hand[show.start + show.length :]
        gain = len(active) - 1 - 1 - SCOUT_SHOW_COST
        return gain + (EMPTY_BONUS if not after else value(after))
    raise TypeError(f"not a play action: {action!r}")


def ranked_actions(obs: Observation, value: HandValue = hand_value) -> list[tuple[float, Action]]:
    """Every legal action with its score, best first (stable for ties: engine order)."""
    tops = tuple(c.top for c in obs.hand)
    active = obs.table.active_set
    scored = [(action_score(tops, active, a, value), a) for a in obs.legal_actions]
    scored.sort(key=lambda pair: -pair[0])
    return scored


def prefer_flip(hand: Sequence[Card], value: HandValue = hand_value) -> bool:
    """Flip when the upside-down hand is better shaped than the dealt one."""
    return value(tuple(c.bottom for c in hand)) > value(tuple(c.top for c in hand))


class GreedyBot(Bot):
    """Plays the legal action with the best `action_score`; deterministic."""

    def __init__(self) -> None:
        super().__init__()
        self._hand_value = hand_values()

    def choose(self, obs: Observation) -> Action:
        return ranked_actions(obs, self._hand_value)[0][1]

    def flip(self, obs: Observation) -> bool:
        return prefer_flip(obs.hand, self._hand_value)


if __name__ == "__main__":
    from sdk.cli import bot_program

    bot_program(GreedyBot)()
