"""An arena running in the test's own process (so `caplog` sees its log lines), and checks on text
that came back from it or went into its log."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc

from arena.startup.arena import ArenaServer, start_arena
from arena.startup.settings import ArenaSettings

SHORT = 200
"""The longest error message or log line a client string may cause here."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Control characters (C0, DEL, C1): line breaks, terminal escapes (ESC), ..."""


@asynccontextmanager
async def running_arena(db: Path | None = None) -> AsyncIterator[ArenaServer]:
    """An arena on a free loopback port, with a SQLite database at `db` if given."""
    url = None if db is None else f"sqlite:///{db}"
    arena = await start_arena(ArenaSettings(port=0, database_url=url))
    try:
        yield arena
    finally:
        await arena.stop(0)


def target(arena: ArenaServer) -> str:
    return f"127.0.0.1:{arena.port}"


def admin(arena: ArenaServer) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {arena.admin_token}"),)


def assert_short_and_plain(text: str, what: str) -> None:
    """`text` is bounded and holds no raw control character."""
    assert len(text) <= SHORT, f"{what} is {len(text)} characters long: {text[:120]!r}..."
    assert not _CONTROL.search(text), f"{what} holds a raw control character: {text!r}"


def assert_log_is_clean(records: list[logging.LogRecord]) -> None:
    """Every log line is one short line without raw control characters or a traceback."""
    for record in records:
        assert_short_and_plain(record.getMessage(), f"the log line of {record.name}")
        assert record.exc_info is None, f"{record.name} logged a traceback: {record.getMessage()}"


async def refusal(call: object) -> grpc.aio.AioRpcError:
    """The error an awaited gRPC call ends with; fails the test if it succeeds."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as exc:
        return exc
    raise AssertionError("the call succeeded")
