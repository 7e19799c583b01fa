"""`scout-arena serve` as operators run it: a readable announcement, the admin token shown on the
first start only, and a clean exit on SIGTERM."""

from __future__ import annotations

import re
import select
import signal
import socket
import subprocess
import sys
from pathlib import Path

SCOUT_ARENA = str(Path(sys.executable).with_name("scout-arena"))


def serve_once(db: Path, log: Path) -> list[str]:
    """Start `scout-arena serve`, wait for its announcement, stop it; returns what it printed."""
    proc = subprocess.Popen(
        [SCOUT_ARENA, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=log.open("a"),
        text=True,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    assert ready, log.read_text()
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    rest = proc.stdout.read()
    assert proc.wait(timeout=30) == 0, log.read_text()
    return (first + rest).splitlines()


def test_the_admin_token_is_printed_on_the_first_start_only(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    first = serve_once(db, tmp_path / "serve.log")
    assert first[0].startswith("Scout Arena listening on 127.0.0.1:") and first[0].endswith(f", database {db}")
    assert first[1].startswith("Admin token (shown this once; only its hash is kept): ")
    token = first[1].rsplit(" ", 1)[1]
    assert len(token) == 64 and token.encode() not in db.read_bytes()
    again = serve_once(db, tmp_path / "serve.log")
    assert len(again) == 3 and again[0].startswith("Scout Arena listening on ")
    assert (
        again[1]
        == f"Admin token: the one stored (lost it? `scout-arena admin rotate-token --db {db}` prints a new one)"
    )
    assert re.fullmatch(r"Web pages: http://127\.0\.0\.1:[0-9]+/", again[2]), again[2]
    assert "arena listening on 127.0.0.1:" in (tmp_path / "serve.log").read_text()


def test_a_start_that_cannot_listen_keeps_the_admin_token_for_the_next(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        failed = subprocess.run(
            [SCOUT_ARENA, "serve", "--db", str(db), "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert failed.returncode == 1 and failed.stdout == ""
    assert (
        failed.stderr == f"error: cannot listen on 127.0.0.1:{port}: port {port} is in use "
        "(another arena or program listens there)\n"
    ), failed.stderr
    first = serve_once(db, tmp_path / "serve.log")
    assert first[1].startswith("Admin token (shown this once; only its hash is kept): "), first
