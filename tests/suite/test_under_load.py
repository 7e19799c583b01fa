"""The suite stays green on a busy machine: a representative slice (an arena's start-up and its
listeners, the command lines, Ctrl-C) run while busy-loop processes hold every core.

The slice runs as an inner pytest, as a contributor would run it, with its own workers; the busy
processes are this test's and are killed when it ends. Slow: it takes several minutes under load."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import alive
from tests.timeouts import patience

ROOT = Path(__file__).resolve().parents[2]
SLICE = [
    "tests/cli/test_serve.py",
    "tests/api/test_server.py",
    "tests/cli/test_bot_startup.py",
    "tests/cli/test_help.py",
    "tests/sdk/test_ctrl_c.py",
]
"""Start-ups waited on, gRPC calls, CLI processes, a cut-off race, real SIGINTs."""
BUSY = "while True: pass"


@pytest.fixture
def busy_cores() -> Iterator[list[subprocess.Popen[bytes]]]:
    """One busy-loop process per core (at least two), for as long as the test runs."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(max(2, os.cpu_count() or 1))]
    try:
        yield procs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_the_slice_passes_with_every_core_busy(busy_cores: list[subprocess.Popen[bytes]]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SLICE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=patience(1800),
    )
    assert all(alive(p.pid) for p in busy_cores), "a busy process died: the slice ran on an idle machine"
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0 and " passed" in summary and "failed" not in summary, done.stdout[-5000:]
