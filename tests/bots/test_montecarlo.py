"""The Monte-Carlo example bot: legal, bounded, reproducible, and stronger than greedy."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable

import pytest

from bots import GreedyBot, MonteCarloBot
from bots.montecarlo import ACTIONS, finish_round, rollout_action
from bots.playout import COMPILED
from sdk import Observation
from sdk.engine import Determinizer, Flip, Game, Phase, observe
from sdk.local import play_game, play_match


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_rollout_policy_only_plays_legal_actions(players: int) -> None:
    rng = random.Random(players)
    for seed in range(6):
        game = Game(players, seed)
        while not game.is_over:
            if game.phase is Phase.FLIP:
                game.apply(game.awaiting[0], Flip(rng.random() < 0.5))
                continue
            action = rollout_action(game)
            assert action in game.legal_actions()
            game.apply(game.to_move, action)


def test_finish_round_plays_a_sample_to_the_end_of_its_round() -> None:
    game = Game(4, 3)
    for seat in range(4):
        game.apply(seat, Flip(False))
    sample = Determinizer(observe(game, 0)).sample(random.Random(0))
    finish_round(sample)
    assert sample.is_over and len(sample.results) == 1


def test_a_budget_is_above_zero() -> None:
    for bad in ({"actions": 0}, {"iterations": -1}, {"move_time": 0.0}):
        with pytest.raises(ValueError, match="above 0"):
            MonteCarloBot(**bad)  # type: ignore[arg-type]


def _first_turn(players: int, seed: int) -> Observation:
    game = Game(players, seed)
    for seat in range(players):
        game.apply(seat, Flip(False))
    seat = game.to_move
    assert seat is not None
    return observe(game, seat)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_by_default_it_spends_its_table_sizes_budget_of_actions(players: int) -> None:
    bot = MonteCarloBot(seed=1, move_time=None)
    bot.choose(_first_turn(players, players))
    budget = ACTIONS[players]
    per_deal = bot.actions_done / bot.deals_done
    assert budget <= bot.actions_done < budget + per_deal * 2, "it stops at the first deal past the budget"


def _slowed(step: float) -> Callable[[], float]:
    """A clock on a machine so busy that every reading finds `step` more seconds gone."""
    readings = itertools.count()
    return lambda: next(readings) * step


def test_under_a_slowed_clock_it_plays_the_same_moves() -> None:
    """Its budget is a count: a machine's load changes its clock, not its moves, while the safety
    cap is not reached."""

    def record(clock: Callable[[], float]) -> object:
        bots = [MonteCarloBot(seed=3, actions=1500, clock=clock), GreedyBot(), MonteCarloBot(seed=4, actions=900)]
        return play_game(bots, seed=9).record

    # At most 1500 / 8 deals a decision, so the clock says at most 0.19 s: under the 1 s cap.
    assert record(_slowed(0.001)) == record(time.perf_counter)


def test_its_safety_cap_stops_a_search_the_clock_says_is_too_long() -> None:
    bot = MonteCarloBot(seed=1, move_time=1.0, clock=_slowed(0.6))
    bot.choose(_first_turn(3, 5))
    assert bot.deals_done == 2 and bot.actions_done < ACTIONS[3], "stopped at 1.2 s, its budget unspent"


def test_its_compiled_rollouts_play_as_its_python_ones() -> None:
    def record(compiled: bool) -> object:
        bots = [MonteCarloBot(seed=s, actions=600, move_time=None, compiled=compiled) for s in range(4)]
        return play_game(bots, seed=21).record

    assert COMPILED, "the install builds bots/_playout.c"
    assert record(compiled=True) == record(compiled=False)


def test_its_time_budget_is_read_from_the_clock_it_is_given() -> None:
    """A benchmark passes `time.process_time`; a fake clock shows which seconds the budget counts."""
    ticks = iter(range(100))
    bot = MonteCarloBot(seed=1, actions=10**9, move_time=3.0, clock=lambda: float(next(ticks)))
    game = Game(3, 5)
    for seat in range(3):
        game.apply(seat, Flip(False))
    bot.choose(observe(game, game.to_move))
    assert bot.deals_done == 3, "one clock reading at the start, one after each deal: stops at 3 s"


def test_with_an_iteration_budget_and_a_seed_it_plays_the_same_game_twice() -> None:
    def record() -> object:
        bots = [MonteCarloBot(seed=3, move_time=None, iterations=2), GreedyBot(), GreedyBot()]
        return play_game(bots, seed=9).record

    assert record() == record()


def test_montecarlo_beats_greedy_heads_up() -> None:
    """Measured: 2 iterations, 6 candidates won 29 of 40 (72%) against greedy's 30% (ties share)."""
    bots = [MonteCarloBot(seed=1, move_time=None, iterations=2, candidates=6), GreedyBot()]
    mc, greedy = play_match(bots, games=40, seed=100).summary()
    assert mc.win_rate >= 0.55
    assert mc.mean_points > greedy.mean_points


@pytest.mark.slow
def test_montecarlo_beats_greedy_at_four_players() -> None:
    """Measured: 6 iterations won ~50% of 24 games against three greedy bots (a fair share is 25%)."""
    bots = [MonteCarloBot(seed=1, move_time=None, iterations=6), GreedyBot(), GreedyBot(), GreedyBot()]
    mc, *greedy = play_match(bots, games=24, seed=100).summary()
    assert mc.win_rate >= 0.35
    assert all(mc.mean_placing < g.mean_placing for g in greedy)
