"""The start-up check of the open-file limit against the connection cap (arena.api.resources): a server
process whose limit is too low refuses to start with one line naming what to change, and one whose
soft limit is low but hard limit high enough raises its soft limit and starts."""

from __future__ import annotations

import json
import resource
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.api.resources import FD_RESERVE

START_TIMEOUT_S = 30.0


def server(soft: int, hard: int, *args: str) -> subprocess.Popen[str]:
    """`scout-arena serve --in-memory --port 0 ARGS` with RLIMIT_NOFILE set to (soft, hard) before it runs."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--json", "--in-memory", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)),
    )


def test_a_limit_too_low_for_the_connection_cap_refuses_to_start_with_one_line() -> None:
    proc = server(256, 256, "--max-connections", "1000")
    out, err = proc.communicate(timeout=START_TIMEOUT_S)
    assert proc.returncode == 1
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"lower --max-connections to {256 - FD_RESERVE}" in lines[0] and "open-file limit" in lines[0], lines[0]


def test_a_low_soft_limit_is_raised_toward_the_hard_one() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    needed = 1000 + FD_RESERVE
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"this process's hard open-file limit ({hard}) is below {needed}")
    proc = server(256, hard, "--max-connections", "1000")
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        assert ready, "the server did not start"
        assert json.loads(proc.stdout.readline())["port"] > 0
        limits = Path(f"/proc/{proc.pid}/limits").read_text().splitlines()
        soft = next(line for line in limits if line.startswith("Max open files")).split()[3]
        assert int(soft) == needed
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
