"""A bot program for the end-to-end tests: `python tests/api/bot_process.py --target HOST:PORT
--token TOKEN [--behaviour random|slow|silent] [--think-ms MS] [--max-games N] [--no-legal-actions]`.

random: a uniformly random legal action; slow: the same after 30 ms (games last long enough to
kill the process mid-game), or after `--think-ms`; silent: never answers. Logs the runner's INFO
lines to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random

from sdk import Action, Bot, Observation
from sdk.runner import run


class RandomBot(Bot):
    """Any legal action, at random; flips a coin for the hand flip."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.rng = random.Random()

    async def choose(self, obs: Observation) -> Action:
        await asyncio.sleep(self.delay)
        return self.rng.choice(obs.legal_actions)

    async def flip(self, obs: Observation) -> bool:
        await asyncio.sleep(self.delay)
        return self.rng.random() < 0.5


class SilentBot(Bot):
    """Connects and never answers."""

    async def choose(self, obs: Observation) -> Action:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def flip(self, obs: Observation) -> bool:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--behaviour", choices=("random", "slow", "silent"), default="random")
    parser.add_argument("--max-games", type=int, default=None)
    parser.add_argument("--capacity", type=int, default=4)
    parser.add_argument("--no-legal-actions", action="store_true")
    parser.add_argument("--think-ms", type=int, default=30, help="how long a slow bot takes a decision")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    bot = (
        SilentBot()
        if args.behaviour == "silent"
        else RandomBot(args.think_ms / 1000 if args.behaviour == "slow" else 0.0)
    )
    run(
        bot,
        target=args.target,
        token=args.token,
        capacity=args.capacity,
        want_legal_actions=not args.no_legal_actions,
        max_games=args.max_games,
    )


if __name__ == "__main__":
    main()
