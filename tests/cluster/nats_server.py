"""A private `nats-server` on a free loopback port, for the tests that stop or restart NATS (the
machine's shared server must stay up for everyone else)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests import processes
from tests.timeouts import START_S, STOP_S


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class NatsServer:
    """`nats-server` on 127.0.0.1:`port`; `start` waits until it accepts connections."""

    def __init__(self, log: Path, port: int | None = None) -> None:
        binary = shutil.which("nats-server")
        if binary is None:
            pytest.fail("nats-server is not installed: the cluster tests start private ones", pytrace=False)
        self.binary = binary
        self.port = port or free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "-a", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("ab"),
            start_new_session=True,
        )
        deadline = time.monotonic() + START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    tail = self.log.read_text()[-2000:]
                    raise AssertionError(f"nats-server did not start; its log:\n{tail}") from None
                time.sleep(0.02)

    def stop(self) -> None:
        if self.proc is not None:
            processes.kill_group(self.proc)
            self.proc.wait(timeout=STOP_S)
            self.proc = None
