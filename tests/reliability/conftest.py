"""Fixtures for the reliability tests: the shared arena server process (tests/conftest.py), two healthy
random bots kept for the whole package, and helpers to run zoo bots and wait on their logs."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Arena, check_against_replay
from tests.timeouts import START_S

__all__ = ["Arena", "Healthy", "healthy", "start_zoo", "wait_for_text"]

HERE = Path(__file__).resolve().parent
WAIT_S = START_S
"""Bound on every wait for a process or a log line (tests/timeouts.py)."""


class Healthy:
    """Two well-behaved random bot processes (capacity 4 each) that every test plays against and
    that must still be served after each misbehaving bot."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.names: list[str] = []
        self.procs: list[subprocess.Popen[str]] = []
        for _ in range(2):
            name, token = arena.register("healthy")
            self.procs.append(arena.start_bot(token, log_name=name)[0])
            self.names.append(name)
        # Connected before any test names them: a game asked of a bot still starting is refused.
        for name in self.names:
            wait_for_text(arena.logs / "server.log", f"bot {name!r} connected")

    def check_still_served(self, seed: int) -> None:
        """A fresh game between the healthy bots completes with no forfeit."""
        assert all(p.poll() is None for p in self.procs), "a healthy bot process died"
        check_against_replay(self.arena.play(self.names, seed=seed))


@pytest.fixture(scope="package")
def healthy(arena: Arena) -> Iterator[Healthy]:
    bots = Healthy(arena)
    yield bots
    for proc in bots.procs:
        proc.send_signal(signal.SIGTERM)
    assert [p.wait(timeout=WAIT_S) for p in bots.procs] == [0, 0], "healthy bots did not stop cleanly"


def start_zoo(arena: Arena, token: str, behaviour: str, *args: str) -> tuple[subprocess.Popen[str], Path]:
    """Start tests/reliability/zoo_bot.py; returns the process and its stderr log."""
    log = arena.logs / f"zoo-{behaviour}-{len(arena.bots)}.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "zoo_bot.py"),
            f"--target={arena.target}",
            f"--token={token}",
            f"--behaviour={behaviour}",
            *args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )
    arena.bots.append(proc)
    return proc, log


def wait_for_text(path: Path, text: str) -> None:
    """Block until `text` appears in the file at `path` (bounded by WAIT_S)."""
    deadline = time.monotonic() + WAIT_S
    while text not in path.read_text():
        assert time.monotonic() < deadline, f"{text!r} never appeared in {path}"
        time.sleep(0.02)
