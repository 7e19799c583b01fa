"""The Monte-Carlo example bot: legal, bounded, reproducible, and stronger than greedy."""

from __future__ import annotations

import random

import pytest

from bots import GreedyBot, MonteCarloBot
from bots.montecarlo import finish_round, rollout_action
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


def test_the_search_needs_a_budget() -> None:
    with pytest.raises(ValueError, match="move_time, iterations, or both"):
        MonteCarloBot(move_time=None)


def test_its_time_budget_is_read_from_the_clock_it_is_given() -> None:
    """A benchmark passes `time.process_time`; a fake clock shows which seconds the budget counts."""
    ticks = iter(range(100))
    bot = MonteCarloBot(seed=1, move_time=3.0, clock=lambda: float(next(ticks)))
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
