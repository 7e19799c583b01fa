"""The web port held like the gRPC port (arena.web.limits, arena.web.bounded_http), each against a real
`scout-arena serve` process: silent connections beyond what its descriptors allow take neither the
bots' port nor the pages away and are closed at the idle time-out, a 200 MB POST is refused before it
is read, and clients trickling their headers or their body are closed at their time-outs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.api.resources import FD_RESERVE
from arena.web.limits import WebLimits
from sdk.wire import arena_pb2, arena_pb2_grpc
from tests.api.rawclient import RawBot
from tests.processes import with_open_file_limit

START_TIMEOUT_S = 60.0
SLACK_S = 30.0
"""Added to every time-out the arena is waited on for: the machine may be loaded."""
DEFAULTS = WebLimits()
PORTS = ("--port", "0", "--http-port", "0")
SILENT = 1150
SILENT_HOSTS = [f"127.0.0.{n}" for n in range(10, 20)]
"""The silent connections' addresses: each under the per-address cap, so the global cap is what holds."""


@dataclass
class Arena:
    proc: subprocess.Popen[str]
    port: int
    web: str
    log: Path

    @property
    def web_port(self) -> int:
        return int(self.web.rstrip("/").rsplit(":", 1)[1])

    def status(self, field: str) -> int:
        """A /proc/PID/status figure in kB (VmRSS, VmHWM)."""
        line = next(x for x in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines() if x.startswith(field))
        return int(line.split()[1])

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))


@contextlib.contextmanager
def arena(tmp_path: Path, *args: str, nofile: tuple[int, int] | None = None) -> Iterator[Arena]:
    """`scout-arena serve --json` on a fresh SQLite file with pages on a free port, RLIMIT_NOFILE set
    to `nofile` before it runs; stopped (or killed) on the way out."""
    log = tmp_path / "arena.log"

    argv = [sys.executable, "-m", "arena", "serve", "--json", "--db", str(tmp_path / "a.db"), *PORTS, *args]
    proc = subprocess.Popen(
        argv if nofile is None else with_open_file_limit(argv, *nofile),
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
        line = proc.stdout.readline() if ready else ""
        assert line, f"the arena did not start: {log.read_text()[-3000:]}"
        announced = json.loads(line)
        yield Arena(proc, announced["port"], announced["web"], log)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)


def get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
        return int(response.status)


def until_closed(sock: socket.socket, deadline_s: float) -> bytes:
    """What the arena sends on `sock` until it closes it (EOF or reset); AssertionError if it has not
    within `deadline_s`."""
    got = b""
    end = time.monotonic() + deadline_s
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionError:
            return got
        if not chunk:
            return got
        got += chunk
    raise AssertionError(f"the arena kept the connection past {deadline_s:.0f} s (it sent {got[:80]!r})")


async def bots_and_calls_answer(target: str) -> None:
    """A health check, a registration and a bot's Hello, each answered."""
    async with grpc.aio.insecure_channel(target) as channel:
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        stub = arena_pb2_grpc.ArenaStub(channel)
        request = arena_pb2.RegisterBotRequest(name="beside-the-flood")
        registered = await stub.RegisterBot(request, timeout=10)  # type: ignore[no-untyped-call]
    bot = await RawBot.connect(target, registered.token)
    await bot.close()


@pytest.mark.slow
def test_silent_web_connections_past_the_open_file_limit_take_nothing_away(tmp_path: Path) -> None:
    """1,150 silent connections under a 1,024 soft limit: the open-file check raised the limit for both
    ports' caps, the web cap closed the connections past it (the longest idle first), so the process
    holds no more than its cap while gRPC calls, a bot's Hello and pages are answered; and the silent
    ones are all closed by the idle time-out."""
    own = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = max(1000 + DEFAULTS.max_connections + FD_RESERVE, SILENT + 100)
    if own[1] != resource.RLIM_INFINITY and own[1] < needed:
        pytest.skip(f"this process's hard open-file limit ({own[1]}) is below {needed}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(own[0], SILENT + 100), own[1]))
    idle_s = 20.0
    silent: list[socket.socket] = []
    try:
        with arena(tmp_path, "--web-idle-timeout-ms", str(int(idle_s * 1000)), nofile=(1024, own[1])) as server:
            for i in range(SILENT):
                host = SILENT_HOSTS[i % len(SILENT_HOSTS)]
                silent.append(socket.create_connection(("127.0.0.1", server.web_port), 30, (host, 0)))
            held = server.open_files()
            asyncio.run(bots_and_calls_answer(f"127.0.0.1:{server.port}"))
            for path in ("", "tournaments", "api/ladder"):
                assert get(server.web + path) == 200, path
            assert held >= DEFAULTS.max_connections * 0.9, f"only {held} descriptors open: the test held nothing"
            assert held <= DEFAULTS.max_connections + FD_RESERVE, f"{held} descriptors open past the web cap"
            closing = time.monotonic()
            for sock in silent:
                until_closed(sock, idle_s + SLACK_S - (time.monotonic() - closing))
            assert server.proc.poll() is None, server.log.read_text()[-3000:]
    finally:
        for sock in silent:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, own)


def post_200_mb(port: int, head: bytes, chunked: bool) -> tuple[bytes, int]:
    """Send a 200 MB POST body after `head`, 1 MB at a time, until the arena answers or closes;
    returns what it answered and how many body bytes went out."""
    megabyte = b"x" * 1_000_000
    piece = b"f4240\r\n" + megabyte + b"\r\n" if chunked else megabyte
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head)
        with contextlib.suppress(ConnectionError, TimeoutError):
            while sent < 200_000_000:
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    break
                sock.sendall(piece)
                sent += len(megabyte)
        return until_closed(sock, SLACK_S), sent


def test_a_200_mb_post_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with arena(tmp_path) as server:
        request = b"POST /api/play/games HTTP/1.1\r\nHost: arena\r\nContent-Type: application/json\r\n"
        small = b'{"rivals": ["greedy"]}'
        with socket.create_connection(("127.0.0.1", server.web_port), timeout=30) as sock:
            sock.sendall(request + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(small) + small)
            answer = until_closed(sock, SLACK_S)
        assert answer.startswith(b"HTTP/1.1 403 "), answer[:200]  # read and judged: no session cookie
        rss, peak = server.status("VmRSS"), server.status("VmHWM")
        for chunked in (False, True):
            length = b"Transfer-Encoding: chunked\r\n" if chunked else b"Content-Length: 200000000\r\n"
            answer, sent = post_200_mb(server.web_port, request + length + b"\r\n", chunked)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 413 "), answer[:200]
            assert sent <= 50_000_000, f"{sent} bytes of the body were taken before the refusal"
        grown_kb = max(server.status("VmRSS") - rss, server.status("VmHWM") - peak)
        assert grown_kb <= 8 * 1024, f"the arena grew by {grown_kb} kB"
        assert get(server.web + "play") == 200


def test_slow_clients_are_closed_at_their_time_outs(tmp_path: Path) -> None:
    """Slowloris (a request's headers trickled a byte at a time) is answered 408 and closed at the
    header time-out, a trickled body at the body time-out, and a connection that says nothing is
    closed at the idle time-out."""
    timeout_s = 2.0
    ms = str(int(timeout_s * 1000))
    options = ("--web-header-timeout-ms", ms, "--web-body-timeout-ms", ms, "--web-idle-timeout-ms", ms)
    cases = {
        "headers": (b"GET / HTTP/1.1\r\nHost: arena\r\nX-Slow: ", b"a", b"HTTP/1.1 408 "),
        "body": (
            b"POST /api/play/games HTTP/1.1\r\nHost: arena\r\nContent-Length: 500\r\n\r\n{",
            b" ",
            b"HTTP/1.1 408 ",
        ),
        "nothing": (b"", b"", b""),
    }
    with arena(tmp_path, *options) as server:
        for what, (start, trickle, status) in cases.items():
            with socket.create_connection(("127.0.0.1", server.web_port), timeout=30) as sock:
                sock.sendall(start)
                began = time.monotonic()
                answer = b""
                with contextlib.suppress(ConnectionError):
                    while time.monotonic() - began < timeout_s + SLACK_S:
                        readable, _, _ = select.select([sock], [], [], 0.25)
                        if readable:
                            break
                        sock.sendall(trickle)
                    answer = until_closed(sock, SLACK_S)
                held = time.monotonic() - began
            assert held >= timeout_s * 0.75, f"{what}: closed after {held:.1f} s, before its time-out"
            assert held <= timeout_s + SLACK_S, f"{what}: kept {held:.1f} s"
            assert answer.startswith(status) if status else answer == b"", (what, answer[:200])
        assert get(server.web) == 200
