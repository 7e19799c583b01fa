"""The writer (`arena.storage.writer`): every write of a process on one path, a bounded queue in
front of one writer thread (SQLite) or a few (PostgreSQL). A write past the bound waits for room
and, after its wait, is refused with StorageBusy (a transient error); play's writes skip the queue
and go before every waiting write; the places come back whatever the writes did."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.errors import StorageBusy
from arena.storage import store
from arena.storage.async_store import AsyncStore
from arena.storage.database import open_database
from arena.storage.writer import WRITES, Writer, for_engine
from arena.tournaments.isolation import is_transient


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    """A writer with room for 2 writes and a 0.3 s wait, on SQLite: one writer thread, so the
    order writes run in is the queue's (on PostgreSQL several run at once)."""
    engine = open_database(f"sqlite:///{tmp_path / 'arena.db'}")
    made = Writer(engine, limit=2, wait_s=0.3)
    yield made
    made.close()
    engine.dispose()


class Gate:
    """A write that holds its writer thread until opened, noting the order writes ran in."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.ran: list[str] = []

    def held(self, *, session: Session, name: str) -> str:
        self.ran.append(name)
        assert self.open.wait(10), "the test never opened the gate"
        return name

    def note(self, *, session: Session, name: str) -> str:
        self.ran.append(name)
        return name


def test_a_write_past_the_bound_waits_then_is_refused_as_busy(writer: Writer) -> None:
    gate = Gate()

    async def run() -> None:
        first = asyncio.ensure_future(writer.run(gate.held, {"name": "first"}))
        second = asyncio.ensure_future(writer.run(gate.note, {"name": "second"}))
        await asyncio.sleep(0.05)
        assert writer.taken == 2
        with pytest.raises(StorageBusy) as refused:
            await writer.run(gate.note, {"name": "third"})
        assert is_transient(refused.value)
        assert str(refused.value) == ("the arena's database is busy: 2 writes were queued for 0.3 s; try again shortly")
        gate.open.set()
        assert await asyncio.gather(first, second) == ["first", "second"]

    asyncio.run(run())
    assert gate.ran == ["first", "second"] and writer.taken == 0


def test_a_waiting_write_gets_the_place_of_one_that_ends(writer: Writer) -> None:
    """Waiters are handed places in arrival order, from an event loop and from another thread."""
    first, second = Gate(), Gate()
    writer._wait_s = 10

    async def run() -> None:
        held = asyncio.ensure_future(writer.run(first.held, {"name": "held"}))
        queued = asyncio.ensure_future(writer.run(second.held, {"name": "queued"}))
        await asyncio.sleep(0.05)
        waiting = asyncio.ensure_future(writer.run(first.note, {"name": "waiting"}))
        await asyncio.sleep(0.05)
        blocking = asyncio.ensure_future(asyncio.to_thread(writer.run_blocking, first.note, {"name": "blocking"}))
        await asyncio.sleep(0.1)
        assert writer.taken == 2 and len(writer._waiters) == 2
        first.open.set()  # "held" ends: its place goes to the first waiter
        await asyncio.sleep(0.1)
        assert writer.taken == 2 and len(writer._waiters) == 1 and not blocking.done()
        second.open.set()
        assert await asyncio.gather(held, queued, waiting, blocking) == ["held", "queued", "waiting", "blocking"]

    asyncio.run(run())
    assert first.ran == ["held", "waiting", "blocking"] and second.ran == ["queued"] and writer.taken == 0


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition` holds (a busy machine may take a while to run a thread), at most 10 s."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def test_play_goes_before_the_waiting_writes_and_takes_no_place(writer: Writer) -> None:
    gate = Gate()

    async def run() -> None:
        held = asyncio.ensure_future(writer.run(gate.held, {"name": "held"}))
        other = asyncio.ensure_future(writer.run(gate.note, {"name": "registration"}))
        await until(lambda: gate.ran == ["held"] and writer.taken == 2, "the held write to run, the other queued")
        play = asyncio.ensure_future(writer.run(gate.note, {"name": "commit"}, play=True))
        await asyncio.sleep(0)  # play's write is queued in its first step
        assert writer.taken == 2  # the bound is full; play's write is queued all the same
        gate.open.set()
        await asyncio.gather(held, other, play)

    asyncio.run(run())
    assert gate.ran == ["held", "commit", "registration"] and writer.taken == 0


def test_a_failing_or_cancelled_write_gives_its_place_back(writer: Writer) -> None:
    gate = Gate()

    def broken(*, session: Session) -> None:
        raise ValueError("broken write")

    async def run() -> None:
        with pytest.raises(ValueError, match="broken write"):
            await writer.run(broken, {})
        held = asyncio.ensure_future(writer.run(gate.held, {"name": "held"}))
        await asyncio.sleep(0.05)
        cancelled = asyncio.ensure_future(writer.run(gate.note, {"name": "cancelled"}))
        await asyncio.sleep(0.05)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        gate.open.set()
        await held

    asyncio.run(run())
    assert gate.ran == ["held"] and writer.taken == 0


def test_every_store_write_goes_through_one_writer_per_database(engine: Engine) -> None:
    """Every AsyncStore on an engine shares its writer, and the store's writes are declared so."""
    assert for_engine(engine) is AsyncStore(engine).writer is AsyncStore(engine).for_play().writer
    assert for_engine(engine).threads == (1 if engine.url.get_backend_name() == "sqlite" else 4)
    for write in (
        store.register_bot,
        store.create_tournament,
        store.enter_tournament,
        store.fail_tournament,
        store.advance_stop_rule,
        store.mark_game_running,
        store.mark_game_played,
        store.commit_game,
        store.void_attempt,
        store.void_interrupted_games,
    ):
        assert write in WRITES, write.__name__
    for read in (store.show_tournament, store.list_games, store.next_games, store.rating_table):
        assert read not in WRITES, read.__name__
    db = AsyncStore(engine)
    token = asyncio.run(db(store.register_bot, name="written")).token
    assert asyncio.run(db(store.authenticate, token=token)) is not None
