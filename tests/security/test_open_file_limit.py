"""The start-up check of the open-file limit against every listener's connection cap
(arena.api.resources): a server process whose limit is too low for the gRPC port's and the web port's
caps together refuses to start with one line naming what to change, one whose soft limit is low but
hard limit high enough raises its soft limit to fit them and starts, and `scout-arena web` checks its
own cap the same way."""

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
from arena.web.limits import WebLimits
from tests.processes import with_open_file_limit
from tests.timeouts import START_S

START_TIMEOUT_S = START_S
BOTH = 1000 + WebLimits().max_connections + FD_RESERVE
"""What the default caps of both listeners need."""


def run(soft: int, hard: int, *args: str) -> subprocess.Popen[str]:
    """`python -m arena ARGS` with RLIMIT_NOFILE set to (soft, hard) before it runs."""
    return subprocess.Popen(
        with_open_file_limit([sys.executable, "-m", "arena", *args], soft, hard),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def server(soft: int, hard: int, *args: str) -> subprocess.Popen[str]:
    """`scout-arena serve --json --port 0 ARGS` under (soft, hard)."""
    return run(soft, hard, "serve", "--json", "--port", "0", *args)


def refusal(proc: subprocess.Popen[str]) -> str:
    """The one line a process that refused to start wrote, once it has exited 1 without output."""
    out, err = proc.communicate(timeout=START_TIMEOUT_S)
    assert proc.returncode == 1, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_limit_too_low_for_the_grpc_cap_refuses_to_start_with_one_line() -> None:
    line = refusal(server(400, 400, "--in-memory", "--max-connections", "1000"))
    assert f"--max-connections 1000 needs {1000 + FD_RESERVE} open files" in line, line
    assert f"lower --max-connections to {400 - FD_RESERVE}" in line and "open-file limit" in line, line


def test_a_limit_too_low_for_both_listeners_caps_refuses_to_start_with_one_line(tmp_path: Path) -> None:
    """1,500 is enough for the gRPC cap alone (1,000 + the reserve), not with the web port's beside it."""
    line = refusal(server(1500, 1500, "--db", str(tmp_path / "a.db"), "--http-port", "0"))
    assert f"--max-connections 1000 and --web-max-connections 1000 need {BOTH} open files" in line, line
    assert f"only 1500: lower them to {1500 - FD_RESERVE} together or raise the open-file limit" in line, line
    assert not (tmp_path / "a.db").exists(), "a start that refused created its database"


def test_without_pages_only_the_grpc_cap_is_counted(tmp_path: Path) -> None:
    proc = server(1000 + FD_RESERVE, 1000 + FD_RESERVE, "--db", str(tmp_path / "a.db"), "--no-http")
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        assert ready, "the server did not start"
        assert json.loads(proc.stdout.readline())["web"] is None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


def test_a_low_soft_limit_is_raised_toward_the_hard_one_for_both_listeners(tmp_path: Path) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < BOTH:
        pytest.skip(f"this process's hard open-file limit ({hard}) is below {BOTH}")
    proc = server(256, hard, "--db", str(tmp_path / "a.db"), "--http-port", "0")
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        assert ready, "the server did not start"
        assert json.loads(proc.stdout.readline())["web"].startswith("http://")
        limits = Path(f"/proc/{proc.pid}/limits").read_text().splitlines()
        soft = next(line for line in limits if line.startswith("Max open files")).split()[3]
        assert int(soft) == BOTH
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


def test_the_web_command_checks_its_own_cap(tmp_path: Path) -> None:
    line = refusal(run(400, 400, "web", "--db", str(tmp_path / "a.db"), "--port", "0"))
    assert f"--web-max-connections 1000 needs {1000 + FD_RESERVE} open files" in line, line
    assert f"lower --web-max-connections to {400 - FD_RESERVE}" in line, line
