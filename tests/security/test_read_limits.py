"""Per-caller limits on the read calls (arena.api.read_limits) against real server processes: a loop of
calls without a token is refused RESOURCE_EXHAUSTED with how long to wait, while a caller with a bot's
own token or the admin token from the same host is not; bots run with `scout-bot run` finish their
tournament while their host's bucket is kept empty; and reads work on the database a few at a time."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlmodel import Session

from arena import records
from arena.api import read_limits
from arena.api.read_limits import RETRY_AFTER_KEY, ReadGate
from arena.api.resources import ResourceLimits
from arena.cli import remote_wire as client_wire
from arena.cli.clients import ServerRefused
from arena.cli.local import LocalArena
from arena.cli.remote import RemoteArena
from arena.directory import InMemoryBotDirectory
from arena.storage import store
from arena.storage.credentials import FixedAdminToken
from arena.storage.database import open_database
from arena.tournaments.settings import TournamentSettings
from sdk.wire import arena_pb2_grpc
from sdk.wire.arena_client import request
from tests.tournaments.arena_process import ArenaProcess

LATER = datetime.now(UTC) + timedelta(days=30)
FINISH_TIMEOUT_S = 60.0
"""Bound on the bots entering and on their two games; they take a few seconds."""


def database(path: Path, bots: list[str]) -> tuple[str, dict[str, str]]:
    """A SQLite file with `bots` registered and entered in tournament 'cup' (not started)."""
    url = f"sqlite:///{path / 'arena.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        store.create_tournament(
            session=session,
            settings=TournamentSettings(
                name="cup", table_size=2, games_per_table=2, starts_at=LATER, move_limit_ms=2000
            ),
        )
        tokens = {bot: store.register_bot(session=session, name=bot).token for bot in bots}
        for bot in bots:
            store.enter_tournament(session=session, tournament="cup", bot=bot)
    engine.dispose()
    return url, tokens


@pytest.fixture
def stub_for() -> Iterator[Any]:
    channels: list[grpc.Channel] = []

    def make(target: str) -> Any:
        channels.append(grpc.insecure_channel(target))
        return arena_pb2_grpc.ArenaStub(channels[-1])  # type: ignore[no-untyped-call]

    yield make
    for channel in channels:
        channel.close()


def show(stub: Any, token: str | None = None) -> Any:
    metadata = () if token is None else (("authorization", f"Bearer {token}"),)
    return stub.ShowTournament(request("ShowTournament", name="cup"), metadata=metadata, timeout=10)


def test_unauthenticated_reads_are_refused_while_token_callers_are_not(tmp_path: Path, stub_for: Any) -> None:
    url, tokens = database(tmp_path, ["ann"])
    arena = ArenaProcess(url, tmp_path / "server.log", read_limits=("--read-rate", "0.2", "--read-burst", "3"))
    try:
        stub = stub_for(arena.target)
        refused = None
        for _ in range(10):
            try:
                show(stub, "a-token-the-arena-never-issued")
            except grpc.RpcError as exc:
                refused = exc
                break
        assert refused is not None, "ten reads in a row without a valid token were all answered"
        assert refused.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.details().startswith("ShowTournament: too many read calls from host 127.0.0.1")
        assert "try again in" in refused.details()
        assert int(dict(refused.trailing_metadata())[RETRY_AFTER_KEY]) > 0
        for _ in range(10):
            assert show(stub, tokens["ann"]).tournament.name == "cup"
            assert show(stub, arena.admin_token).tournament.name == "cup"
        with pytest.raises(grpc.RpcError) as again:
            show(stub)
        assert again.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, "token calls refilled the host's bucket"
    finally:
        assert arena.stop() == 0


def test_a_persons_list_commands_cost_a_unit_each(tmp_path: Path) -> None:
    """The command-line client asks for a first page of one unit (`RemoteArena._listed`): with a
    host bucket of six units that does not refill, six list commands in a row are answered in full,
    and only a seventh is refused. A first page of MAX_PAGE_SIZE would ask 40 units, and a person's
    second command would wait for the bucket."""
    url, _ = database(tmp_path, ["ann", "bob"])
    arena = ArenaProcess(url, tmp_path / "server.log", read_limits=("--read-rate", "0.001", "--read-burst", "6"))
    remote, local = RemoteArena(arena.target), LocalArena.open(url)
    try:
        assert remote.tournaments() == local.tournaments()
        assert remote.bots() == local.bots()
        assert remote.ratings(None) == local.ratings(None)
        assert remote.ratings("cup") == local.ratings("cup")
        assert remote.head_to_head("cup") == local.head_to_head("cup")
        assert remote.games(None, None) == local.games(None, None)
        with pytest.raises(ServerRefused, match=r"too many read calls from host 127\.0\.0\.1"):
            remote.bots()
    finally:
        remote.close()
        local.close()
        assert arena.stop() == 0


def test_bots_polling_with_their_tokens_finish_while_their_host_is_throttled(tmp_path: Path, stub_for: Any) -> None:
    url, tokens = database(tmp_path, ["ann", "bob"])
    arena = ArenaProcess(url, tmp_path / "server.log", read_limits=("--read-rate", "0.001", "--read-burst", "1"))
    bots = []
    try:
        stub = stub_for(arena.target)
        show(stub)
        with pytest.raises(grpc.RpcError) as throttled:
            show(stub)
        assert throttled.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, "the host's bucket is not empty"
        for name, token in tokens.items():
            bots.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "sdk.cli",
                        "run",
                        "random",
                        "--name",
                        name,
                        "--token",
                        token,
                        "--tournament",
                        "cup",
                        "--target",
                        arena.target,
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=(tmp_path / f"{name}.log").open("wb"),
                )
            )
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while len(show(stub, arena.admin_token).tournament.entrants) < 2:
            assert all(bot.poll() is None for bot in bots) and time.monotonic() < deadline, "the bots did not enter"
            time.sleep(0.1)
        stub.StartTournament(
            request("StartTournament", name="cup"),
            timeout=10,
            metadata=(("authorization", f"Bearer {arena.admin_token}"),),
        )
        for bot in bots:
            assert bot.wait(timeout=FINISH_TIMEOUT_S) == 0, "a bot never saw its tournament finish"
        assert (
            client_wire.tournament_from_pb(show(stub, arena.admin_token).tournament).status
            is records.TournamentStatus.FINISHED
        )
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
                bot.wait(timeout=10)
        assert arena.stop() == 0


def test_reads_work_on_the_database_a_few_at_a_time() -> None:
    class Database:
        """Stands for an AsyncStore: counts the calls working at once."""

        def __init__(self) -> None:
            self.now = self.most = 0

        async def __call__(self, fn: Any, /, **kwargs: Any) -> int:
            self.now += 1
            self.most = max(self.most, self.now)
            await asyncio.sleep(0.01)
            self.now -= 1
            return 0

    async def main() -> int:
        gate = ReadGate(ResourceLimits(read_concurrency=2), InMemoryBotDirectory(), FixedAdminToken("admin"))
        db = Database()
        await asyncio.gather(*(gate.run(db, print) for _ in range(12)))  # type: ignore[arg-type]
        return db.most

    assert asyncio.run(main()) == 2


class Refused(Exception):
    """What `Context.abort` raises, as grpc's does."""


class Context:
    """Stands for a read call's grpc context, from `host`."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.trailing: tuple[tuple[str, str], ...] = ()

    def peer(self) -> str:
        return f"ipv4:{self.host}:5000"

    def set_trailing_metadata(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.trailing = metadata

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Refused(code, details)


def test_a_flood_from_many_hosts_is_held_to_the_shared_budget_and_bots_keep_theirs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(read_limits, "HOLD_S", 0.0)
    limits = ResourceLimits(
        read_rate=0.001, read_burst=5, global_read_rate=0.001, global_read_burst=30, token_read_burst=5
    )

    async def main() -> tuple[int, list[Refused], int]:
        directory = InMemoryBotDirectory()
        token = await directory.register("ann")
        gate = ReadGate(limits, directory, FixedAdminToken("admin"), clock=lambda: 0.0)
        answered, refused = 0, []
        for _ in range(4):
            for n in range(24):
                try:
                    await gate.admit("ShowGame", Context(f"127.0.0.{n + 1}"), None)  # type: ignore[arg-type]
                    answered += 1
                except Refused as exc:
                    refused.append(exc)
        bot_reads = 0
        for _ in range(5):
            await gate.admit("ShowGame", Context("127.0.0.99"), token)  # type: ignore[arg-type]
            bot_reads += 1
        return answered, refused, bot_reads

    answered, refused, bot_reads = asyncio.run(main())
    assert answered == 30, "24 hosts, each within its own bucket, got more than the shared budget"
    assert all(exc.args[0] is grpc.StatusCode.RESOURCE_EXHAUSTED for exc in refused)
    assert "too many read calls from every caller without a token" in refused[-1].args[1]
    assert bot_reads == 5, "a bot's token reads spend from their own shared budget"


def test_verified_tokens_are_remembered_for_their_time_and_the_least_recently_used_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(read_limits, "KNOWN_TOKENS", 2)

    class Counting(InMemoryBotDirectory):
        """Counts the tokens looked up (those the gate does not remember)."""

        lookups = 0

        async def authenticate(self, token: str) -> str | None:
            self.lookups += 1
            return await super().authenticate(token)

    async def main() -> list[int]:
        directory = Counting()
        ann, bob, cat = [await directory.register(name) for name in ("ann", "bob", "cat")]
        clock = [0.0]
        gate = ReadGate(ResourceLimits(), directory, FixedAdminToken("admin"), clock=lambda: clock[0])
        seen = []
        for token, now in [
            (ann, 0.0),
            (bob, 0.0),
            (ann, 0.0),
            (cat, 0.0),
            (ann, 0.0),
            (bob, 0.0),
            (ann, read_limits.TOKEN_TTL_S - 1),
            (ann, read_limits.TOKEN_TTL_S + 1),
        ]:
            clock[0] = now
            await gate.admit("ShowGame", Context("127.0.0.1"), token)  # type: ignore[arg-type]
            seen.append(directory.lookups)
        return seen

    # ann is read again before cat comes, so bob is the one forgotten; ann is looked up again once its time is up.
    assert asyncio.run(main()) == [1, 2, 2, 3, 3, 4, 4, 5]
