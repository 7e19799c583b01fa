"""Games of random bots kept running on an arena server, for the benchmarks that measure the arena
at work (`arena_throughput.py`, `web_latency.py`).

The bots are `sdk.runner` sessions with the SDK's defaults, in client processes (this script
again, in client mode: `--bot-client TARGET CAPACITY LEGAL TOKEN...`), each seated in games up to
its capacity; the server process plays the games with its referee.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


@asynccontextmanager
async def random_games(
    server: Any, games: int, players: int, bots: int, processes: int, legal: bool = False
) -> AsyncIterator[list[int]]:
    """Keep `games` games of `players` random bots running on `server` (`arena.api.server`'s):
    `bots` bots spread over `processes` client processes, which list their own legal actions
    unless `legal`. Yields the client processes' pids; on exit the games end and the clients go."""
    from arena.play.referee import Limits
    from arena.play.sessions import NotConnected

    target = f"127.0.0.1:{server.port}"
    names = [f"bench-{i}" for i in range(bots)]
    tokens = [await server.directory.register(name) for name in names]
    capacity = -(-games * players // bots)
    per_process = -(-bots // processes)
    client = [sys.executable, __file__, "--bot-client", target, str(capacity), str(int(legal))]
    clients = [
        subprocess.Popen([*client, *tokens[i : i + per_process]], stderr=subprocess.DEVNULL)
        for i in range(0, bots, per_process)
    ]
    stop = False
    limits = Limits(move_ms=10_000)
    seated = [0] * bots

    async def table(index: int) -> None:
        rng = random.Random(index)
        game = 0
        while not stop:
            order = sorted(range(bots), key=lambda b: (seated[b], rng.random()))[:players]
            for b in order:
                seated[b] += 1
            try:
                await server.referee.play(f"t{index}-{game}", [names[b] for b in order], rng.getrandbits(64), limits)
            except NotConnected:
                await asyncio.sleep(0.05)
            finally:
                for b in order:
                    seated[b] -= 1
            game += 1

    tables = [asyncio.create_task(table(i)) for i in range(games)]
    try:
        yield [client.pid for client in clients]
    finally:
        stop = True
        await asyncio.wait_for(asyncio.gather(*tables), 60)
        for client in clients:
            client.kill()
            client.wait(timeout=10)


async def bot_client(target: str, capacity: int, legal: bool, tokens: list[str]) -> None:
    """One client process: a random bot session per token."""
    from sdk import Action, Bot, Observation
    from sdk.runner import run_async

    class RandomBot(Bot):
        def choose(self, obs: Observation) -> Action:
            actions = obs.legal_actions
            return actions[random.randrange(len(actions))]

    await asyncio.gather(
        *(run_async(RandomBot(), target=target, token=t, capacity=capacity, want_legal_actions=legal) for t in tokens)
    )


if __name__ == "__main__" and sys.argv[1:2] == ["--bot-client"]:
    asyncio.run(bot_client(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5:]))
