"""Every process a test starts ends with the test, pass or fail.

tests/conftest.py installs `record_spawns` once per run: every `subprocess.Popen` (and so
`subprocess.run`, asyncio's subprocesses) made while a test runs, in its body or its function-scoped
fixtures, is recorded against it, and `end` kills what is still running once its fixtures have torn
down: the process, its descendants and, when it leads a process group of its own (start it with
`start_new_session=True`), the rest of that group, which holds grandchildren whose parent died
first. Broader fixtures' processes are recorded against the run and ended when it ends. Fixtures
stop their processes themselves (a clean exit is often what they test); this is the net under them
for the assertion that failed before the `kill`.

PIDs are reused (pid_max may be 32768): a recorded process is signalled only while its Popen has
not reaped it, and a group member only if it started after the group's leader, in its session.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STOP_WAIT_S = 30.0
"""How long a killed process may take to be reaped (SIGKILL cannot be refused; only load delays it)."""


@dataclass(frozen=True)
class ProcStat:
    """The fields of /proc/PID/stat the net reads."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    start: int
    """Start time in clock ticks since boot: a later process with a reused PID starts later."""
    zombie: bool


def proc_stat(pid: int) -> ProcStat | None:
    """The process `pid` as /proc shows it, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "PID (comm) ", comm may hold spaces
    return ProcStat(pid, int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]), fields[0] == "Z")


def all_processes() -> Iterator[ProcStat]:
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := proc_stat(int(entry))) is not None:
            yield stat


def alive(pid: int) -> bool:
    """Whether `pid` is a running process (a zombie has ended: only its exit status is left)."""
    stat = proc_stat(pid)
    return stat is not None and not stat.zombie


@dataclass
class Spawn:
    """A process a test started, as it was just after the start."""

    popen: subprocess.Popen[Any]
    leader: ProcStat | None
    """Its own /proc entry; its group is its own when `leader.pgrp == popen.pid`."""

    @property
    def line(self) -> str:
        args = self.popen.args
        return " ".join(map(str, args)) if isinstance(args, list | tuple) else str(args)


_spawns: list[list[Spawn]] = []
"""Where new processes are recorded: the run's list first, the running test's last."""


def record_spawns() -> None:
    """Make every Popen record itself in the innermost list of `_spawns` (once per run)."""
    original = subprocess.Popen.__init__
    if getattr(original, "recording", False):
        return

    @functools.wraps(original)
    def recording_init(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if _spawns:
            _spawns[-1].append(Spawn(self, proc_stat(self.pid)))

    recording_init.recording = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = recording_init  # type: ignore[method-assign]


def begin() -> list[Spawn]:
    """Start recording into a new list (a test's, or the run's), returned."""
    spawns: list[Spawn] = []
    _spawns.append(spawns)
    return spawns


def end(spawns: list[Spawn]) -> list[str]:
    """Stop recording into `spawns` and kill whatever of it still runs; returns their command lines."""
    if spawns in _spawns:
        _spawns.remove(spawns)
    table = list(all_processes())
    children: dict[int, list[ProcStat]] = {}
    for stat in table:
        children.setdefault(stat.ppid, []).append(stat)
    left: list[str] = []
    doomed: dict[int, ProcStat] = {}
    for spawn in spawns:
        running = spawn.popen.poll() is None
        if running:
            left.append(spawn.line)
            stack = [spawn.popen.pid]
            while stack:
                for child in children.get(stack.pop(), []):
                    if child.pid not in doomed and not child.zombie:
                        doomed[child.pid] = child
                        stack.append(child.pid)
        leader = spawn.leader
        if leader is not None and leader.pgrp == leader.pid:
            for stat in table:
                same_group = stat.pgrp == leader.pgrp and stat.session == leader.session
                if same_group and stat.start >= leader.start and stat.pid != spawn.popen.pid and not stat.zombie:
                    doomed[stat.pid] = stat
        if running:
            _signal(spawn.popen.pid, spawn.popen)
    for stat in doomed.values():
        now = proc_stat(stat.pid)
        if now is not None and now.start == stat.start:
            _signal(stat.pid, None)
    for spawn in spawns:
        try:
            spawn.popen.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            left.append(f"{spawn.line} (still running {STOP_WAIT_S:g} s after SIGKILL)")
    return left


def _signal(pid: int, popen: subprocess.Popen[Any] | None) -> None:
    if popen is not None and popen.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def kill_group(popen: subprocess.Popen[Any]) -> None:
    """SIGKILL `popen` and its process group (it must lead one: `start_new_session=True`), then reap it."""
    if popen.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, signal.SIGKILL)
    popen.wait(timeout=STOP_WAIT_S)


_LIMIT_THEN_EXEC = (
    "import os, resource, sys; "
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2]))); "
    "os.execv(sys.argv[3], sys.argv[3:])"
)


def with_open_file_limit(argv: list[str], soft: int, hard: int) -> list[str]:
    """`argv` run under RLIMIT_NOFILE (soft, hard), set by a fresh interpreter that then execs it.

    Not `Popen(preexec_fn=...)`: that runs Python between fork and exec in a test worker whose gRPC
    threads may hold locks the child then needs, which can hang or crash the child under load."""
    return [sys.executable, "-c", _LIMIT_THEN_EXEC, str(soft), str(hard), *argv]
