"""Whole games rebuilt from one seat's observation (determinisation), for search.

A search bot cannot see the other hands, so it samples them: every card it has not seen is dealt
at random into the hand slots it knows nothing about, while every card seen in public (shown, or
scouted into a known position of a known hand) stays exactly where it is (docs/rules.md §9). Each
sample is a complete `Game` the bot may play forward with `Game.apply`. Samples end when the
current round ends: later rounds are fresh deals that no decision of this round can change.
Before the round's first turn (the FLIP phase) a sample is a game waiting for the flip decisions
of the seats that have not made theirs, so a bot can search its own flip too.

>>> import random
>>> from sdk.engine import Flip, Game, observe
>>> game = Game(players=3, seed=4)
>>> for seat in range(3):
...     game.apply(seat, Flip(False))
>>> sample = Determinizer(observe(game, 0)).sample(random.Random(1))
>>> sample.hands[0] == game.hands[0], [len(h) for h in sample.hands]
(True, [12, 12, 12])
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .cards import Card, table_rules
from .events import RoundStarted, Scouted, ScoutedAndShown, Shown
from .game import Game, Phase, Position
from .observation import Observation


class Determinizer:
    """Everything one observation reveals about the current round, ready to sample games from.

    Built once per decision (it reads the public history and checks the position it leaves);
    `sample` is then cheap, a search's most repeated step after its rollouts. Not for a game
    that is over: nothing is left to decide.
    """

    __slots__ = ("_hidden", "_pairs", "_slots", "_template")

    def __init__(self, obs: Observation) -> None:
        table = obs.table
        if table.phase is Phase.OVER:
            raise ValueError("determinisation needs an observation from the FLIP or PLAY phase, not a finished game")
        n = table.players
        if table.phase is Phase.FLIP:
            flips: list[bool | None] = [None] * n
            flips[obs.seat] = table.seats[obs.seat].flipped
        else:
            flips = [v.flipped for v in table.seats]
        history = table.history
        start = max(i for i, e in enumerate(history) if isinstance(e, RoundStarted))
        hand_size = history[start].hand_size  # type: ignore[union-attr]
        slots: list[list[Card | None]] = [[None] * hand_size for _ in range(n)]
        active: list[Card] = []
        captured: list[list[Card]] = [[] for _ in range(n)]
        seen: set[tuple[int, int]] = {c.id for c in obs.hand}
        if n == 2 and table.round == 1:
            seen |= _public_cards(history[:start])
        for event in history[start:]:
            for part in _parts(event):
                if isinstance(part, Shown):
                    del slots[part.seat][part.start : part.start + len(part.cards)]
                    captured[part.seat] += active
                    active = list(part.cards)
                    seen.update(c.id for c in part.cards)
                else:
                    active.pop(-1 if part.end and len(active) > 1 else 0)
                    slots[part.seat].insert(part.position, part.card)
                    seen.add(part.card.id)
        for view in table.seats:
            if len(slots[view.seat]) != view.hand_size or len(captured[view.seat]) != view.captured:
                raise ValueError(f"the history does not account for seat {view.seat}'s hand or captures")
        slots[obs.seat] = list(obs.hand)
        self._slots = slots
        self._hidden = [(seat, [i for i, c in enumerate(hand) if c is None]) for seat, hand in enumerate(slots)]
        unseen = [c for c in table_rules(n).deck if c.id not in seen]
        self._pairs = [(c, c.turned()) for c in unseen]
        """Each unseen card either way up, so a sample picks a side by a bit."""
        dealt = iter(unseen)
        self._template = Game.from_position(
            Position(
                hands=[[next(dealt) if c is None else c for c in hand] for hand in slots],
                round=table.round,
                phase=table.phase,
                to_move=table.to_move,
                active=active,
                owner=table.active_owner,
                captured=captured,
                chips=[v.scout_chips for v in table.seats],
                scout_show=[v.has_scout_show for v in table.seats],
                flips=flips,
                round_actions=table.round_actions,
                totals=[v.total for v in table.seats],
                rounds=table.round + 1,
            )
        )
        """The position with the unseen cards in deck order: checked here once, and copied with
        each sample's hands."""

    @property
    def known_hands(self) -> tuple[tuple[Card | None, ...], ...]:
        """Each seat's hand as this seat knows it: a card where it was seen, None where hidden."""
        return tuple(tuple(hand) for hand in self._slots)

    def sample(self, rng: random.Random) -> Game:
        """A full game consistent with the observation; its unseen cards dealt at random, each
        either way up with even odds.

        The pool is ordered by one random float a card (a uniform shuffle, at a fraction of
        `random.shuffle`'s cost) and the sides come from the bits of one random number."""
        rnd = rng.random
        pool = sorted(self._pairs, key=lambda _: rnd())
        sides = rng.getrandbits(len(pool))
        hands = [hand[:] for hand in self._slots]
        k = 0
        for seat, hidden in self._hidden:
            hand = hands[seat]
            for i in hidden:
                hand[i] = pool[k][sides >> k & 1]
                k += 1
        return self._template._copy_with_hands(hands)  # type: ignore[arg-type]


def _parts(event: object) -> tuple[Shown | Scouted, ...]:
    """The hand-changing steps of an event, in order; none for round and flip events."""
    if isinstance(event, (Shown, Scouted)):
        return (event,)
    if isinstance(event, ScoutedAndShown):
        return (event.scouted, event.shown)
    return ()


def _public_cards(events: Sequence[object]) -> set[tuple[int, int]]:
    """Ids of every card shown or scouted in `events`."""
    ids: set[tuple[int, int]] = set()
    for event in events:
        for part in _parts(event):
            cards = part.cards if isinstance(part, Shown) else (part.card,)
            ids.update(c.id for c in cards)
    return ids
