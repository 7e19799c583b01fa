"""Benchmark: a tournament's games per second with and without visitors holding its entrant's casual seats.

    .venv/bin/python benchmarks/casual_stall.py [--games-per-table 40] [--capacity 2] [--visitors 4] [--hosts 2]

An arena server process on a fresh SQLite file (`scout-arena serve --http-port 0`) with three
greedy `scout-bot run` processes of `--capacity` games each; one of them, `cas`, also offers
itself for casual games (`--casual`). Three tournaments of the same three bots, one table, are
played one after the other: quiet, held, quiet. During the held one, `--visitors` people of the
Play page, from `--hosts` loopback addresses (127.0.0.2 on), start casual games against `cas`
whenever it has a free seat (each asks every 50 ms) and never answer their seat: without casual
games giving way, they would hold `cas`'s every seat for a person's clock, six minutes, and the
tournament with it (issue #30). The quiet rate is the mean of the two quiet tournaments.

The arena lets every seat of `cas` be casual (`--play-per-bot`) and the visitors start as often as
they like (`--play-starts-per-address 100000`): only the giving way keeps the tournament playing.
Printed: each tournament's games, seconds and games/s, the held/quiet ratio (target: at least
0.80), and the visitors' starts: started (201), busy (409), other.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

FINISH_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 60.0
ASK_S = 0.05
BOTS = ("bea", "cas", "cid")


class Visitor:
    """A person at the Play page from `source`: its session cookie, and its starts against `cas`."""

    def __init__(self, web: str, source: str) -> None:
        split = urlsplit(web)
        self.host, self.port, self.source = split.hostname or "127.0.0.1", split.port or 80, source
        self.cookie = ""

    def ask(self, method: str, path: str, body: bytes | None = None) -> int:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30, source_address=(self.source, 0))
        try:
            headers = {"Content-Type": "application/json"}
            if self.cookie:
                headers["Cookie"] = f"scout_play={self.cookie}"
            conn.request(method, path, body, headers)
            response = conn.getresponse()
            for header in response.headers.get_all("set-cookie") or ():
                if header.startswith("scout_play="):
                    self.cookie = header.split(";", 1)[0].removeprefix("scout_play=")
            response.read()
            return response.status
        finally:
            conn.close()

    def hold(self, stop: threading.Event, counts: Counter[str]) -> None:
        """Start a game against `cas` every ASK_S until `stop`, never answering one."""
        self.ask("GET", "/play")
        body = json.dumps({"rivals": ["bot:cas"], "move_ms": 0}).encode()
        while not stop.wait(ASK_S):
            status = self.ask("POST", "/api/play/games", body)
            counts[{201: "started", 409: "busy"}.get(status, f"other {status}")] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-table", type=int, default=40, help="games of each tournament's table (default 40)")
    parser.add_argument(
        "--capacity", type=int, default=2, help="each bot's --capacity and the tournaments' concurrency"
    )
    parser.add_argument("--visitors", type=int, default=4, help="people holding cas's casual seats (default 4)")
    parser.add_argument("--hosts", type=int, default=2, help="loopback addresses they come from (default 2)")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        run(args, Path(tmp))


def run(args: argparse.Namespace, logs: Path) -> None:
    from sqlmodel import Session

    from arena.cli.demo import arena_process
    from arena.cli.local import LocalArena
    from arena.cli.remote import RemoteArena
    from arena.records import TournamentStatus
    from arena.storage import store
    from arena.tournaments.settings import TournamentSettings

    url = f"sqlite:///{logs / 'arena.db'}"
    # Every seat of cas may be casual, and the visitors' starts are bounded by its seats alone.
    options = ["--http-port", "0", "--play-per-bot", str(args.capacity), "--play-starts-per-address", "100000"]
    with arena_process(url, 0, logs, options) as (target, admin_token, web):
        assert web is not None
        client = RemoteArena(target, admin_token)
        local = LocalArena.open(url)
        bots = []
        try:
            for name in BOTS:
                command = [sys.executable, "-m", "sdk.cli", "run", "greedy", "--name", name, "--target", target]
                command += ["--token", client.register_bot(name), "--capacity", str(args.capacity)]
                command += ["--casual"] if name == "cas" else []
                bots.append(
                    subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=(logs / f"{name}.log").open("wb"))
                )
            scout = Visitor(web, "127.0.0.1")
            deadline = time.monotonic() + CONNECT_TIMEOUT_S
            while scout.ask("GET", "/play") != 200 or not _offered(web):
                if time.monotonic() > deadline:
                    raise SystemExit(f"cas was not offered on /play within {CONNECT_TIMEOUT_S:g} s")
                time.sleep(0.2)
            load = os.getloadavg()[0]
            rates = {}
            counts: Counter[str] = Counter()
            for phase in ("quiet-1", "held", "quiet-2"):
                later = datetime.now(UTC) + timedelta(days=1)
                settings = TournamentSettings(phase, len(BOTS), args.games_per_table, later, 2000, args.capacity)
                local.create_tournament(settings)
                with Session(local.engine) as session:
                    for name in BOTS:
                        store.enter_tournament(session=session, tournament=phase, bot=name)
                stop = threading.Event()
                holders = []
                if phase == "held":
                    for i in range(args.visitors):
                        visitor = Visitor(web, f"127.0.0.{2 + i % args.hosts}")
                        holders.append(threading.Thread(target=visitor.hold, args=(stop, counts), daemon=True))
                    for thread in holders:
                        thread.start()
                    time.sleep(1.0)  # the visitors hold every seat of cas before the tournament starts
                started = time.monotonic()
                client.start_tournament(phase)
                while (shown := client.tournament(phase)).status is not TournamentStatus.FINISHED:
                    if time.monotonic() - started > FINISH_TIMEOUT_S:
                        raise SystemExit(f"{phase} did not finish in {FINISH_TIMEOUT_S:g} s: {shown.games}")
                    time.sleep(0.05)
                took = time.monotonic() - started
                stop.set()
                for thread in holders:
                    thread.join(30)
                games = shown.games.finished
                rates[phase] = games / took
                print(f"{phase:8} {games:4d} games in {took:6.2f} s: {rates[phase]:6.2f} games/s", flush=True)
            quiet = (rates["quiet-1"] + rates["quiet-2"]) / 2
            print(f"held / quiet: {rates['held'] / quiet:.2f} (target >= 0.80)")
            print("visitors' starts:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
            print(f"load average at the start: {load:.2f}, at the end: {os.getloadavg()[0]:.2f}")
        finally:
            client.close()
            local.close()
            for proc in bots:
                proc.terminate()
            for proc in bots:
                proc.wait(timeout=30)


def _offered(web: str) -> bool:
    """Whether /play offers cas (connected, accepting casual games)."""
    split = urlsplit(web)
    conn = http.client.HTTPConnection(split.hostname or "127.0.0.1", split.port or 80, timeout=30)
    try:
        conn.request("GET", "/play")
        return 'value="bot:cas"' in conn.getresponse().read().decode()
    finally:
        conn.close()


if __name__ == "__main__":
    main()
