"""Engine invariants over many random games, 2–5 players (docs/rules.md §2, §6, §7, §8, §11).

The property tests in tests/engine explore few games deeply; this plays many games cheaply to
catch the rare state that breaks a rule. Per step it checks only what is free (a legal action
exists, the owner is not to move, a hand is not empty); an independent scorer rebuilt from the
public events checks every round's scores, hand sizes and the game totals (score identity, card
conservation within the deal); one step in SAMPLE_EVERY also runs the full state check of
tests/engine (cards conserved over the whole deck). The default run plays DEFAULT_GAMES; the
slow run SCALE_GAMES, split across two worker processes.
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Sequence

import pytest

from sdk.engine import (
    ROUND_ACTION_CAP,
    EndReason,
    Game,
    Phase,
    RoundEnded,
    RoundStarted,
    Scouted,
    ScoutedAndShown,
    Shown,
    table_rules,
)
from tests.engine.test_properties import check_invariants

DEFAULT_GAMES = 2_000
SCALE_GAMES = 100_000
SAMPLE_EVERY = 997
"""One step in this many gets the full state check (a prime, so it drifts across game phases)."""
WORKERS = 2


class EventScorer:
    """Scores rounds from the public events alone, as docs/rules.md §7 says, to compare with the engine."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.rules = table_rules(players)
        self.totals = [0] * players
        self.rounds = 0

    def play(self, events: Sequence[object]) -> None:
        """Follow the whole event history of one game, asserting at every RoundEnded."""
        n = self.players
        hands: list[int] = []
        captured: list[int] = []
        chips: list[int] = []
        active, owner, dealt = 0, None, 0
        for event in events:
            if isinstance(event, RoundStarted):
                hands = [event.hand_size] * n
                captured, chips = [0] * n, [self.rules.start_chips] * n
                active, owner, dealt = 0, None, event.hand_size * n
            elif isinstance(event, (Scouted, ScoutedAndShown, Shown)):
                scouted = event.scouted if isinstance(event, ScoutedAndShown) else event
                shown = event.shown if isinstance(event, ScoutedAndShown) else event
                if isinstance(scouted, Scouted):
                    assert owner is not None and owner != scouted.seat, "a seat scouted its own set (§11)"
                    hands[scouted.seat] += 1
                    active -= 1
                    if n == 2:
                        chips[scouted.seat] -= 1
                    else:
                        chips[owner] += 1
                if isinstance(shown, Shown):
                    captured[shown.seat] += active
                    hands[shown.seat] -= len(shown.cards)
                    active, owner = len(shown.cards), shown.seat
                assert min(hands) >= 0 and min(chips) >= 0
                assert sum(hands) + sum(captured) + active == dealt, "cards of the deal not conserved (§2)"
            elif isinstance(event, RoundEnded):
                assert event.hand_sizes == tuple(hands), "hand sizes at round end differ from the events"
                exempt = owner if event.reason in (EndReason.BACK_TO_OWNER, EndReason.CANNOT_ANSWER) else None
                expected = tuple(captured[s] + chips[s] - (0 if s == exempt else hands[s]) for s in range(n))
                assert event.scores == expected, f"round {event.round}: scores {event.scores} != §7 {expected}"
                if event.reason is EndReason.EMPTY_HAND:
                    assert 0 in hands
                self.totals = [t + s for t, s in zip(self.totals, event.scores, strict=True)]
                self.rounds += 1


def play_random_game(players: int, seed: int, sample: random.Random) -> int:
    """Play one game with uniformly random legal actions; assert the invariants; return its steps."""
    game = Game(players, seed)
    rng = random.Random(seed)
    bound = players * (players + ROUND_ACTION_CAP)
    steps = 0
    while not game.is_over:
        assert steps < bound, "the game did not end within the action cap (§6 termination)"
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        count = len(legal)
        assert count > 0, "the seat awaited has no legal action (§11)"
        if game.phase is Phase.PLAY:
            assert game.hands[seat], "the player to move holds no card (§11)"
            assert game.owner != seat, "the owner of the active set is to move (§11)"
        if sample.randrange(SAMPLE_EVERY) == 0:
            check_invariants(game, seed)
        game.apply(seat, legal[rng.randrange(count)])
        steps += 1
    check_invariants(game, seed)
    scorer = EventScorer(players)
    scorer.play(list(game.events))
    assert scorer.rounds == len(game.results) == players, "a game lasts one round per player (§8)"
    assert scorer.totals == list(game.totals), "game totals are not the sum of the round scores (§7)"
    assert game.outcome is not None and game.outcome.totals == tuple(game.totals)
    return steps


def play_batch(args: tuple[int, int, int]) -> tuple[int, int]:
    """Worker: play games with seeds start..start+count-1 at `players`; return (games, steps)."""
    players, start, count = args
    sample = random.Random(start * 7 + players)
    steps = 0
    for seed in range(start, start + count):
        try:
            steps += play_random_game(players, seed, sample)
        except AssertionError as exc:
            raise AssertionError(f"players={players} seed={seed}: {exc}") from exc
    return count, steps


def run_games(total: int, base_seed: int) -> tuple[int, int]:
    """Play `total` games, a quarter at each seat count, across WORKERS spawned processes."""
    per_count = total // 4
    chunk = max(1, per_count // (WORKERS * 4))
    jobs = [
        (players, base_seed + start, min(chunk, per_count - start))
        for players in (2, 3, 4, 5)
        for start in range(0, per_count, chunk)
    ]
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        results = pool.map(play_batch, jobs, chunksize=1)
    return sum(g for g, _ in results), sum(s for _, s in results)


def test_invariants_hold_over_a_sample_of_random_games() -> None:
    games, steps = run_games(DEFAULT_GAMES, base_seed=1_000_000)
    assert games == DEFAULT_GAMES and steps > games


@pytest.mark.slow
def test_invariants_hold_over_100_000_random_games() -> None:
    games, steps = run_games(SCALE_GAMES, base_seed=0)
    assert games == SCALE_GAMES and steps > games


def test_the_event_scorer_catches_a_wrong_score() -> None:
    """The independent scorer fails on a round score that breaks §7 (it is not vacuous)."""
    game = Game(3, 5)
    rng = random.Random(5)
    while not game.is_over:
        seat = game.awaiting[0]
        legal = game.legal_actions(seat)
        game.apply(seat, legal[rng.randrange(len(legal))])
    events = list(game.events)
    index, ended = next((i, e) for i, e in enumerate(events) if isinstance(e, RoundEnded))
    events[index] = RoundEnded(ended.round, ended.reason, (ended.scores[0] + 1, *ended.scores[1:]), ended.hand_sizes)
    with pytest.raises(AssertionError, match="scores"):
        EventScorer(3).play(events)
