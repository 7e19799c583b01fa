"""A real `scout-arena serve` process with its web pages, bots as processes, and visitors of its
Play page, each from a loopback address of its own (127.0.0.N: Linux answers on all of 127/8, and
a client that binds its source address there reaches the arena's 127.0.0.1 as another host)."""

from __future__ import annotations

import http.client
import json
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlmodel import Session

from arena.cli.local import LocalArena
from arena.storage import store
from arena.tournaments.settings import TournamentSettings
from sdk.runner import register
from tests.tournaments.arena_process import UNTHROTTLED_READS

T = TypeVar("T")
START_TIMEOUT_S = 60.0
LATER = datetime.now(UTC) + timedelta(hours=1)


class WebArena:
    """`scout-arena serve --json --db sqlite:///DIR/arena.db --port 0 --http-port 0 ARGS`, the
    organiser's hands on its database, and the bot programs started for it."""

    def __init__(self, tmp: Path, *args: str) -> None:
        self.tmp = tmp
        db = tmp / "arena.db"
        self.log = tmp / "server.log"
        serve = ["serve", "--json", "--db", f"sqlite:///{db}", "--port", "0", "--http-port", "0"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", *serve, *UNTHROTTLED_READS, *args],
            stdout=subprocess.PIPE,
            stderr=self.log.open("a"),
            text=True,
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], START_TIMEOUT_S)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.proc.kill()
            raise AssertionError(f"the arena did not start: {self.log.read_text()[-3000:]}")
        first = json.loads(line)
        self.target = f"127.0.0.1:{first['port']}"
        self.web: str = first["web"]
        self.local = LocalArena.open(str(db))
        self.bots: list[subprocess.Popen[bytes]] = []

    def bot(self, name: str, capacity: int, casual: bool = False) -> None:
        """Register `name` and run the greedy example bot for it (offered for casual games with `casual`)."""
        token = register(name, target=self.target)
        log = (self.tmp / f"{name}.log").open("wb")
        command = [sys.executable, "-c", "from sdk.cli import app; app()", "run", "greedy", "--name", name]
        command += ["--token", token, "--target", self.target, "--capacity", str(capacity)]
        self.bots.append(
            subprocess.Popen(command + (["--casual"] if casual else []), stdout=subprocess.DEVNULL, stderr=log)
        )

    def tournament(self, name: str, entrants: list[str], games_per_table: int, concurrency: int) -> None:
        """Create tournament `name` of one table of all `entrants` (not started)."""
        settings = TournamentSettings(name, len(entrants), games_per_table, LATER, 2000, concurrency, seed=3)
        self.local.create_tournament(settings)
        with Session(self.local.engine) as session:
            for bot in entrants:
                store.enter_tournament(session=session, tournament=name, bot=bot)

    def stop(self) -> None:
        for proc in self.bots:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
        self.local.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)


class Visitor:
    """A person's browser at the web pages, connecting from `source` (a loopback address)."""

    def __init__(self, web: str, source: str = "127.0.0.1") -> None:
        parts = urlsplit(web)
        assert parts.hostname is not None and parts.port is not None
        self.host, self.port, self.source = parts.hostname, parts.port, source
        self.cookie = ""

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout, source_address=(self.source, 0))

    def request(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> tuple[int, Any]:
        """Send one request with the session cookie (kept from the answers); the status and the
        body (JSON decoded when it is JSON)."""
        conn = self._connection(timeout)
        try:
            headers = {"Content-Type": "application/json"}
            if self.cookie:
                headers["Cookie"] = f"scout_play={self.cookie}"
            conn.request(method, path, None if body is None else json.dumps(body), headers)
            response = conn.getresponse()
            for header in response.headers.get_all("set-cookie") or ():
                if header.startswith("scout_play="):
                    self.cookie = header.split(";", 1)[0].removeprefix("scout_play=")
            data = response.read().decode()
            kind = response.headers.get("content-type", "")
            return response.status, json.loads(data) if kind.startswith("application/json") else data
        finally:
            conn.close()

    def open_play(self) -> str:
        """GET /play (which gives the session cookie); the page."""
        status, page = self.request("GET", "/play")
        assert status == 200 and self.cookie, (status, page)
        return str(page)

    def start(self, rivals: list[str], move_ms: int = 0) -> tuple[int, Any]:
        return self.request("POST", "/api/play/games", {"rivals": rivals, "move_ms": move_ms})

    def feed(self, game_id: str, timeout: float) -> Iterator[dict[str, Any]]:
        """The messages of the game's feed as they come, until it ends (closed when left)."""
        conn = self._connection(timeout)
        try:
            conn.request("GET", f"/api/play/games/{game_id}/feed", headers={"Cookie": f"scout_play={self.cookie}"})
            response = conn.getresponse()
            assert response.status == 200, response.read()
            while line := response.fp.readline().decode():
                if line.startswith("data: "):
                    yield json.loads(line.removeprefix("data: "))
        finally:
            conn.close()

    def first_message(self, game_id: str, timeout: float = 30.0) -> dict[str, Any]:
        """The first message of the game's feed (its end, for a game that has ended)."""
        for message in self.feed(game_id, timeout):
            return message
        raise AssertionError("the feed ended without a message")

    def play_out(self, game_id: str, timeout: float = 120.0) -> dict[str, Any]:
        """Play the game to its end from its feed, answering every request with the first legal
        action (a flip: keep the hand); the feed's last message."""
        for message in self.feed(game_id, timeout):
            if message["type"] in ("over", "stopped"):
                return message
            if message["type"] == "request":
                action = {"flip": False} if message["kind"] == "flip" else message["view"]["legal"][0]
                answer = {"request_id": message["request_id"], "action": action}
                status, reply = self.request("POST", f"/api/play/games/{game_id}/decisions", answer)
                assert status == 200 and reply["accepted"], reply
        raise AssertionError("the feed ended before the game")


def in_thread(call: Callable[[], T]) -> T:
    """`call()` in a thread of its own: what a test with an event loop running (Playwright's
    sync API keeps one) does to reach the arena through clients that run their own."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def wait_for(condition: Callable[[], bool], what: str, timeout: float) -> None:
    """Poll `condition` every 0.1 s until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {timeout:g} s waiting for {what}"
        time.sleep(0.1)
