"""The arena's identity (DescribeArena), which saved tokens are keyed by, and what a bot is told
when nothing answers."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from arena.startup.arena import start_arena
from arena.startup.settings import ArenaSettings
from arena.storage.credentials import set_admin_token
from arena.storage.database import open_database
from bots import make_example
from sdk.reach import arena_key_async
from sdk.runner import ArenaUnreachable
from sdk.submit import play_tournament_async


async def key_of(url: str | None) -> str:
    arena = await start_arena(ArenaSettings(port=0, database_url=url))
    try:
        return await arena_key_async(f"127.0.0.1:{arena.port}")
    finally:
        await arena.stop(0)


def test_an_arena_keeps_its_identity_across_restarts_and_rotation_and_a_new_database_gets_another(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    first = asyncio.run(key_of(url))
    assert first.startswith("arena:")
    assert asyncio.run(key_of(url)) == first
    engine = open_database(url)
    set_admin_token(engine)
    engine.dispose()
    assert asyncio.run(key_of(url)) == first
    assert asyncio.run(key_of(f"sqlite:///{tmp_path / 'other.db'}")) != first


def test_an_arena_without_a_database_is_a_new_arena_at_every_start() -> None:
    assert asyncio.run(key_of(None)) != asyncio.run(key_of(None))


def test_entering_a_tournament_with_nothing_answering_is_not_a_refusal() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(ArenaUnreachable, match=f"^no arena answers at {target}$"):
        asyncio.run(play_tournament_async(make_example("greedy", 0), target=target, token="0" * 64, tournament="cup"))
