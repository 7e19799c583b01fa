"""Serving the pages: `scout-arena serve` in the arena's own process and event loop (on a free
port, not at all with --no-http, a one-line error on a taken port), and `scout-arena web`, which
serves a database without an arena and changes nothing in it."""

from __future__ import annotations

import hashlib
import json
import select
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from arena.web.serving import bind

SCOUT_ARENA = str(Path(sys.executable).with_name("scout-arena"))
START_TIMEOUT_S = 60


def first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT_S)
    assert ready, "nothing printed"
    return proc.stdout.readline()


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode()


def stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGTERM)
    return proc.wait(timeout=30)


def test_serve_serves_the_pages_beside_grpc(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [SCOUT_ARENA, "serve", "--json", "--db", str(tmp_path / "a.db"), "--port", "0", "--http-port", "0"],
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "log").open("w"),
        text=True,
    )
    try:
        announced = json.loads(first_line(proc))
        assert announced["web"].startswith("http://127.0.0.1:") and str(announced["port"]) not in announced["web"]
        status, page = get(announced["web"])
        assert status == 200 and "Ladder" in page
        status, body = get(announced["web"] + "api/tournaments")
        assert status == 200 and json.loads(body) == {"items": [], "next_page_token": None}
    finally:
        assert stop(proc) == 0, (tmp_path / "log").read_text()


def test_serve_without_pages(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [SCOUT_ARENA, "serve", "--json", "--db", str(tmp_path / "a.db"), "--port", "0", "--no-http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert json.loads(first_line(proc))["web"] is None
    finally:
        assert stop(proc) == 0


def test_a_taken_web_port_is_one_line_and_no_start(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        failed = subprocess.run(
            [SCOUT_ARENA, "serve", "--db", str(tmp_path / "a.db"), "--port", "0", "--http-port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith(f"error: the web pages cannot listen on 127.0.0.1:{port}: ")
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr


def test_web_serves_a_database_and_changes_nothing(finished_db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "arena.db"
    copy.write_bytes(finished_db.read_bytes())
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    proc = subprocess.Popen(
        [SCOUT_ARENA, "web", "--db", str(copy), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "log").open("w"),
        text=True,
    )
    try:
        line = first_line(proc)
        assert line.startswith("Scout Arena web pages: http://127.0.0.1:") and "read-only" in line
        url = line.split()[4]
        for path in ("", "tournaments/cup", "bots/bot01", "games", "api/ladder", "api/games?page_size=1000"):
            assert get(url + path)[0] == 200, path
    finally:
        assert stop(proc) == 0, (tmp_path / "log").read_text()
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db", "log"]


def test_web_refuses_a_missing_database_and_creates_none(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    failed = subprocess.run(
        [SCOUT_ARENA, "web", "--db", str(missing), "--port", "0"], capture_output=True, text=True, timeout=60
    )
    assert failed.returncode == 1 and failed.stderr.startswith("error: ") and failed.stderr.count("\n") == 1
    assert not missing.exists() and list(tmp_path.iterdir()) == []


def test_every_connection_the_pages_accept_sends_without_delay() -> None:
    """TCP_NODELAY on each accepted connection: uvicorn writes an answer's headers and body apart,
    and without it Nagle held the body back until the browser's delayed ACK (~40 ms a page)."""
    listening = bind("127.0.0.1", 0)
    with listening, socket.create_connection(listening.getsockname()[:2]):
        accepted, _ = listening.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
