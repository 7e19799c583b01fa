"""What live spectators cost the arena: its throughput with games published to the spectator hub
and followed by spectators, against the same arena unwatched, measured in the same run.

    .venv/bin/python benchmarks/live_spectators.py [--games 32] [--players 4] [--seconds 5]
        [--repeat 3] [--spectators 200]

The arena phase of benchmarks/arena_throughput.py (real server, random bots in subprocesses) runs
three ways, alternating `--repeat` times: unwatched; every game published to the hub (`Watch`,
delay 0, no spectator); and published with `--spectators` spectators in this process, each
following one live game's stream (`arena.web.live_stream.LiveCursor.chunks`, every message made
and encoded as the event stream sends it) and moving on to another when it ends. The delay only
shifts when spectators do their work, so 0 measures it inside the window. Reported per phase as
arena_throughput.py does, then the medians of decisions/s and CPU per decision against unwatched.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import logging
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arena_throughput as bench

from arena.play.referee import Limits, Referee
from arena.play.results import GameResult
from arena.play.spectators import SpectatorHub, Watch
from arena.web.live_stream import LiveCursor
from sdk.engine import Game

_play = Referee.play
_ids = itertools.count(1)
_hubs: list[SpectatorHub] = []
_LIMITS = Limits()


async def _watched(
    self: Referee,
    game_id: str,
    seat_bots: Sequence[str],
    seed: int,
    limits: Limits = _LIMITS,
    absent: Mapping[str, str] | None = None,
    watch: Watch | None = None,
    created: Callable[[Game], None] | None = None,
) -> GameResult:
    """`Referee.play` with every game published to the hub, as the tournament runner plays them."""
    if self.spectators is not None and self.spectators not in _hubs:
        _hubs.append(self.spectators)
    return await _play(self, game_id, seat_bots, seed, limits, absent, Watch(next(_ids), 0), created)


async def _spectator(stop: asyncio.Event) -> int:
    """Follow live games one after another until `stop`; returns the bytes it was sent."""
    sent = 0
    while not stop.is_set():
        live = _hubs[-1].live() if _hubs else []
        if not live:
            await asyncio.sleep(0.05)
            continue
        feed = live[sent % len(live)]
        async for chunk in LiveCursor(_hubs[-1], feed.game_id).chunks():
            sent += len(chunk)
            if stop.is_set():
                break
    return sent


async def _arena(args: argparse.Namespace, watched: bool, spectators: int) -> Any:
    Referee.play = _watched if watched else _play  # type: ignore[method-assign]
    _hubs.clear()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(_spectator(stop)) for _ in range(spectators)]
    try:
        return await bench.arena(bench.Shape(args.games, args.players, args.bots, args.bot_processes), args.seconds)
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        Referee.play = _play  # type: ignore[method-assign]


def main() -> None:
    client = bench.client_mode(sys.argv[1:])
    if client is not None:
        client()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring window of each phase")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--bot-processes", type=int, default=2)
    parser.add_argument("--spectators", type=int, default=200, help="the hub's cap by default")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    from arena.startup.arena import tune_gc

    tune_gc()
    print("command: python", " ".join(sys.argv))
    phases = [
        ("unwatched", False, 0),
        ("published, no spectator", True, 0),
        (f"published, {args.spectators} spectators", True, args.spectators),
    ]
    ratios: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in phases[1:]}
    for _ in range(args.repeat):
        figures = {}
        for name, watched, spectators in phases:
            got = asyncio.run(_arena(args, watched, spectators))
            figures[name] = got
            print(got.line(f"{name}, {args.games} games x {args.players} bots"), flush=True)
        base = figures["unwatched"]
        for name in ratios:
            ratios[name].append((figures[name].per_second / base.per_second, figures[name].cpu_us / base.cpu_us))
    for name, pairs in ratios.items():
        rate, cpu = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
        print(f"{name} / unwatched (median of {args.repeat}): decisions/s {rate:.2f}, CPU per decision {cpu:.2f}")


if __name__ == "__main__":
    main()
