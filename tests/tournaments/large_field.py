"""A 1,000-bot field against a real `scout-arena serve` process, for tests/tournaments/test_large_field.py
and benchmarks/large_field.py.

A tournament of real bots ("steady": `tests/api/bot_process.py` processes) plays throughout.
Then 1,000 bots register from `hosts` loopback addresses (127.0.0.2, 127.0.0.3, ...: each
address's connections go through a TCP relay whose source is bound to it, since a connection to
127.0.0.N from this machine would come from 127.0.0.1) and enter the field tournament, a full
round robin at 4 seats, which takes as many as fit its 50,000 games (769). The organiser starts
it with `scout-arena tournament start` (a command-line process, timed), and a small tournament of
three more real bots is started just after it. The field's bots never connect: entering and
starting are what weigh on storage, and its games then forfeit them (after a 1 s absent wait), a
stream of commits beside the steady tournament's.

The steady tournament's games/s is measured in windows: quiet (before the field), while the
field registers and enters, while the field's start runs, and while the field plays. What it
reports is what the test asserts on and the benchmark prints.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc

from arena.cli.remote import START_TIMEOUT_S
from sdk.wire import arena_pb2_grpc
from sdk.wire.arena_client import ENTER_TOURNAMENT, REGISTER_BOT, request
from tests.relay import relay
from tests.timeouts import patience
from tests.tournaments.arena_process import ArenaProcess

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
BOT_PROGRAM = HERE.parent / "api" / "bot_process.py"
FIELD_BOTS = 1000
HOSTS = 20
"""Addresses the field registers from: 50 bots each, within the default 60 registrations a host may make at once."""
IN_FLIGHT_PER_HOST = 2
WARM_UP_GAMES = 400
"""The steady tournament's games before its quiet rate is measured, so that it is measured once the
tournament has settled into play: its first ten seconds ran 18% faster than the next ten in one
`benchmarks/large_field.py --steady-only` run and 17% slower in another (docs/benchmarks.md, "A large
field")."""
QUIET_S = 8.0
PLAYING_S = 8.0
CALL_TIMEOUT_S = 60.0
COMMAND_TIMEOUT_S = patience(START_TIMEOUT_S + 60.0)
"""A command's bound: the field's start may take the command line's whole START_TIMEOUT_S."""
STEADY = "--seats 2 --games-per-table 2000 --concurrency 4 --move-ms 5000 --seed 1"
"""The steady tournament: four real bots at 2-seat tables, as fast as they and the arena go."""
FIELD = "--seats 4 --absent-wait-ms 1000 --seed 2"
STORAGE_ERRORS = ("database is locked", "database is unavailable", "database is busy")
"""What must never reach a tournament or an organiser's command while the field weighs on storage."""


@dataclass
class Window:
    """The steady tournament's finished games at the start and end of a phase, and when; and the
    CPU seconds the arena and this process (the field's clients and relays) had used by then."""

    started: float
    games_at_start: int
    cpu_at_start: tuple[float, float] = (0.0, 0.0)
    ended: float = 0.0
    games_at_end: int = 0
    cpu_at_end: tuple[float, float] = (0.0, 0.0)

    def cores(self) -> tuple[float, float]:
        """How much of a core the arena and this process used over the window, on average."""
        seconds = max(self.ended - self.started, 1e-9)
        arena, here = (end - start for end, start in zip(self.cpu_at_end, self.cpu_at_start, strict=True))
        return arena / seconds, here / seconds

    @property
    def rate(self) -> float:
        return (self.games_at_end - self.games_at_start) / max(self.ended - self.started, 1e-9)


@dataclass(frozen=True)
class Sample:
    """The steady tournament's finished games and the arena's CPU seconds so far, `elapsed` seconds in."""

    elapsed: float
    games: int
    arena_cpu_s: float


@dataclass
class FieldCost:
    """The field's registrations and entries on an otherwise idle arena (`Scenario.run_field`)."""

    registered: int = 0
    entered: int = 0
    seconds: float = 0.0
    arena_cpu_s: float = 0.0


@dataclass
class Outcome:
    """What a run saw."""

    windows: dict[str, Window] = field(default_factory=dict)
    registered: int = 0
    entered: int = 0
    refused_full: int = 0
    refused_other: list[str] = field(default_factory=list)
    start_output: str = ""
    start_code: int | None = None
    start_s: float = 0.0
    small_output: str = ""
    small_code: int | None = None
    field_games: int = 0
    field_status: str = ""
    steady_status: str = ""
    small_status: str = ""
    small_finished: int = 0
    small_total: int = 0
    log: str = ""

    def ratio(self, phase: str) -> float:
        quiet = self.windows["quiet"].rate
        return self.windows[phase].rate / quiet if quiet else 0.0

    def storage_errors(self) -> list[str]:
        """Lines of the arena's log and of the commands' outputs naming a storage error."""
        texts = (self.log, self.start_output, self.small_output, *self.refused_other)
        return [line for text in texts for line in text.splitlines() if any(e in line for e in STORAGE_ERRORS)]

    def stops(self) -> list[str]:
        """Lines of the arena's log saying a tournament's play stopped or failed."""
        return [line for line in self.log.splitlines() if " stopped: " in line or "failed, the others go on" in line]


class Scenario:
    """The run on one database: `await Scenario(url, workdir).run()`."""

    def __init__(
        self, url: str, workdir: Path, *, bots: int = FIELD_BOTS, hosts: int = HOSTS, server_options: Sequence[str] = ()
    ) -> None:
        self.url = url
        self.workdir = workdir
        self.bots = bots
        self.hosts = hosts
        self.server_options = tuple(server_options)
        self.procs: list[subprocess.Popen[bytes]] = []
        self.outcome = Outcome()

    async def run(self) -> Outcome:
        await self._with_arena(self._play)
        return self.outcome

    async def run_steady(self, seconds: float, window_s: float = 10.0) -> list[Sample]:
        """The steady tournament alone for `seconds`: a sample every `window_s` (does a long
        tournament slow down as it plays?)."""
        samples: list[Sample] = []

        async def play(arena: ArenaProcess) -> None:
            await self._create("steady", STEADY)
            await self._enter("steady", ["s1", "s2", "s3", "s4"])
            await self._command("tournament", "start", "steady")
            began = time.monotonic()
            while (elapsed := time.monotonic() - began) < seconds:
                samples.append(Sample(elapsed, await self._finished("steady"), _cpu_s(arena.proc.pid)))
                await asyncio.sleep(window_s)

        await self._with_arena(play)
        return samples

    async def run_field(self) -> FieldCost:
        """The field alone registering and entering an arena with nothing else to do: what it
        costs the arena, which the steady tournament otherwise shares the interpreter with."""
        cost = FieldCost()

        async def play(arena: ArenaProcess) -> None:
            await self._create("field", FIELD)
            before, began = _cpu_s(arena.proc.pid), time.monotonic()
            await self._field()
            cost.seconds, cost.arena_cpu_s = time.monotonic() - began, _cpu_s(arena.proc.pid) - before
            cost.registered, cost.entered = self.outcome.registered, self.outcome.entered

        await self._with_arena(play)
        return cost

    async def _with_arena(self, play: Callable[[ArenaProcess], Awaitable[None]]) -> None:
        log = self.workdir / "arena.log"
        arena = ArenaProcess(self.url, log, "--http-port", "0", *self.server_options)
        assert arena.admin_token is not None
        self.arena, self.admin = arena, arena.admin_token
        channel = grpc.aio.insecure_channel(arena.target)
        self.stub = arena_pb2_grpc.ArenaStub(channel)
        try:
            await play(arena)
        finally:
            for proc in self.procs:
                proc.kill()
                proc.wait(timeout=10)
            await channel.close()
            arena.stop()
            self.outcome.log = log.read_text()

    async def _create(self, name: str, options: str) -> None:
        await self._command("tournament", "create", name, *options.split(), "--starts-at", "+1d")

    async def _enter(self, tournament: str, names: list[str]) -> None:
        """Register each of `names`, enter it in `tournament` and start its bot process."""
        for name in names:
            token = await REGISTER_BOT.ask(self.stub, name=name, timeout=CALL_TIMEOUT_S)
            await ENTER_TOURNAMENT.ask(
                self.stub, tournament=tournament, entry_code=None, metadata=_bearer(token), timeout=CALL_TIMEOUT_S
            )
            self._bot(token, name)

    async def _play(self, arena: ArenaProcess) -> None:
        out = self.outcome
        for name, options in (
            ("steady", STEADY),
            ("field", FIELD),
            ("small", "--seats 3 --games-per-table 2 --seed 3"),
        ):
            await self._create(name, options)
        await self._enter("steady", ["s1", "s2", "s3", "s4"])
        await self._enter("small", ["c1", "c2", "c3"])
        await self._command("tournament", "start", "steady")
        await self._until(
            lambda: self._finished("steady"),
            lambda n: n >= WARM_UP_GAMES,
            f"the steady tournament to play {WARM_UP_GAMES} games",
            timeout=patience(120.0),
        )

        out.windows["quiet"] = await self._window()
        await asyncio.sleep(QUIET_S)
        await self._close(out.windows["quiet"])

        out.windows["entering"] = await self._window()
        await self._field()
        await self._close(out.windows["entering"])

        out.windows["starting"] = await self._window()
        began = time.monotonic()
        start = asyncio.create_task(self._command("tournament", "start", "field", check=False))
        await asyncio.sleep(0.5)
        out.small_code, out.small_output = await self._command("tournament", "start", "small", check=False)
        out.start_code, out.start_output = await start
        out.start_s = time.monotonic() - began
        await self._close(out.windows["starting"])

        out.windows["playing"] = await self._window()
        await asyncio.sleep(PLAYING_S)
        await self._close(out.windows["playing"])
        await self._until(
            lambda: self._show("small"), lambda t: t.status == 3, "the small tournament to finish", timeout=120
        )
        for name, attr in (("steady", "steady"), ("field", "field"), ("small", "small")):
            shown = await self._show(name)
            setattr(out, f"{attr}_status", _STATUS.get(shown.status, str(shown.status)))
            if name == "field":
                out.field_games = _total(shown.games)
            if name == "small":
                out.small_finished = shown.games.finished
                out.small_total = _total(shown.games)

    async def _field(self) -> None:
        """Register `bots` bots from `hosts` addresses and enter each in the field tournament."""
        opened: set[asyncio.StreamWriter] = set()
        ports = [await relay(f"127.0.0.{h + 2}", self.arena.target, opened) for h in range(self.hosts)]
        channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p}") for p in ports]
        names = [f"field{i:04d}" for i in range(self.bots)]
        out = self.outcome

        async def one(name: str, stub: Any) -> None:
            token = await REGISTER_BOT.ask(stub, name=name, timeout=CALL_TIMEOUT_S)
            out.registered += 1
            try:
                await ENTER_TOURNAMENT.ask(
                    stub, tournament="field", entry_code=None, metadata=_bearer(token), timeout=CALL_TIMEOUT_S
                )
                out.entered += 1
            except grpc.aio.AioRpcError as exc:
                if exc.code() is grpc.StatusCode.FAILED_PRECONDITION and "is full" in (exc.details() or ""):
                    out.refused_full += 1
                else:
                    out.refused_other.append(f"{exc.code().name}: {exc.details()}")

        async def host(index: int) -> None:
            stub = arena_pb2_grpc.ArenaStub(channels[index])
            mine = names[index :: self.hosts]
            for first in range(0, len(mine), IN_FLIGHT_PER_HOST):
                await asyncio.gather(*(one(n, stub) for n in mine[first : first + IN_FLIGHT_PER_HOST]))

        try:
            await asyncio.gather(*(host(i) for i in range(self.hosts)))
        finally:
            for channel in channels:
                await channel.close()
            for writer in opened:
                writer.close()

    def _bot(self, token: str, name: str) -> None:
        log = (self.workdir / f"{name}.log").open("wb")
        self.procs.append(
            subprocess.Popen(
                [sys.executable, str(BOT_PROGRAM), "--target", self.arena.target, "--token", token],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        )

    async def _command(self, *args: str, check: bool = True) -> tuple[int, str]:
        """`scout-arena ARGS --server ...` with the admin token: its exit status and output."""
        env = {**os.environ, "SCOUT_ARENA_ADMIN_TOKEN": self.admin}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "arena",
            *args,
            "--server",
            self.arena.target,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        output, _ = await asyncio.wait_for(proc.communicate(), COMMAND_TIMEOUT_S)
        text = output.decode(errors="replace")
        assert proc.returncode is not None
        if check:
            assert proc.returncode == 0, f"scout-arena {' '.join(args)}: {text}"
        return proc.returncode, text

    async def _show(self, name: str) -> Any:
        reply = await self.stub.ShowTournament(
            request("ShowTournament", name=name), metadata=_bearer(self.admin), timeout=CALL_TIMEOUT_S
        )
        return reply.tournament

    async def _finished(self, name: str) -> int:
        return int((await self._show(name)).games.finished)

    async def _window(self) -> Window:
        return Window(time.monotonic(), await self._finished("steady"), self._cpu())

    async def _close(self, window: Window) -> None:
        window.games_at_end = await self._finished("steady")
        window.ended = time.monotonic()
        window.cpu_at_end = self._cpu()

    def _cpu(self) -> tuple[float, float]:
        return _cpu_s(self.arena.proc.pid), time.process_time()

    async def _until(
        self, read: Callable[[], Awaitable[T]], done: Callable[[T], bool], what: str, timeout: float = 60.0
    ) -> T:
        deadline = time.monotonic() + timeout
        while True:
            value = await read()
            if done(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:g} s waiting for {what}: {value}")
            await asyncio.sleep(0.2)


_STATUS = {1: "scheduled", 2: "running", 3: "finished", 4: "failed"}


def _cpu_s(pid: int) -> float:
    """CPU seconds (user and system) the process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _total(games: Any) -> int:
    return int(games.scheduled + games.running + games.played + games.finished)


def _bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]
