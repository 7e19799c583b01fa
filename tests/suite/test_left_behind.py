"""Nothing a test starts outlives it: a failing test's servers are gone once it has ended.

Each case runs an inner pytest on a small failing test file that starts an arena server (through
the session's `arena` fixture, through tests/tournaments/arena_process.py without stopping it, or a
server that starts a child of its own in its process group and then dies), and checks afterwards
that no process it recorded still runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import alive, all_processes
from tests.timeouts import PLAY_S, STOP_S

ROOT = Path(__file__).resolve().parents[2]

FAILING = {
    "session-arena": """
def test_fails(arena):
    PIDS.write_text(str(arena.proc.pid))
    assert False, "failing on purpose"
""",
    "arena-process": """
from tests.tournaments.arena_process import ArenaProcess

def test_fails(tmp_path):
    server = ArenaProcess(f"sqlite:///{tmp_path / 'a.db'}", tmp_path / "arena.log")
    PIDS.write_text(str(server.proc.pid))
    assert False, "failing on purpose, the server left running"
""",
    "orphaned-group": """
import subprocess, sys

def test_fails():
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time; "
         "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); print(c.pid, flush=True)"],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )
    child = int(parent.stdout.readline())
    parent.wait()
    PIDS.write_text(f"{parent.pid} {child}")
    assert False, "failing on purpose, a grandchild orphaned in its group"
""",
}


@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_failing_tests_processes_are_gone_after_it(case: str, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    test = tmp_path / "test_inner.py"
    test.write_text(f"from pathlib import Path\n\nPIDS = Path({str(pids)!r})\n{FAILING[case]}")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-p", "tests.conftest", str(test)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PLAY_S,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1 and "1 failed" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    started = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + STOP_S
    while running := [p for p in started if alive(p)]:
        assert time.monotonic() < deadline, f"still running after the failing test: {running}"
        time.sleep(0.1)
    assert not [s for s in all_processes() if s.pgrp in started and not s.zombie], "a process of its group survived"
