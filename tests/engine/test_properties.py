"""Property tests over random games for 2–5 players (docs/rules.md §2, §6, §7, §9, §11).

A game is drawn as (seed, choice indices): decision i takes `legal[choices[i] % len(legal)]`,
later decisions come from a Random seeded with the seed. Extra randomness (random illegal actions,
which steps to inspect) comes from a Random seeded with a drawn `probe`, so every failure replays.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.engine import (
    ROUND_ACTION_CAP,
    End,
    EndReason,
    Flip,
    FlipsRevealed,
    Game,
    GameRecord,
    IllegalAction,
    Phase,
    RoundEnded,
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
    replay,
    table_rules,
)
from sdk.engine.cards import Card

from .conftest import ENGINE_SETTINGS
from .helpers import (
    card_ids,
    current_round_events,
    hidden_cards,
    public_card_ids,
    reference_deals,
    reference_set_aside,
    snapshot,
)
from .test_differential import reference_shows

PLAYERS = pytest.mark.parametrize("players", [2, 3, 4, 5])
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
CHOICES = st.lists(st.integers(min_value=0, max_value=2**16), max_size=200)
PROBES = st.integers(min_value=0, max_value=2**32)
"""Seeds a Random for the extra randomness: which steps to inspect, which illegal actions to try."""

Visit = Callable[[Game, int], None]


def walk(players: int, seed: int, choices: list[int], visit: Visit | None = None) -> Game:
    """Play one game to its end, calling `visit(game, step)` before every decision.

    Every generated action must be accepted, and the game must end within the bound the action cap
    implies (§6 Decision: termination): per round, one flip per seat plus at most 1,000 actions.
    """
    game = Game(players, seed)
    fallback = random.Random(seed)
    bound = players * (players + ROUND_ACTION_CAP)
    for step in range(bound):
        if game.is_over:
            break
        if visit is not None:
            visit(game, step)
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        assert len(legal) > 0, "the seat awaited has no legal action (§11)"
        pick = choices[step] if step < len(choices) else fallback.randrange(1 << 30)
        game.apply(seat, legal[pick % len(legal)])
    assert game.is_over, "the game did not end within the action cap"
    return game


# -- §11 invariants and §2 conservation ----------------------------------------------------------


def out_of_play(game: Game, seed: int) -> list[Card]:
    """2 players: round 0 has the set-aside half beside it; round 1 the half already played."""
    if game.players != 2:
        return []
    set_aside = reference_set_aside(seed)
    if game.round == 0:
        return set_aside
    played = {c.id for c in set_aside}
    return [c for c in table_rules(2).deck if c.id not in played]


def check_invariants(game: Game, seed: int) -> None:
    n = game.players
    everywhere = [c.id for h in game.hands for c in h] + [c.id for c in game.active]
    everywhere += [c.id for cap in game.captured for c in cap] + [c.id for c in out_of_play(game, seed)]
    assert sorted(everywhere) == sorted(c.id for c in table_rules(n).deck), "cards not conserved"
    if game.phase is not Phase.PLAY:
        return
    p = game.to_move
    legal = list(game.legal_actions())
    assert all(game.hands), "a hand is empty mid-round (6.1 missed)"
    assert game.owner != p, "the owner is to move: they could scout their own set (§11)"
    assert 0 <= game.round_actions < ROUND_ACTION_CAP
    if game.owner is not None and not game.active:
        assert all(isinstance(a, Show) for a in legal), "facing an empty set, a player must show"
    if n == 2:
        assert game.round_actions <= 34, "a 2-player round cannot exceed 34 actions (§6)"
        assert all(0 <= c <= 3 for c in game.chips) and game.scout_show == [False, False]
    else:
        assert all(c >= 0 for c in game.chips)
        assert any(isinstance(a, Scout) for a in legal) == bool(game.active)
    assert all(isinstance(a, (Show, Scout, ScoutShow)) for a in legal)


@PLAYERS
@ENGINE_SETTINGS
@given(seed=SEEDS, choices=CHOICES)
def test_11_generated_actions_are_accepted_and_invariants_hold(players: int, seed: int, choices: list[int]) -> None:
    """Every listed action is accepted; §11 invariants and card conservation hold at every step;
    the game ends (bounded by the cap) after `players` rounds, each started by seat r."""
    starters: list[int] = []

    def visit(game: Game, step: int) -> None:
        check_invariants(game, seed)
        if game.phase is Phase.PLAY and game.round_actions == 0:
            starters.append(game.to_move)

    game = walk(players, seed, choices, visit)
    check_invariants(game, seed)  # the game is over: cards are still all accounted for
    assert len(game.results) == players  # §8
    assert starters == list(range(players))  # §3: round r is started by seat r
    per_round = [sum(1 for r, _, _ in record_of(game).actions if r == k) for k in range(players)]
    assert max(per_round) <= (34 if players == 2 else ROUND_ACTION_CAP)


# -- random, mostly illegal actions --------------------------------------------------------------


def random_action(rnd: random.Random, game: Game, seat: int) -> object:
    n = len(game.hands[seat]) if 0 <= seat < game.players else 5

    def end() -> object:
        return rnd.choice([End.LEFT, End.RIGHT, End.LEFT, End.RIGHT, 2, -1])

    def scout() -> Scout:
        return Scout(end(), rnd.random() < 0.5, rnd.randint(-2, n + 2))  # type: ignore[arg-type]

    def show() -> Show:
        return Show(rnd.randint(-2, n + 2), rnd.randint(-1, n + 2))

    kind = rnd.randrange(10)
    if kind == 0:
        return Flip(rnd.random() < 0.5)
    if kind < 4:
        return show()
    if kind < 6:
        return scout()
    if kind < 9:
        return ScoutShow(scout(), show())
    return rnd.choice([None, "show 0 1", (0, 1), Show])


def canonical(game: Game, action: object) -> object:
    """A one-card active set: RIGHT names the same card as LEFT, which the lists use (§4.2)."""
    if len(game.active) == 1:
        if isinstance(action, Scout) and action.end is End.RIGHT:
            return Scout(End.LEFT, action.flip, action.position)
        if isinstance(action, ScoutShow) and action.scout.end is End.RIGHT:
            return ScoutShow(Scout(End.LEFT, action.scout.flip, action.scout.position), action.show)
    return action


@PLAYERS
@ENGINE_SETTINGS
@given(seed=SEEDS, choices=CHOICES, probe=PROBES)
def test_11_other_actions_are_legal_or_rejected_without_changing_anything(
    players: int, seed: int, choices: list[int], probe: int
) -> None:
    """A random action is either in legal_actions(seat) or raises IllegalAction with a reason,
    leaving the state, the record and every observation exactly as they were."""
    rnd = random.Random(probe)

    def visit(game: Game, step: int) -> None:
        if rnd.random() > 0.25:
            return
        before = snapshot(game)
        for _ in range(6):
            seat = game.awaiting[0] if rnd.random() < 0.8 else rnd.randint(-1, players)
            action = random_action(rnd, game, seat)
            legal = set(game.legal_actions(seat)) if 0 <= seat < players else set()
            if canonical(game, action) in legal:
                if rnd.random() < 0.1:  # a legal action is accepted (on a copy: the walk goes on)
                    copy.deepcopy(game).apply(seat, action)  # type: ignore[arg-type]
                continue
            with pytest.raises(IllegalAction) as info:
                game.apply(seat, action)  # type: ignore[arg-type]
            assert str(info.value).strip(), f"no reason given for rejecting {action!r}"
        assert snapshot(game) == before

    walk(players, seed, choices, visit)


# -- §7 scores, from an independent tally of the public events -----------------------------------


class Tally:
    """Captured cards, chips and the owner, recomputed from the public history alone."""

    def __init__(self, players: int) -> None:
        self.n = players
        self.seen = 0
        self.totals = [0] * players
        self.exempts: list[int | None] = []

    def feed(self, events: tuple, hands_before: list[list[Card]] | None) -> None:
        for event in events[self.seen :]:
            self._one(event, hands_before)
        self.seen = len(events)

    def _one(self, event: object, hands_before: list[list[Card]] | None) -> None:
        n = self.n
        if isinstance(event, RoundStarted):
            self.captured, self.active, self.owner = [0] * n, [], None
            self.chips = [3 if n == 2 else 0] * n
            self.actions, self.last = 0, None
        elif isinstance(event, FlipsRevealed):
            pass
        elif isinstance(event, (Shown, Scouted)):
            self._play(event)
            self.actions += 1
            self.last = event
        elif isinstance(event, ScoutedAndShown):
            self._play(event.scouted)
            self._play(event.shown)
            self.actions += 1
            self.last = event.shown
        elif isinstance(event, RoundEnded):
            self._ended(event, hands_before)
        else:
            raise AssertionError(f"unknown event {event!r}")

    def _play(self, event: Shown | Scouted) -> None:
        if isinstance(event, Shown):
            self.captured[event.seat] += len(self.active)
            self.active, self.owner = list(event.cards), event.seat
        else:
            taken = self.active.pop(-1 if event.end is End.RIGHT and len(self.active) > 1 else 0)
            assert event.card.id == taken.id
            if self.n == 2:
                self.chips[event.seat] -= 1
            else:
                self.chips[self.owner] += 1  # type: ignore[index]

    def _ended(self, event: RoundEnded, hands_before: list[list[Card]] | None) -> None:
        n, last = self.n, self.last
        exempt = self.owner if event.reason in (EndReason.BACK_TO_OWNER, EndReason.CANNOT_ANSWER) else None
        expected = tuple(
            self.captured[s] + self.chips[s] - (0 if s == exempt else event.hand_sizes[s]) for s in range(n)
        )
        assert event.scores == expected, "§7 round score"
        for s in range(n):
            self.totals[s] += expected[s]
        self.exempts.append(exempt)
        assert self.actions <= ROUND_ACTION_CAP
        if event.reason is EndReason.EMPTY_HAND:
            assert isinstance(last, Shown) and event.hand_sizes[last.seat] == 0
        elif event.reason is EndReason.BACK_TO_OWNER:
            assert n > 2 and isinstance(last, Scouted) and (last.seat + 1) % n == self.owner
        elif event.reason is EndReason.CANNOT_ANSWER:
            assert n == 2 and self.active and isinstance(last, (Shown, Scouted))
            mover = 1 - last.seat if isinstance(last, Shown) else last.seat
            assert self.owner == 1 - mover and self.chips[mover] == 0
            assert hands_before is not None
            hand = [c.top for c in hands_before[mover]]
            if isinstance(last, Scouted):
                hand.insert(last.position, last.card.top)
            assert not stronger_set_exists(hand, [c.top for c in self.active]), "6.2 ended a live round"
        else:
            assert self.actions == ROUND_ACTION_CAP


def stronger_set_exists(hand: list[int], active: list[int]) -> bool:
    return bool(reference_shows(hand, active))


@PLAYERS
@ENGINE_SETTINGS
@given(seed=SEEDS, choices=CHOICES)
def test_7_round_scores_equal_captured_plus_chips_minus_hand_with_the_exemption(
    players: int, seed: int, choices: list[int]
) -> None:
    """Scores, exemptions and end reasons agree with a tally kept from the public events; mid-round
    the tally agrees with the engine's captured cards, chips, active set and owner."""
    tally = Tally(players)
    hands_before: list[list[list[Card]]] = [[]]

    def visit(game: Game, step: int) -> None:
        tally.feed(public_view(game).history, hands_before[0])
        if game.phase is Phase.PLAY:
            assert [len(c) for c in game.captured] == tally.captured
            assert game.chips == tally.chips
            assert game.active == tally.active and game.owner == tally.owner
            assert game.round_actions == tally.actions
        hands_before[0] = [list(h) for h in game.hands]

    game = walk(players, seed, choices, visit)
    tally.feed(public_view(game).history, hands_before[0])
    assert game.totals == tally.totals
    assert [r.exempt for r in game.results] == tally.exempts
    assert [r.scores for r in game.results] == [
        e.scores for e in public_view(game).history if isinstance(e, RoundEnded)
    ]


# -- replay --------------------------------------------------------------------------------------


@PLAYERS
@ENGINE_SETTINGS
@given(seed=SEEDS, choices=CHOICES, probe=PROBES)
def test_2_records_replay_exactly_through_json(players: int, seed: int, choices: list[int], probe: int) -> None:
    """JSON round trip, replay from seed + decisions, equal records and observations; the deals
    equal the independent reference deal. Also checked at a random point mid-game."""
    rnd = random.Random(probe)
    midpoint = rnd.randrange(60)

    def visit(game: Game, step: int) -> None:
        if step == midpoint:
            record = GameRecord.from_json(record_of(game).to_json())
            assert record_of(replay(record)) == record_of(game)

    game = walk(players, seed, choices, visit)
    record = GameRecord.from_json(record_of(game).to_json())
    assert record == record_of(game)
    again = replay(record)
    assert record_of(again) == record
    assert [observe(again, s) for s in range(players)] == [observe(game, s) for s in range(players)]
    assert [[list(h) for h in deal] for deal in record.deals] == reference_deals(players, seed)


# -- §9 hidden information -----------------------------------------------------------------------


def current_round_only(obs: object) -> object:
    table_ = obs.table  # type: ignore[attr-defined]
    recent = tuple(current_round_events(table_.history))
    return dataclasses.replace(obs, table=dataclasses.replace(table_, history=recent))  # type: ignore[type-var]


def check_hidden(game: Game, viewer: int, seed: int, rnd: random.Random) -> None:
    obs = observe(game, viewer)
    spots = hidden_cards(game, viewer)
    hidden = {game.hands[s][i].id for s, i in spots}
    if game.players == 2 and game.round == 0:
        hidden |= {c.id for c in reference_set_aside(seed)}
    ids = card_ids(current_round_only(obs))
    assert ids.isdisjoint(hidden), "an observation holds a hidden card"
    assert ids <= {c.id for c in game.hands[viewer]} | public_card_ids(game)
    if game.players == 2 and game.round == 0:
        assert card_ids(obs).isdisjoint(c.id for c in reference_set_aside(seed))
    # Other states that differ only in cards the viewer has never seen look the same to it: deal
    # the hidden cards (and, in 2-player round 0, the set-aside half) afresh into the hidden
    # places, each either way up. Done in place and undone at once.
    if not spots:
        return
    view = public_view(game)
    original = [list(h) for h in game.hands]
    pool = [game.hands[s][i] for s, i in spots]
    if game.players == 2 and game.round == 0:
        pool += reference_set_aside(seed)
    try:
        for _ in range(2):
            rnd.shuffle(pool)
            for (s, i), c in zip(spots, pool, strict=False):  # the pool may hold the set-aside cards too
                game.hands[s][i] = c.turned() if rnd.random() < 0.5 else c
            if game.hands == original:
                continue
            assert observe(game, viewer) == obs, "an observation depends on a hidden card"
            assert public_view(game) == view
    finally:
        for s, h in enumerate(original):
            game.hands[s][:] = h


@PLAYERS
@ENGINE_SETTINGS
@given(seed=SEEDS, choices=CHOICES, probe=PROBES)
def test_9_observations_hold_no_hidden_card_and_do_not_depend_on_one(
    players: int, seed: int, choices: list[int], probe: int
) -> None:
    """At random steps, for a random viewer: no hidden card in the observation, and re-dealing the
    viewer's unseen cards changes nothing it observes."""
    rnd = random.Random(probe)

    def visit(game: Game, step: int) -> None:
        if rnd.random() < 0.2:
            check_hidden(game, rnd.randrange(players), seed, rnd)

    walk(players, seed, choices, visit)
