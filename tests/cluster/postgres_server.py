"""A private PostgreSQL server on a free loopback port, for the tests that stop and restart it (the
machine's shared server must stay up for everyone else).

Its data directory is a fresh temporary one outside pytest's (whose parents only their owner may
enter): PostgreSQL's programs refuse to run as root, so as root they run as the `postgres` user
(`runuser`), on a directory it owns. `pg_ctl` starts the server detached from the test, so the
context manager stops it, pass or fail, and removes the directory."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.cluster.nats_server import free_port
from tests.services import program
from tests.timeouts import START_S, STOP_S

OS_USER = "postgres"
"""Who runs PostgreSQL's programs when the tests run as root."""


def _installed_bins() -> list[Path]:
    """Debian's /usr/lib/postgresql/VERSION/bin, newest first."""
    found = Path("/usr/lib/postgresql").glob("*/bin")
    return sorted(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)


class PostgresServer:
    """A PostgreSQL cluster of its own in `root`, served on 127.0.0.1:`port` to `postgres` without a
    password; `start` and `stop` return once the server is up or down."""

    def __init__(self, root: Path) -> None:
        initdb = program("initdb", *_installed_bins(), what="the PostgreSQL restart test runs a server of its own")
        self.bin = initdb.parent
        self.root = root
        self.data = root / "data"
        self.log = root / "postgres.log"
        self.port = free_port()
        self._as_owner = ["runuser", "-u", OS_USER, "--"] if os.geteuid() == 0 else []
        if self._as_owner:
            owner = pwd.getpwnam(OS_USER)
            os.chown(root, owner.pw_uid, owner.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        # fsync off: a fast shutdown still writes everything out, and the test's restarts are clean ones.
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", f"{START_S:.0f}", "-o", options, "start"
        )

    def stop(self, mode: str = "fast") -> None:
        """`pg_ctl stop -m mode`: fast rolls back every open transaction and cuts every connection."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", f"{STOP_S:.0f}", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def _run(self, name: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as_owner, str(self.bin / name), *args], capture_output=True, text=True, timeout=START_S
        )
        if done.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise AssertionError(f"{name} {' '.join(args)} failed:\n{done.stdout}{done.stderr}\n{log}")


@contextmanager
def private_postgres() -> Iterator[PostgresServer]:
    """A started private PostgreSQL server, stopped (at once) and removed after."""
    root = Path(tempfile.mkdtemp(prefix="scout-postgres-"))
    try:
        server = PostgresServer(root)
        server.start()
        try:
            yield server
        finally:
            if server.running():
                server.stop("immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)
