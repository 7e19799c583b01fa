"""Games of random bots kept running on an arena server, for the benchmarks that measure the arena
at work (`arena_throughput.py`, `arena_scale.py`, `web_latency.py`, `live_spectators.py`).

The bots are `sdk.runner` sessions with the SDK's defaults, in client processes (this script
again, in client mode: `--bot-client TARGET CAPACITY LEGAL THINK_MS JITTER_MS TOKEN...`); the
server process plays the games with its referee (`Arena`).
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sdk.protocol import DecisionRequest

CONNECT_S = 300.0
"""Bound on the wait for every bot to connect, and then for every game to start."""


def rss_mb() -> float:
    """This process's resident set size, from /proc."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def think_s(think_ms: float, jitter_ms: float, game_id: str, request_id: int) -> float:
    """How long a thinking bot takes over a request: `think_ms` give or take up to `jitter_ms`,
    drawn from the ids, so the arena side can subtract it from the round trip it saw."""
    u = zlib.crc32(f"{game_id}/{request_id}".encode()) / 0xFFFFFFFF
    return max(0.0, think_ms + jitter_ms * (2 * u - 1)) / 1000


@dataclass
class Shape:
    """What an arena phase runs: `games` kept in flight of `players` seats, over `bots` sessions
    that each hold `capacity` of them at once, in `processes` client processes; bots think
    `think_ms` (give or take `jitter_ms`) before each answer."""

    games: int
    players: int
    bots: int
    processes: int
    legal: bool = False
    think_ms: float = 0.0
    jitter_ms: float = 0.0

    @property
    def capacity(self) -> int:
        return -(-self.games * self.players // self.bots)


class Arena:
    """The real arena server with its bot sessions connected, and `start` keeping games in flight.

    Each table keeps the same bots (table i seats bots i*players, i*players+1, ... modulo the bot
    count), so every bot holds `Shape.capacity` games at once and the seating costs nothing per
    game. Every bot is connected before the first game starts (`connect`), and `start` returns
    once every table's first game is dealt: nothing of the start-up falls in a measuring window.
    With thinking bots the tables start spread over one think time: started at once, every game
    would decide at the same moments, and the window would see bursts of every game at once."""

    def __init__(
        self,
        shape: Shape,
        on_answer: Callable[[float], None] | None,
        server: Any = None,
        *,
        bots_at: str | None = None,
        names: str = "bench",
    ) -> None:
        """`server`: an `arena.startup.arena` arena to play on (left running by `close`); None
        starts one in memory, with connection caps that fit `shape`. `bots_at`: the HOST:PORT the
        bots connect to, when not `server` (another node of its cluster); `names`: the bots'
        names' stem (`NAMES-0`, `NAMES-1` ...), new for each `Arena` of one database."""
        self.shape = shape
        self.bots_at = bots_at
        self.stem = names
        self.on_answer = on_answer
        self.server = server
        self.own_server = server is None
        self.stop = False
        self.started = 0
        self.tables: list[asyncio.Task[None]] = []
        self.clients: list[subprocess.Popen[bytes]] = []

    async def connect(self) -> None:
        from arena.api.resources import ResourceLimits
        from arena.startup.arena import start_arena
        from arena.startup.settings import ArenaSettings

        shape = self.shape
        if self.own_server:
            room = shape.bots + 100
            limits = ResourceLimits(max_connections=room, max_streams_per_connection=room, max_calls=room)
            self.server = await start_arena(ArenaSettings(port=0, resources=limits), on_answer=self.on_answer)
        server = self.server
        target = self.bots_at or f"127.0.0.1:{server.port}"
        self.names = [f"{self.stem}-{i}" for i in range(shape.bots)]
        tokens = [await server.directory.register(name) for name in self.names]
        per_process = -(-shape.bots // shape.processes)
        mode = [str(shape.capacity), str(int(shape.legal)), str(shape.think_ms), str(shape.jitter_ms)]
        self.clients = [
            spawn("--bot-client", target, *mode, *tokens[i : i + per_process])
            for i in range(0, shape.bots, per_process)
        ]
        deadline = time.monotonic() + CONNECT_S
        while sum(1 for n in self.names if (c := server.hub.get(n)) is not None and c.connected) < shape.bots:
            if time.monotonic() > deadline or any(c.poll() is not None for c in self.clients):
                raise RuntimeError(f"not every one of {shape.bots} bots connected within {CONNECT_S:g} s")
            await asyncio.sleep(0.1)

    @property
    def pids(self) -> list[int]:
        return [client.pid for client in self.clients]

    async def start(self) -> None:
        """Start every table and return once each one's first game is dealt."""
        from arena.play.referee import Limits

        shape = self.shape
        limits = Limits(move_ms=60_000, grace_ms=60_000)
        all_started = asyncio.Event()

        def dealt(_: object) -> None:
            self.started += 1
            if self.started == shape.games:
                all_started.set()

        async def table(index: int) -> None:
            rng = random.Random(index)
            seats = [self.names[(index * shape.players + j) % shape.bots] for j in range(shape.players)]
            game = 0
            first: Callable[[object], None] | None = dealt
            await asyncio.sleep(shape.think_ms / 1000 * index / shape.games)
            while not self.stop:
                await self.server.referee.play(f"t{index}-{game}", seats, rng.getrandbits(64), limits, created=first)
                first = None
                game += 1

        self.tables = [asyncio.create_task(table(i)) for i in range(shape.games)]
        done, _ = await asyncio.wait(
            [asyncio.ensure_future(all_started.wait()), *self.tables],
            timeout=CONNECT_S,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if not all_started.is_set():
            failed = next((t for t in done if t in self.tables), None)
            raise RuntimeError(
                f"{self.started} of {shape.games} games started"
                + (f": {failed.exception()!r}" if failed is not None else "")
            )

    async def close(self) -> None:
        self.stop = True
        for task in self.tables:
            task.cancel()
        await asyncio.gather(*self.tables, return_exceptions=True)
        for client in self.clients:
            client.kill()
            client.wait(timeout=10)
        if self.own_server and self.server is not None:
            await self.server.stop(0)


@asynccontextmanager
async def random_games(
    server: Any, games: int, players: int, bots: int, processes: int, legal: bool = False
) -> AsyncIterator[list[int]]:
    """Keep `games` games of `players` random bots running on `server` (`arena.startup.arena.start_arena`'s):
    `bots` bots spread over `processes` client processes, which list their own legal actions
    unless `legal`. Yields the client processes' pids once every game has started; on exit the
    games end and the clients go."""
    bench = Arena(Shape(games, players, bots, processes, legal), None, server)
    try:
        await bench.connect()
        await bench.start()
        yield bench.pids
    finally:
        await bench.close()


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, *args], stderr=subprocess.DEVNULL)


async def bot_client(
    target: str, capacity: int, legal: bool, tokens: list[str], think_ms: float = 0.0, jitter_ms: float = 0.0
) -> None:
    """Random bots; with `think_ms`, each answer waits `think_s` first (in the runner, before the
    bot is asked, so the bot's own code runs as it would without the wait)."""
    from sdk import Action, Bot, Observation, runner
    from sdk.runner import run_async

    class RandomBot(Bot):
        def choose(self, obs: Observation) -> Action:
            actions = obs.legal_actions
            return actions[random.randrange(len(actions))]

    if think_ms or jitter_ms:
        answer = runner._Session._answer

        def later(session: object, state: object, req: DecisionRequest) -> None:
            delay = think_s(think_ms, jitter_ms, req.game_id, req.request_id)
            asyncio.get_running_loop().call_later(delay, answer, session, state, req)

        runner._Session._answer = later  # type: ignore[method-assign]

    await asyncio.gather(
        *(run_async(RandomBot(), target=target, token=t, capacity=capacity, want_legal_actions=legal) for t in tokens)
    )


if __name__ == "__main__" and sys.argv[1:2] == ["--bot-client"]:
    think, jitter = float(sys.argv[5]), float(sys.argv[6])
    asyncio.run(bot_client(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[7:], think, jitter))
