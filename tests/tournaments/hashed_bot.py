"""A bot program whose play depends on nothing but what it sees: `python tests/tournaments/hashed_bot.py
--target HOST:PORT --token TOKEN [--seed N] [--delay SECONDS]`.

It picks a legal action "at random" with a generator seeded by its seed and the observation, so the
same observation always gets the same action, whatever order its games' requests arrive in and
however often a game is replayed. A seeded `random.Random` shared by all games would not do: its
draws would depend on how the concurrent games interleave. `--delay` makes each answer wait
(without blocking its other games), so games last long enough to be interrupted.
"""

from __future__ import annotations

import asyncio
import random

import typer

from sdk import Action, Bot, Observation
from sdk.cli import serve


class HashedRandomBot(Bot):
    """A legal action drawn by a generator seeded with (seed, observation)."""

    def __init__(self, seed: int, delay: float) -> None:
        super().__init__()
        self.seed = seed
        self.delay = delay

    def _rng(self, obs: Observation) -> random.Random:
        t = obs.table
        return random.Random(repr((self.seed, obs.seat, obs.hand, t.round, t.round_actions, t.active_set, t.seats)))

    async def choose(self, obs: Observation) -> Action:
        await asyncio.sleep(self.delay)
        return self._rng(obs).choice(obs.legal_actions)

    async def flip(self, obs: Observation) -> bool:
        await asyncio.sleep(self.delay)
        return self._rng(obs).random() < 0.5


def main(
    target: str = typer.Option(...),
    token: str = typer.Option(...),
    seed: int = 0,
    delay: float = 0.0,
    capacity: int = 4,
) -> None:
    serve(HashedRandomBot(seed, delay), target=target, token=token, capacity=capacity, max_games=None)


if __name__ == "__main__":
    typer.run(main)
