"""Shared helpers for the engine tests: hand-built tables, state snapshots, an independent deal.

Everything here goes through the engine's public API and its documented state attributes
(`hands`, `to_move`, `chips`, ...). Nothing reaches into private helpers, so the tests keep
working while the engine's internals are optimised.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from sdk.engine import (
    End,
    Flip,
    Game,
    IllegalAction,
    LegalActions,
    Phase,
    RoundStarted,
    Scout,
    Scouted,
    ScoutedAndShown,
    ScoutShow,
    Show,
    Shown,
    observe,
    public_view,
    record_of,
    table_rules,
)
from sdk.engine.cards import Card

# -- writing cards -------------------------------------------------------------------------------


def card(text: str) -> Card:
    """`card("6/1")` is a card held with 6 on top and 1 underneath."""
    top, bottom = text.split("/")
    return Card(int(top), int(bottom))


def cards(text: str) -> list[Card]:
    """`cards("6/1 7/2")`: a hand, left to right."""
    return [card(t) for t in text.split()]


def tops(hand: Iterable[Card]) -> list[int]:
    return [c.top for c in hand]


# -- hand-built tables ---------------------------------------------------------------------------

HandSpec = str | Sequence[int]
"""A hand as "6/1 7/2" (exact cards) or as a list of top values (bottoms picked for you)."""


def table(
    players: int,
    hands: Sequence[HandSpec],
    *,
    to_move: int = 0,
    chips: Sequence[int] | None = None,
    seed: int = 0,
) -> Game:
    """A game at the first turn of round 0 whose hands are exactly `hands` (left to right).

    How it is built (the only place the tests write engine state): `Game(players, seed)`, every
    seat decides "keep" (docs/rules.md §3), then the documented attributes `hands` (and `to_move`,
    `chips` when given) are overwritten. Nothing has been shown yet: no active set, no owner.

    A hand given as top values gets, for each card, the lowest bottom that makes a card of the
    table's deck not used elsewhere, so every table is made of distinct, real cards (checked).
    """
    game = Game(players, seed)
    for seat in range(players):
        game.apply(seat, Flip(False))
    assert game.phase is Phase.PLAY
    deck_ids = {c.id for c in table_rules(players).deck}
    used: set[tuple[int, int]] = set()
    explicit = [cards(h) if isinstance(h, str) else None for h in hands]
    for hand in explicit:
        for c in hand or ():
            assert c.id in deck_ids, f"{c} is not in the {players}-player deck"
            assert c.id not in used, f"{c} is used twice"
            used.add(c.id)
    built: list[list[Card]] = []
    for spec, hand in zip(hands, explicit, strict=True):
        if hand is None:
            hand = []
            for top in spec:
                bottom = next(
                    b for b in range(1, 11) if b != top and Card(top, b).id in deck_ids and Card(top, b).id not in used
                )
                used.add(Card(top, bottom).id)
                hand.append(Card(top, bottom))
        built.append(hand)
    assert len(built) == players
    game.hands = built
    game.to_move = to_move
    if chips is not None:
        game.chips = list(chips)
    return game


def play(game: Game, *actions: Any) -> Game:
    """Apply each action for the seat to move."""
    for action in actions:
        game.apply(game.to_move, action)
    return game


def scout(end: End = End.LEFT, flip: bool = False, position: int = 0) -> Scout:
    return Scout(end, flip, position)


def show(start: int, length: int = 1) -> Show:
    return Show(start, length)


def scout_show(end: End, flip: bool, position: int, start: int, length: int) -> ScoutShow:
    return ScoutShow(Scout(end, flip, position), Show(start, length))


# -- looking at a state --------------------------------------------------------------------------


def state_of(game: Game) -> tuple[Any, ...]:
    """Every documented state attribute, copied, for before/after comparisons."""
    return (
        [list(h) for h in game.hands],
        list(game.active),
        game.owner,
        [list(c) for c in game.captured],
        list(game.chips),
        list(game.scout_show),
        list(game.flips),
        game.to_move,
        game.phase,
        game.round,
        game.round_actions,
        list(game.results),
        list(game.totals),
    )


def snapshot(game: Game) -> tuple[Any, ...]:
    """The state, the record and every seat's observation: all must be unchanged by a rejection."""
    return (
        state_of(game),
        record_of(game),
        public_view(game),
        tuple(observe(game, s) for s in range(game.players)),
    )


def rejects(game: Game, action: object, match: str | None = None, seat: int | None = None) -> None:
    """`action` raises IllegalAction (with a reason) and leaves everything as it was."""
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=match) as info:
        game.apply(game.to_move if seat is None else seat, action)  # type: ignore[arg-type]
    assert str(info.value)
    assert snapshot(game) == before


def current_round_events(history: Sequence[Any]) -> list[Any]:
    """The events from the current round's RoundStarted on."""
    starts = [i for i, e in enumerate(history) if isinstance(e, RoundStarted)]
    return list(history[starts[-1] :]) if starts else list(history)


def public_card_ids(game: Game) -> set[tuple[int, int]]:
    """Ids of the cards publicly seen this round: every card shown or scouted (docs/rules.md §9)."""
    seen: set[tuple[int, int]] = set()
    for event in current_round_events(public_view(game).history):
        parts = [event.scouted, event.shown] if isinstance(event, ScoutedAndShown) else [event]
        for part in parts:
            if isinstance(part, Shown):
                seen.update(c.id for c in part.cards)
            elif isinstance(part, Scouted):
                seen.add(part.card.id)
    return seen


def hidden_cards(game: Game, viewer: int) -> list[tuple[int, int]]:
    """(seat, index) of every card in another seat's hand that `viewer` has never seen."""
    seen = public_card_ids(game)
    return [(s, i) for s in range(game.players) if s != viewer for i, c in enumerate(game.hands[s]) if c.id not in seen]


def card_ids(obj: Any) -> set[tuple[int, int]]:
    """Ids of every Card anywhere inside `obj` (dataclasses, tuples, lists, dicts)."""
    found: set[tuple[int, int]] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Card):
            found.add(x.id)
        elif isinstance(x, (str, bytes, int, float, bool, enum.Enum)) or x is None:
            continue
        elif dataclasses.is_dataclass(x):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (tuple, list, set, frozenset, LegalActions)):
            stack.extend(x)
        else:
            raise AssertionError(f"unexpected object in an observation: {x!r}")
    return found


def ints_in(obj: Any) -> set[int]:
    """Every integer anywhere inside `obj` (used to check that the seed never leaks)."""
    found: set[int] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, enum.Enum):
            continue
        if isinstance(x, int):
            found.add(int(x))
        elif dataclasses.is_dataclass(x):
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
        elif isinstance(x, (tuple, list)):
            stack.extend(x)
    return found


# -- an independent deal (docs/rules.md §2 and the procedure written in sdk/engine/deal.py) ------------

MASK64 = (1 << 64) - 1


def splitmix64(seed: int) -> Iterable[int]:
    """SplitMix64 (Steele, Lea & Flood 2014), written from the published algorithm."""
    state = seed % (1 << 64)
    while True:
        state = (state + 0x9E3779B97F4A7C15) % (1 << 64)
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % (1 << 64)
        yield z ^ (z >> 31)


def reference_deck(players: int) -> list[tuple[int, int]]:
    """docs/rules.md §1–§2: every pair a < b of 1..10, minus the cards removed for this count,
    in the canonical order (a, then b, ascending), lowest number on top."""
    removed = {2: {(9, 10)}, 3: {(a, 10) for a in range(1, 10)}, 4: {(9, 10)}, 5: set()}[players]
    return [(a, b) for a in range(1, 11) for b in range(a + 1, 11) if (a, b) not in removed]


def reference_shuffle(deck: list[tuple[int, int]], draws: Iterable[int]) -> list[Card]:
    """Fisher–Yates from the last position down, then one draw whose bit k turns card k over."""
    it = iter(draws)
    order = list(deck)
    for i in range(len(order) - 1, 0, -1):
        j = next(it) % (i + 1)
        order[i], order[j] = order[j], order[i]
    bits = next(it)
    return [Card(b, a) if (bits >> k) & 1 else Card(a, b) for k, (a, b) in enumerate(order)]


HAND_SIZE = {2: 11, 3: 12, 4: 11, 5: 9}


def reference_deals(players: int, seed: int) -> list[list[list[Card]]]:
    """deals[round][seat] for the whole game, dealt by the documented procedure."""
    stream = iter(splitmix64(seed))
    h = HAND_SIZE[players]
    if players == 2:
        stock = reference_shuffle(reference_deck(2), stream)
        return [[stock[r * 22 + s * h : r * 22 + (s + 1) * h] for s in range(2)] for r in range(2)]
    deals = []
    for _ in range(players):
        shuffled = reference_shuffle(reference_deck(players), stream)
        deals.append([shuffled[s * h : (s + 1) * h] for s in range(players)])
    return deals


def reference_set_aside(seed: int) -> list[Card]:
    """2 players: the half of the shuffled deck set aside in round 0 and dealt in round 1."""
    return [c for hand in reference_deals(2, seed)[1] for c in hand]


# -- random games --------------------------------------------------------------------------------


def random_game(players: int, seed: int, steps: int | None = None, rng_seed: int | None = None) -> Game:
    """A game played by uniformly random legal decisions, `steps` of them (None: to the end)."""
    rng = random.Random(seed if rng_seed is None else rng_seed)
    game = Game(players, seed)
    done = 0
    while not game.is_over and (steps is None or done < steps):
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
        done += 1
    return game
