"""Runner pieces that need no server: legal actions rebuilt from an observation, back-off."""

import random

import pytest

from sdk.engine import Game, observe
from sdk.runner import Backoff, local_legal_actions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_local_legal_actions_equal_the_referees(players: int) -> None:
    for seed in range(3):
        game, rng = Game(players, seed), random.Random(seed)
        while not game.is_over:
            seat = game.awaiting[0]
            actions = game.legal_actions(seat)
            assert list(local_legal_actions(observe(game, seat))) == list(actions)
            game.apply(seat, actions[rng.randrange(len(actions))])


def test_backoff_grows_exponentially_with_jitter_up_to_the_maximum() -> None:
    backoff = Backoff(initial=0.1, maximum=1.0)
    for attempt, ceiling in enumerate([0.1, 0.2, 0.4, 0.8, 1.0, 1.0]):
        delays = {backoff.delay(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1
