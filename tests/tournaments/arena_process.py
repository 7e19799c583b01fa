"""A real arena server process on a database, for the tests that drive one from outside."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.timeouts import START_S, STOP_S

START_TIMEOUT_S = START_S
UNTHROTTLED_READS = (
    "--read-rate",
    "100000",
    "--read-burst",
    "100000",
    "--global-read-rate",
    "100000",
    "--global-read-burst",
    "100000",
)
"""The read limits of an arena most tests start: they read far more often from one host than a
stranger may, and each refusal would cost them the seconds it asks them to wait. The limits
themselves are tested on arenas given theirs (tests/security/test_read_limits.py)."""


class ArenaProcess:
    """`scout-arena serve --json --db URL --port PORT` (0: a free one): where it listens, its admin
    token (when this start created or was given it) and its log."""

    def __init__(
        self, url: str, log: Path, *args: str, port: int = 0, read_limits: Sequence[str] = UNTHROTTLED_READS
    ) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--json", "--db", url, "--port", str(port), *read_limits, *args],
            stdout=subprocess.PIPE,
            stderr=log.open("a"),
            text=True,
            start_new_session=True,  # its own process group: tests/processes.py ends all of it after a failure
        )
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], START_TIMEOUT_S)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.proc.kill()
            raise AssertionError(f"the arena did not start: {log.read_text()[-3000:]}")
        first = json.loads(line)
        self.port: int = first["port"]
        self.admin_token: str | None = first["admin_token"]
        self.web: str | None = first["web"]
        """The web pages' address (http://host:port/), or None if it serves none."""

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> int:
        """SIGTERM, then wait (bounded) for a clean exit; returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=STOP_S)

    def kill(self) -> None:
        """SIGKILL: the crash the resume logic must survive."""
        self.proc.kill()
        self.proc.wait(timeout=STOP_S)
