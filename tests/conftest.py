"""Fixtures every test package may use: a real in-memory arena server process on a free loopback port
(one per test session, so one per pytest-xdist worker), and a check of reported results against the
engine's replay.

Every arena a test starts serves its web pages on a free port: `scout-arena serve` and `demo`
default to port 8080 (SCOUT_ARENA_HTTP_PORT), which a test must neither hold nor find taken, so the
suite runs beside a user's own arena. Every process a test starts is killed when it ends, pass or
fail (tests/processes.py). Waits are bounded by tests/timeouts.py, and Hypothesis has no deadline:
a busy machine makes an example slow, not wrong."""

from __future__ import annotations

import compileall
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, settings

from sdk import env
from sdk.engine import GameRecord, competition_ranks, replay
from sdk.runner import register
from sdk.wire import arena_pb2, arena_pb2_grpc, game_pb2
from tests import processes
from tests.services import NATS_EXAMPLE, NATS_URL_VARIABLE, service_url
from tests.timeouts import PLAY_S, START_S, STOP_S

ROOT = Path(__file__).resolve().parent.parent
BOT_PROCESS = ROOT / "tests" / "api" / "bot_process.py"
GRACE_MS = 1500
HEALTHY_MOVE_MS = 1000
"""The move limit of a game whose healthy bots must never time out while another seat does, and the
shared arena's default: wide enough for a loaded machine (at 400 ms, two workers per core timed
healthy bots out). The referee's clocks themselves are tested on a clock the test moves
(tests/play/test_referee_clock.py), not against real time."""
CONNECT_TIMEOUT_S = START_S
_names = itertools.count()
os.environ[env.HTTP_PORT] = "0"
settings.register_profile("scout", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("scout")


def pytest_configure(config: pytest.Config) -> None:
    """A shell without job control starts a background job with Ctrl-C ignored, and every process
    the tests start would inherit that: the tests of Ctrl-C need the interpreter's usual handler,
    whatever started the run. Then every process started from here on is recorded (tests/processes.py)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not hasattr(config, "workerinput"):
        _compile_the_project()
    processes.record_spawns()
    config.stash[_RUN_SPAWNS] = processes.begin()


def _compile_the_project() -> None:
    """Byte-compile the project's packages once, before any worker starts. The editable install
    leaves them as sources, and where PYTHONDONTWRITEBYTECODE is set (as in many containers) every
    one of the hundreds of `scout-arena` and `scout-bot` processes the suite starts would compile
    them again: 0.1-0.3 s of CPU each (benchmarks/cli_startup.py). Python reads the files even where
    it is told not to write them."""
    for package in ("arena", "sdk", "bots"):
        compileall.compile_dir(ROOT / package, quiet=1)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` starts two workers per core (at most four more than the cores): many tests spend
    most of their time waiting on a process they started or on a clock, and a second worker per
    core runs while the first waits."""
    cores = os.cpu_count() or 1
    return min(2 * cores, cores + 4)


_RUN_SPAWNS = pytest.StashKey[list[processes.Spawn]]()


@pytest.fixture(autouse=True)
def _no_process_outlives_its_test() -> Iterator[None]:
    """Kill what the test (or its function-scoped fixtures) started and left running, pass or fail.
    Autouse and function-scoped: set up after broader fixtures (their processes are the run's) and
    torn down after the test's other fixtures, which stop their own processes first."""
    spawns = processes.begin()
    yield
    processes.end(spawns)


@pytest.fixture
def nats_url() -> str:
    """The NATS server (with JetStream) at SCOUT_TEST_NATS_URL, for the tests of a cluster of arenas:
    they skip without it, and fail under CI (tests/services.py)."""
    return service_url(NATS_URL_VARIABLE, NATS_EXAMPLE, "NATS")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """After every fixture has torn down (even on Ctrl-C): kill what broader fixtures left."""
    spawns = session.config.stash.get(_RUN_SPAWNS, None)
    if spawns is not None:
        processes.end(spawns)


@dataclass
class Arena:
    """A running `scout-arena serve --in-memory` process and helpers to drive it."""

    proc: subprocess.Popen[str]
    target: str
    admin_token: str
    logs: Path
    bots: list[subprocess.Popen[str]] = field(default_factory=list)

    def register(self, prefix: str = "bot") -> tuple[str, str]:
        """A fresh bot name and its token."""
        name = f"{prefix}-{os.getpid()}-{next(_names)}"
        return name, register(name, target=self.target)

    def start_bot(self, token: str, *args: str, log_name: str = "bot") -> tuple[subprocess.Popen[str], Path]:
        """Start tests/api/bot_process.py; returns the process and its log file."""
        log = self.logs / f"{log_name}-{next(_names)}.log"
        proc = subprocess.Popen(
            [sys.executable, str(BOT_PROCESS), f"--target={self.target}", f"--token={token}", *args],
            stdout=subprocess.DEVNULL,
            stderr=log.open("w"),
            text=True,
        )
        self.bots.append(proc)
        return proc, log

    def play(self, bots: list[str], seed: int, timeout: float = PLAY_S, **limits: int) -> arena_pb2.PlayGameResponse:
        """PlayGame, retrying while a bot has not connected yet (bounded by CONNECT_TIMEOUT_S)."""
        request = arena_pb2.PlayGameRequest(bots=bots, seed=seed, **limits)
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        with grpc.insecure_channel(self.target) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            while True:
                try:
                    return stub.PlayGame(request, metadata=self.admin_metadata, timeout=timeout)
                except grpc.RpcError as exc:
                    if exc.code() != grpc.StatusCode.FAILED_PRECONDITION or time.monotonic() > deadline:
                        raise
                time.sleep(0.05)

    @property
    def admin_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.admin_token}"),)


@pytest.fixture(scope="session")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    logs = tmp_path_factory.mktemp("arena-logs")
    proc = subprocess.Popen(
        # Many tests (and the slow leak test's thousands of games) register bots on this one arena:
        # its registration limit is tested on arenas of its own (tests/security).
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            "--json",
            "--in-memory",
            "--port",
            "0",
            "--move-ms",
            str(HEALTHY_MOVE_MS),
            "--grace-ms",
            str(GRACE_MS),
            "--registrations-per-minute",
            "1000000",
        ],
        stdout=subprocess.PIPE,
        stderr=(logs / "server.log").open("w"),
        text=True,
        start_new_session=True,
    )
    try:
        first = json.loads(readiness_line(proc, START_S, logs / "server.log"))
        arena = Arena(proc, f"127.0.0.1:{first['port']}", first["admin_token"], logs)
        yield arena
        for bot in arena.bots:
            if bot.poll() is None:
                bot.kill()
            bot.wait(timeout=STOP_S)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=STOP_S) == 0, "the server did not shut down cleanly"
    finally:
        processes.kill_group(proc)


def readiness_line(proc: subprocess.Popen[str], timeout: float, log: Path) -> str:
    """The first line `proc` prints on stdout (its readiness signal), waiting up to `timeout`; fails
    quoting `log` if the process ends first or prints nothing in time."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        what = "ended" if proc.poll() is not None else f"printed nothing in {timeout:g} s"
        raise AssertionError(f"the server {what}; its log {log}:\n{log.read_text()[-3000:]}")
    return line


def check_against_replay(response: arena_pb2.PlayGameResponse, forfeited: AbstractSet[int] = frozenset()) -> GameRecord:
    """The reported result is the engine's replay of the reported record; forfeiters rank last."""
    record = GameRecord.from_json(response.record_json)
    game = replay(record)
    assert game.is_over
    assert [s.points for s in response.seats] == game.totals
    assert [s.seat for s in response.seats] == list(range(record.players))
    assert {s.seat for s in response.seats if s.HasField("forfeit")} == forfeited
    playing = [s for s in response.seats if s.seat not in forfeited]
    assert [s.rank for s in playing] == list(competition_ranks([s.points for s in playing]))
    assert all(s.rank == len(playing) + 1 for s in response.seats if s.seat in forfeited)
    assert [r.reason.name for r in record.results] == [
        game_pb2.EndReason.Name(r).removeprefix("END_REASON_") for r in response.round_end_reasons
    ]
    return record
