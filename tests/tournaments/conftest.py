"""Fixtures for the tournament tests: databases of both kinds (the storage tests' fixture), example
bot programs as processes, and bounded waits on a tournament."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.storage.conftest import database_url  # noqa: F401  (the fixture, on SQLite and PostgreSQL)

HERE = Path(__file__).resolve().parent
FINISH_TIMEOUT_S = 120.0
"""Bound on any wait for a tournament to finish; the small ones here take a few seconds."""


class BotProcesses:
    """Bot programs started by a test, each logging to its own file; all killed at the end."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, program: list[str], target: str, token: str, name: str, *args: str) -> subprocess.Popen[bytes]:
        """Start `python <program> --target T --token K <args>`: `program` is ["-m", "bots.greedy"]
        or a script path."""
        log = (self.logs / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, *program, "--target", target, "--token", token, *args],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def bot_processes(tmp_path: Path) -> Iterator[BotProcesses]:
    bots = BotProcesses(tmp_path)
    yield bots
    bots.stop()


def wait_until(condition: Callable[[], bool], what: str, timeout: float = FINISH_TIMEOUT_S) -> None:
    """Poll `condition` every 0.1 s until it holds; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)


GREEDY = ["-m", "bots.greedy"]
RANDOM = ["-m", "bots.random_bot"]
HASHED = [str(HERE / "hashed_bot.py")]
