"""Fast copies of a game, and whole games rebuilt from one seat's observation (determinisation).

A search bot cannot see the other hands, so it samples them: every card it has not seen is dealt
at random into the hand slots it knows nothing about, while every card seen in public (shown, or
scouted into a known position of a known hand) stays exactly where it is (RULES.md §9). Each
sample is a complete `Game` the bot may play forward with `Game.apply`. Samples end when the
current round ends: later rounds are fresh deals that no decision of this round can change.

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
from dataclasses import replace

from .cards import Card, table_rules
from .deal import SplitMix64
from .events import RoundStarted, Scouted, ScoutedAndShown, Shown
from .game import Game, Phase
from .observation import Observation
from .sets import set_key

def copy_game(game: Game) -> Game:
    """An independent copy of `game`, much faster than `copy.deepcopy` (cards are immutable)."""
    new = Game.__new__(Game)
    new.rules = game.rules
    new.seed = game.seed
    new.round = game.round
    new.phase = game.phase
    new.to_move = game.to_move
    new.hands = [list(h) for h in game.hands]
    new.active = list(game.active)
    new.owner = game.owner
    new.captured = [list(c) for c in game.captured]
    new.chips = list(game.chips)
    new.scout_show = list(game.scout_show)
    new.flips = list(game.flips)
    new.revealed_flips = list(game.revealed_flips)
    new.round_actions = game.round_actions
    new.results = list(game.results)
    new.totals = list(game.totals)
    new.deals = list(game.deals)
    new.log = list(game.log)
    new.events = list(game.events)
    rng = SplitMix64(0)
    rng._state = game._rng._state
    new._rng = rng
    new._stock = list(game._stock)
    new._active_key = game._active_key
    return new


class Determinizer:
    """Everything one observation reveals about the current round, ready to sample games from.

    Built once per decision (it reads the public history); `sample` is then cheap. Only for the
    PLAY phase: before the flips nothing has been seen but one's own hand.
    """

    __slots__ = ("_obs", "_slots", "_active", "_captured", "_unseen", "_rules")

    def __init__(self, obs: Observation) -> None:
        table = obs.table
        if table.phase is not Phase.PLAY:
            raise ValueError("determinisation needs an observation from the PLAY phase")
        self._obs = obs
        n = table.players
        self._rules = replace(table_rules(n), rounds=table.round + 1)
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
        self._active = active
        self._captured = captured
        self._unseen = [c for c in self._rules.deck if c.id not in seen]

    @property
    def known_hands(self) -> tuple[tuple[Card | None, ...], ...]:
        """Each seat's hand as this seat knows it: a card where it was seen, None where hidden."""
        return tuple(tuple(hand) for hand in self._slots)

    def sample(self, rng: random.Random) -> Game:
        """A full game consistent with the observation; its unseen cards dealt at random."""
        obs = self._obs
        table = obs.table
        pool = self._unseen[:]
        rng.shuffle(pool)
        draw = iter(pool)
        hands: list[list[Card]] = []
        for known in self._slots:
            hand: list[Card] = []
            for card in known:
                if card is None:
                    card = next(draw)
                    if rng.random() < 0.5:
                        card = Card(card.bottom, card.top)
                hand.append(card)
            hands.append(hand)
        game = Game.__new__(Game)
        game.rules = self._rules
        game.seed = 0
        game.round = table.round
        game.phase = Phase.PLAY
        game.to_move = table.to_move  # type: ignore[assignment]
        game.hands = hands
        game.active = list(self._active)
        game.owner = table.active_owner  # type: ignore[assignment]
        game.captured = [list(c) for c in self._captured]
        game.chips = [v.scout_chips for v in table.seats]
        game.scout_show = [v.has_scout_show for v in table.seats]
        game.flips = [v.flipped for v in table.seats]
        game.revealed_flips = []
        game.round_actions = table.round_actions
        game.results = []
        game.totals = [v.total for v in table.seats]
        game.deals = []
        game.log = []
        game.events = []
        game._rng = SplitMix64(0)
        game._stock = []
        game._active_key = set_key([c.top for c in self._active]) if self._active else None
        return game


def _parts(event: object) -> tuple[Shown | Scouted, ...]:
    """The hand-changing steps of an event, in order; none for round and flip events."""
    if isinstance(event, (Shown, Scouted)):
        return (event,)
    if isinstance(event, ScoutedAndShown):
        return (event.scouted, event.shown)
    return ()


def _public_cards(events: tuple[object, ...]) -> set[tuple[int, int]]:
    """Ids of every card shown or scouted in `events`."""
    ids: set[tuple[int, int]] = set()
    for event in events:
        for part in _parts(event):
            cards = part.cards if isinstance(part, Shown) else (part.card,)
            ids.update(c.id for c in cards)
    return ids
