"""A first end-to-end check of the engine: random games finish and replay (RULES.md §2, §8)."""

import random

import pytest

from sdk.engine import Game, GameRecord, record_of, replay


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_finish_and_replay(players: int) -> None:
    for seed in range(20):
        game = Game(players, seed)
        rng = random.Random(seed)
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(game.to_move, actions[rng.randrange(len(actions))])
        assert len(game.results) == players
        record = GameRecord.from_json(record_of(game).to_json())
        assert record_of(replay(record)) == record
