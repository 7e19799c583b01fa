"""The admin token's first creation (`arena.storage.credentials.ensure_admin_token`): arenas that
start at once on a new database, as a cluster's first nodes do, create one token between them,
and the one arena that shows it shows the token that works. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.engine import Engine

from arena.storage.credentials import StoredAdminToken, ensure_admin_token
from tests.timeouts import CALL_S

STARTS = 8


def test_arenas_starting_at_once_create_one_admin_token(engine: Engine) -> None:
    together = threading.Barrier(STARTS, timeout=CALL_S)

    def start() -> str | None:
        together.wait()
        return ensure_admin_token(engine)

    with ThreadPoolExecutor(STARTS) as pool:
        shown = [token for token in pool.map(lambda _: start(), range(STARTS)) if token is not None]
    assert len(shown) == 1, shown
    stored = StoredAdminToken(engine)
    assert asyncio.run(stored.allows(shown[0]))
    assert ensure_admin_token(engine) is None
    assert asyncio.run(stored.allows(shown[0]))
