"""Walking through the README as its reader does: its commands, in order, run for real.

A walk is one shell session in a fresh directory. Each command line runs with bash there, and what
it leaves in the shell's environment (`export`, `source`) stays for the next, as in the reader's
shell. A command the README has the reader give "in another terminal", an arena (`scout-arena
serve`) or a bot (`scout-bot run`), runs in the background, each in a process (group) of its own. A
python block the prose says to save ("Save this as `my_bot.py`") is saved under that name.

These are the only rewrites of a README line, each mechanical (`Walk.rewrite`):

- PORT: the README's port, 50051, is a free port wherever a line names it; the address both
  command lines use when a line names none (127.0.0.1:50051) is that port too, through the
  environment variables their `--server`/`--target` options read.
- WEB PORT: the web pages' port, 8080 by default, is a free port too, wherever a line names it and
  through SCOUT_ARENA_HTTP_PORT (which `serve --http-port` and `web --port` read): the walk runs
  beside an arena of the reader's own on the default ports (`test_readme.py` holds both).
- TOKEN: the placeholder `the-token-serve-printed` is the admin token the arena printed.
- VENV: the walk's directory holds `.venv`, a link to the virtual environment running the tests,
  so `source .venv/bin/activate` and `.venv/bin/...` are that environment. Of the set-up line that
  creates it, installs into it and runs the demo, the walk runs the demo (`--games-per-table 1` is
  added unless the walk is verbatim; the set-up line runs whole and verbatim in a slow test).
- POSTGRES: a `postgresql+psycopg://` URL is the URL of a fresh schema on the test server.

The environment starts as the reader's would: no SCOUT_* or PG* variables, no virtual
environment on PATH, a home directory of its own (where bots save their tokens).

The walk waits where the reader does: for an arena to say it listens (and read its token), for
the bots it started to have entered their tournament before it gives the next command, and, at the
end of their section, for the bots to stop by themselves (they stop once their tournament has
finished). Every command must succeed without a traceback, and each kind of command's output must
make sense (`CHECKS`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from arena.cli.app import app as arena_app
from arena.cli.local import LocalArena
from arena.records import GameStatus
from sdk.cli import app as bot_app
from sdk.env import HTTP_PORT
from sdk.loading import load_bot
from tests.docs.readme import README, Command, blocks, commands_of, option_envvars, parse

README_PORT = "50051"
README_WEB_PORT = "8080"
TOKEN_PLACEHOLDER = "the-token-serve-printed"
POSTGRES_URL = re.compile(r"postgresql\+psycopg://\S+")
QUICK_DEMO = ["--games-per-table", "1"]
"""What the walk adds to `scout-arena demo` unless verbatim: five games instead of forty."""

PROGRAMS: dict[str, typer.Typer] = {"scout-arena": arena_app, "scout-bot": bot_app}
BACKGROUND = {"scout-arena serve", "scout-bot run"}
"""Commands that do not return: the README has the reader give them in another terminal."""

COMMAND_TIMEOUT_S = 300.0
START_TIMEOUT_S = 60.0
ENTRY_TIMEOUT_S = 90.0
TOURNAMENT_TIMEOUT_S = 300.0
"""Generous bounds (two shared, loaded cores): a stuck walk fails instead of hanging."""


# ---- what the walk runs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """A README command to give, or a README block to save as a file."""

    section: str
    command: Command | None = None
    save_as: str | None = None
    text: str = ""


def readme_steps(path: Path = README) -> list[Step]:
    """Every step of the README, in order."""
    found: list[Step] = []
    for block in blocks(path):
        if block.saved_as is not None:
            found.append(Step(block.section, save_as=block.saved_as, text=block.text))
        found.extend(Step(block.section, command=c) for c in commands_of(block))
    return found


def program_of(argv: list[str]) -> str | None:
    """The project command line `argv` runs (`scout-arena`, `scout-bot`), if any."""
    name = Path(argv[0]).name if argv else ""
    return name if name in PROGRAMS else None


def command_path(argv: list[str]) -> tuple[str, Any] | None:
    """("scout-arena tournament create", parsed context) for a project command line, else None."""
    return _parsed(tuple(argv))


@functools.cache
def _parsed(argv: tuple[str, ...]) -> tuple[str, Any] | None:
    program = program_of(list(argv))
    if program is None:
        return None
    return parse(PROGRAMS[program], program, list(argv[1:]))


def path_of(command: Command) -> str | None:
    """The command path ("scout-arena serve") a README command runs, None for the shell's own."""
    found = command_path(command.argv)
    return found[0] if found else None


def is_serve(step: Step) -> bool:
    return step.command is not None and path_of(step.command) == "scout-arena serve"


def setup_demo(line: str) -> str | None:
    """The part of a set-up line (`A && B && .venv/bin/scout-arena demo`) that runs the demo."""
    for part in line.split("&&"):
        if path_of(Command(part.strip(), "")) == "scout-arena demo":
            return part.strip()
    return None


# ---- the reader's shell -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def reader_environment(home: Path, address: str, web_port: int) -> dict[str, str]:
    """A new terminal's environment: none of the project's or libpq's variables, no virtual
    environment active, its own home, and the default arena address and web port (rules PORT and
    WEB PORT)."""
    venv_bin = str(Path(sys.prefix) / "bin")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SCOUT_", "PG", "XDG_")) and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env["HOME"] = str(home)
    for app, option in ((arena_app, "--server"), (bot_app, "--target")):
        for name in option_envvars(app, option):
            env[name] = address
    env[HTTP_PORT] = str(web_port)
    return env


@dataclass
class Ran:
    """A command line as given (after the rewrites) and what it printed."""

    step: Step
    line: str
    path: str | None
    ctx: Any
    out: str
    err: str


@dataclass
class Process:
    """A command running in the background ("in another terminal")."""

    step: Step
    line: str
    path: str
    ctx: Any
    proc: subprocess.Popen[bytes]
    out: Path
    err: Path

    def logs(self) -> str:
        return f"{self.line}\n--- stdout\n{self.out.read_text()[-3000:]}\n--- stderr\n{self.err.read_text()[-3000:]}"


@dataclass
class Walk:
    """One reader's session; `given` lists every README command it gave, in order."""

    where: Path
    verbatim: bool = False
    postgres_url: str | None = None
    port: int = field(default_factory=free_port)
    web_port: int = field(default_factory=free_port)
    given: list[Command] = field(default_factory=list)
    ran: list[Ran] = field(default_factory=list)
    background: list[Process] = field(default_factory=list)
    admin_token: str | None = None
    tournaments: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        (self.where / ".venv").symlink_to(sys.prefix, target_is_directory=True)
        (self.where / "home").mkdir()
        self.env = reader_environment(self.where / "home", self.address, self.web_port)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    # ---- the rewrites ----

    def rewrite(self, line: str) -> str:
        line = re.sub(rf"(?<![0-9]){README_PORT}(?![0-9])", str(self.port), line)
        line = re.sub(rf"(?<![0-9]){README_WEB_PORT}(?![0-9])", str(self.web_port), line)
        if TOKEN_PLACEHOLDER in line:
            assert self.admin_token is not None, f"{line}: no arena has printed its admin token"
            line = line.replace(TOKEN_PLACEHOLDER, self.admin_token)
        if self.postgres_url is not None:
            line = POSTGRES_URL.sub(lambda _: shlex.quote(self.postgres_url or ""), line)
        return line

    # ---- giving the steps ----

    def walk(self, steps: list[Step]) -> None:
        section = None
        for step in steps:
            if step.section != section:
                self.bots_stop_by_themselves()
                section = step.section
            if step.save_as is not None:
                (self.where / step.save_as).write_text(step.text)
            elif step.command is not None:
                self.give(step)
        self.bots_stop_by_themselves()

    def give(self, step: Step) -> None:
        assert step.command is not None
        line = step.command.line
        demo = setup_demo(line) if line.startswith("python3 -m venv") else None
        if demo is not None:
            line = demo if self.verbatim else f"{demo} {shlex.join(QUICK_DEMO)}"
        line = self.rewrite(line)
        found = command_path(shlex.split(line))
        path, ctx = found if found else (None, None)
        if path in BACKGROUND:
            self.start(step, line, path, ctx)
        else:
            self.bots_have_entered()
            self.run(step, line, path, ctx)
        self.given.append(step.command)

    def run(self, step: Step, line: str, path: str | None, ctx: Any) -> None:
        """Give `line` to the shell and keep the environment it leaves."""
        saved = self.where / ".walk-env"
        script = f"{{ {line}\n}} && env -0 > {shlex.quote(str(saved))}"
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=self.where,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )
        assert done.returncode == 0, (
            f"{line}: exit status {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
        assert "Traceback" not in done.stderr, f"{line}:\n{done.stderr[-3000:]}"
        self.env = dict(item.split("=", 1) for item in saved.read_text().split("\0") if "=" in item)
        for name in ("_", "SHLVL", "OLDPWD"):
            self.env.pop(name, None)
        ran = Ran(step, line, path, ctx, done.stdout, done.stderr)
        self.ran.append(ran)
        if path is not None:
            CHECKS.get(path, lambda walk, ran: None)(self, ran)

    def start(self, step: Step, line: str, path: str, ctx: Any) -> None:
        """Start `line` "in another terminal": its own process group, its output in files."""
        n = len(self.background)
        out, err = self.where / f".walk-{n}.out", self.where / f".walk-{n}.err"
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {line}"],
            cwd=self.where,
            env=dict(self.env),
            stdout=out.open("wb"),
            stderr=err.open("wb"),
            start_new_session=True,
        )
        process = Process(step, line, path, ctx, proc, out, err)
        self.background.append(process)
        if path == "scout-arena serve":
            self.arena_listens(process)

    # ---- waiting as the reader does ----

    def arena_listens(self, arena: Process) -> None:
        """Until the arena says it listens (on the walk's port), then read the admin token it printed."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while not re.search(r"^Admin token\b", arena.out.read_text(), re.MULTILINE):
            assert arena.proc.poll() is None, f"the arena exited with {arena.proc.returncode}:\n{arena.logs()}"
            assert time.monotonic() < deadline, f"the arena did not start in {START_TIMEOUT_S} s:\n{arena.logs()}"
            time.sleep(0.2)
        out = arena.out.read_text()
        assert re.search(rf"^Scout Arena listening on \S+:{self.port}\b", out, re.MULTILINE), out
        printed = re.search(r"^Admin token \(.*\): (\S+)$", out, re.MULTILINE)
        if printed:
            self.admin_token = printed[1]

    def running_bots(self) -> list[Process]:
        """The bots started and not yet seen to stop (`bots_stop_by_themselves`)."""
        return [p for p in self.background if p.path == "scout-bot run" and p.proc.returncode is None]

    def bots_have_entered(self) -> None:
        """Before the next command, the bots started for a tournament have all entered it."""
        waiting = [b for b in self.running_bots() if b.ctx.params.get("tournament")]
        for name in {b.ctx.params["tournament"] for b in waiting}:
            expected = sum(
                1 for b in self.background if b.path == "scout-bot run" and b.ctx.params.get("tournament") == name
            )
            deadline = time.monotonic() + ENTRY_TIMEOUT_S
            while len(self.entrants(name)) < expected:
                for bot in waiting:
                    assert bot.proc.poll() is None, f"a bot exited with {bot.proc.returncode}:\n{bot.logs()}"
                assert time.monotonic() < deadline, f"the bots did not all enter {name!r}:\n" + "\n".join(
                    b.logs() for b in waiting
                )
                time.sleep(0.3)

    def entrants(self, tournament: str) -> tuple[str, ...]:
        with self.client() as client:
            return client.tournament(tournament).entrants

    def bots_stop_by_themselves(self) -> None:
        """A bot entered in a tournament stops once it has finished: each exits 0 on its own."""
        for bot in self.running_bots():
            try:
                code = bot.proc.wait(timeout=TOURNAMENT_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"a bot still runs {TOURNAMENT_TIMEOUT_S} s on:\n{bot.logs()}") from None
            assert code == 0, f"a bot exited with {code}:\n{bot.logs()}"
            assert "Traceback" not in bot.err.read_text(), bot.logs()

    def stop(self) -> list[tuple[Process, int]]:
        """Stop what still runs, as Ctrl-C in its terminal would (SIGINT to its group); the codes."""
        codes = []
        for process in self.background:
            if process.proc.poll() is None:
                os.killpg(process.proc.pid, signal.SIGINT)
                try:
                    process.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.proc.pid, signal.SIGKILL)
                    process.proc.wait()
                codes.append((process, process.proc.returncode))
        return codes

    # ---- reading the arena, to check what the commands printed ----

    def client(self, db: str | None = None) -> closing[LocalArena]:
        """The database `db` (a command's `--db`, relative to the walk's directory), else the one
        the arena serves: read directly, so the checks spend none of the reader's read budget
        (the arena limits reads per host, and the walk's commands and checks share one host)."""
        if db is None:
            (arena,) = [p for p in self.background if p.path == "scout-arena serve" and p.proc.poll() is None]
            db = str(arena.ctx.params["db"])
        for prefix in ("sqlite:///", ""):
            rest = db[len(prefix) :]
            if db.startswith(prefix) and "://" not in rest and not rest.startswith("/"):
                db = f"sqlite:///{self.where / rest}"
                break
        return closing(LocalArena.open(db))


# ---- what each kind of command must print ---------------------------------------------------------


def _bot_name(walk: Walk, spec: str) -> str:
    return load_bot(str(walk.where / spec) if (walk.where / spec).is_file() else spec).name


def _tournaments_of(walk: Walk, ran: Ran) -> list[str]:
    named = ran.ctx.params.get("tournament")
    if named:
        return [named]
    with walk.client(ran.ctx.params.get("db")) as client:
        return [t.name for t in client.tournaments()]


def _entrants_of(walk: Walk, ran: Ran) -> set[str]:
    with walk.client(ran.ctx.params.get("db")) as client:
        return {e for name in _tournaments_of(walk, ran) for e in client.tournament(name).entrants}


def check_demo(walk: Walk, ran: Ran) -> None:
    assert "Ratings: tournament" in ran.out, ran.out
    kept = re.search(r"^The database is (\S+?)\.? Look closer", ran.out, re.MULTILINE)
    assert kept and (walk.where / kept[1]).is_file(), ran.out


def check_play(walk: Walk, ran: Ran) -> None:
    assert _bot_name(walk, ran.ctx.params["bot"]) in ran.out, ran.out


def check_check(walk: Walk, ran: Ran) -> None:
    assert f"PASS {_bot_name(walk, ran.ctx.params['bot'])}" in ran.out, ran.out


def check_create(walk: Walk, ran: Ran) -> None:
    name = ran.ctx.params["name"]
    assert f"Created tournament {name!r}" in ran.out, ran.out
    walk.tournaments.add(name)


def check_show(walk: Walk, ran: Ran) -> None:
    name = ran.ctx.params["name"]
    assert re.search(rf"^tournament\s+{re.escape(name)}\s*$", ran.out, re.MULTILINE), ran.out
    for entrant in walk.entrants(name):
        assert entrant in ran.out, f"{entrant} entered but is not shown:\n{ran.out}"


def check_start(walk: Walk, ran: Ran) -> None:
    name = ran.ctx.params["name"]
    bots = [b for b in walk.background if b.path == "scout-bot run" and b.ctx.params.get("tournament") == name]
    assert re.search(
        rf"^Started tournament {re.escape(repr(name))}: \d+ games scheduled among {len(bots)} entrants",
        ran.out,
        re.MULTILINE,
    ), ran.out


def check_list(walk: Walk, ran: Ran) -> None:
    for name in walk.tournaments:
        assert re.search(rf"^│ {re.escape(name)}\s", ran.out, re.MULTILINE), f"{name} is not listed:\n{ran.out}"


def check_ratings(walk: Walk, ran: Ran) -> None:
    entrants = _entrants_of(walk, ran)
    assert entrants, "there are bots to rate"
    for entrant in entrants:
        assert re.search(rf"│ {re.escape(entrant)}\s+│", ran.out), f"{entrant} has no rating:\n{ran.out}"


def check_head_to_head(walk: Walk, ran: Ran) -> None:
    """Every pair that shared a game has its line, with its games, in either order."""
    with walk.client(ran.ctx.params.get("db")) as client:
        pairs = client.head_to_head(ran.ctx.params.get("tournament")).pairs
    assert pairs, f"the bots shared games:\n{ran.out}"
    for p in pairs:
        a, b = re.escape(p.bot), re.escape(p.other)
        assert re.search(rf"│ ({a}\s+│ {b}|{b}\s+│ {a})\s+│\s+{p.games} │", ran.out), f"{p} is not shown:\n{ran.out}"


def _finished_games(walk: Walk, ran: Ran) -> list[int]:
    with walk.client(ran.ctx.params.get("db")) as client:
        return [g.id for g in client.games(ran.ctx.params.get("tournament"), GameStatus.FINISHED)]


def check_games_list(walk: Walk, ran: Ran) -> None:
    listed = {int(n) for n in re.findall(r"^│\s*(\d+) │", ran.out, re.MULTILINE)}
    finished = _finished_games(walk, ran)
    assert finished and set(finished) <= listed, ran.out


def check_games_show(walk: Walk, ran: Ran) -> None:
    game = ran.ctx.params["game_id"]
    assert ran.out.startswith(f"Game {game}:"), ran.out[:500]
    assert re.search(r"^ +1\. \S+ (shows|scouts)", ran.out, re.MULTILINE), "it replays the moves"


def check_export(walk: Walk, ran: Ran) -> None:
    lines = [json.loads(line) for line in ran.out.splitlines()]
    assert sorted(g["id"] for g in lines) == sorted(_finished_games(walk, ran)), ran.out[:500]
    if ran.ctx.params.get("tournament"):
        assert {g["tournament"] for g in lines} == {ran.ctx.params["tournament"]}


def check_verify(walk: Walk, ran: Ran) -> None:
    for name in _tournaments_of(walk, ran):
        assert f"tournament {name!r} verified" in ran.out, ran.out


CHECKS: dict[str, Callable[[Walk, Ran], None]] = {
    "scout-arena demo": check_demo,
    "scout-bot play": check_play,
    "scout-bot check": check_check,
    "scout-arena tournament create": check_create,
    "scout-arena tournament show": check_show,
    "scout-arena tournament start": check_start,
    "scout-arena tournament list": check_list,
    "scout-arena ratings": check_ratings,
    "scout-arena head-to-head": check_head_to_head,
    "scout-arena games list": check_games_list,
    "scout-arena games show": check_games_show,
    "scout-arena games export": check_export,
    "scout-arena games verify": check_verify,
}
"""What a command of each kind must print, read against the arena (or database) it worked on.
Every command must also exit 0 without a traceback; an arena must listen on the walk's port and a
bot must stop by itself with status 0 (`Walk`)."""


# ---- which walk gives which command ---------------------------------------------------------------

MAIN = "run by the README walk"
POSTGRES = "run by the PostgreSQL walk (needs SCOUT_TEST_POSTGRES_URL, as every PostgreSQL test)"
DOCKER = "validated against docker/compose.yaml: this machine has no `docker compose` to run it"
TEST_COMMAND = "the README's test command: .ci/run runs it"


def runs_tests(command: Command) -> bool:
    """A line that runs the test suite (`[VAR=value ...] .venv/bin/pytest`, or a set-up line ending so)."""
    last = shlex.split(command.line.split("&&")[-1])
    while last and re.fullmatch(r"[A-Za-z_]\w*=.*", last[0]):
        last = last[1:]
    return bool(last) and last[0] == ".venv/bin/pytest"


def sections_running(steps: list[Step], test: Callable[[Command], bool]) -> set[str]:
    return {s.section for s in steps if s.command is not None and test(s.command)}


def _docker(command: Command) -> bool:
    return command.argv[0] == "docker"


def _postgres_serve(command: Command) -> bool:
    return path_of(command) == "scout-arena serve" and bool(POSTGRES_URL.search(command.line))


def how_run(step: Step, steps: list[Step]) -> str:
    """Which walk gives a README command (or why none can here)."""
    assert step.command is not None
    if runs_tests(step.command):
        return TEST_COMMAND
    if step.section in sections_running(steps, _docker):
        return DOCKER
    if step.section in sections_running(steps, _postgres_serve):
        return POSTGRES
    return MAIN


def main_walk(steps: list[Step]) -> list[Step]:
    """The README top to bottom, but for what only the PostgreSQL and Docker walks can give."""
    return [s for s in steps if s.command is None or how_run(s, steps) == MAIN]


def postgres_walk(steps: list[Step]) -> list[Step]:
    """The README's "everything else is the same": the main walk from its first arena on, with the
    PostgreSQL section's commands in place of each SQLite `serve`; before it, only what sets the
    shell and the files up (saved files, `source`, `export`), not the demo or local play."""
    main = main_walk(steps)
    postgres = [s for s in steps if s.command is not None and how_run(s, steps) == POSTGRES]
    first = next(i for i, s in enumerate(main) if is_serve(s))
    prepared = [s for s in main[:first] if s.command is None or s.command.argv[0] in ("source", ".", "export")]
    rest: list[Step] = []
    for step in main[first:]:
        rest.extend(postgres if is_serve(step) else [step])
    return [*prepared, *rest]
