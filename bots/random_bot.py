"""A bot that picks uniformly among its legal actions: the floor every other bot must beat.

Run it against an arena: `python -m bots.random_bot --target HOST:PORT --token TOKEN`.
"""

from __future__ import annotations

import random

from sdk import Action, Bot, Observation


class RandomBot(Bot):
    """Uniform over `obs.legal_actions`; flips a fair coin. Pass `seed` for a reproducible stream."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self._rng = random.Random(seed)

    def choose(self, obs: Observation) -> Action:
        return self._rng.choice(obs.legal_actions)

    def flip(self, obs: Observation) -> bool:
        return self._rng.random() < 0.5


if __name__ == "__main__":
    from sdk.cli import bot_program

    bot_program(RandomBot)()
