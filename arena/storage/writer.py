"""The writer: every write of the process takes one path, a bounded queue in front of writer threads.

Why: SQLite lets one transaction write to the file at a time. Writers in many threads (the
runner's commits, organiser commands, registrations, each in a thread of its own) contend for
that lock, and a transaction that has read before it writes cannot wait for it: SQLite answers
"database is locked" at once rather than risk a deadlock. Here one thread, on connections of its
own, runs every write as one short transaction begun with BEGIN IMMEDIATE
(`arena.storage.database.writer_engine`): writes of the process never contend with each other,
run in the order they came, and wait in the queue rather than in SQLite's busy loop; the busy
timeout is left for writers of other processes (an organiser command working on the file). Reads
do not take this path: in WAL mode they never wait for a writer. The log's checkpoints are not
the writer's either: a thread of their own folds it into the file (`arena.storage.checkpoints`).

On PostgreSQL row locks let writes of different tournaments go on at once, so the writer has
`POSTGRES_WRITERS` threads behind the same queue. A job is a whole transaction on one connection,
so a write that may commit only under a condition (in a cluster, a game's result only while its
node still holds the game's lease) checks it in its first statement and commits everything or
nothing; the writer neither knows nor needs to know about the condition. Several processes on one
PostgreSQL database each have a writer of their own: what keeps their writes apart is in the
statements (conditional updates, row locks), not here.

Play comes first: the tournament runner's writes (`AsyncStore.for_play`) go before every other
waiting write, so a flood of registrations or entries delays a game's commit by at most the one
write in progress. The other writes are bounded: at most `QUEUE_LIMIT` wait or run; a caller past
that waits for room in arrival order, up to `QUEUE_WAIT_S`, then gets `StorageBusy` (a transient
error: a call answers UNAVAILABLE, the runner would retry it): a flood holds up its own callers,
never the memory of the arena. Play's writes need no bound of their own: each tournament has
only its few games' writes in flight.

Which functions write is declared where they are defined (`writes`); `arena.storage.async_store`
sends those here and the rest to reader threads.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from arena.errors import StorageBusy
from arena.storage import checkpoints
from arena.storage.database import writer_engine

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

QUEUE_LIMIT = 256
"""Writes other than play's waiting or running at once; a write is a millisecond or two, so this
is well under a second of work."""
QUEUE_WAIT_S = 30.0
"""How long a write waits for room in a full queue before it is refused with `StorageBusy`."""
POSTGRES_WRITERS = 4
"""Writer threads (and connections) on PostgreSQL; SQLite has one."""

WRITES: set[Callable[..., Any]] = set()
"""The functions that write: `arena.storage.async_store` runs them on the writer."""


def writes(fn: F) -> F:
    """Declare that `fn` (a store function taking `session=`) writes: it runs on the writer."""
    WRITES.add(fn)
    return fn


@dataclass(frozen=True)
class _Job:
    fn: Callable[..., Any]
    kwargs: dict[str, Any]
    future: Future[Any]


class Writer:
    """The writer of one database (`for_engine`): `await writer.run(fn, kwargs)` from an event
    loop, `writer.run_blocking(fn, kwargs)` from any other thread; each call is
    `fn(session=..., **kwargs)` in a session of its own on a writer connection. With `play`, the
    write is a tournament's (`arena.tournaments.runner`): it goes before every other waiting
    write and takes no place of the bounded queue, since play comes first and each tournament has
    only its few games' writes in flight; the rest (registrations, entries, organiser commands,
    whatever their number) queue for their places."""

    def __init__(self, engine: Engine, *, limit: int = QUEUE_LIMIT, wait_s: float = QUEUE_WAIT_S) -> None:
        sqlite = engine.url.get_backend_name() == "sqlite"
        path = engine.url.database if sqlite and engine.url.database != ":memory:" else None
        self.threads = 1 if sqlite else POSTGRES_WRITERS
        self._checkpointer = checkpoints.Checkpointer(path) if path else None
        self._engine = writer_engine(
            engine, self.threads, autocheckpoint_pages=checkpoints.BACKSTOP_PAGES if path else None
        )
        self._sqlite = sqlite
        self._held: Connection | None = None
        """SQLite's one writer connection, kept checked out rather than taken from the pool and
        given back for every write. PostgreSQL's writer threads take theirs from the pool for
        each write, where a connection idle for a while is checked before use (`writer_engine`)."""
        self._limit = limit
        self._wait_s = wait_s
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._jobs: tuple[deque[_Job], deque[_Job]] = (deque(), deque())
        """Writes waiting for a writer thread: play's first, then the others."""
        self._workers: list[threading.Thread] = []
        self._closed = False
        self.taken = 0
        """Places of the queue taken: writes other than play's waiting for a writer thread or running."""
        self._waiters: deque[Callable[[], None]] = deque()
        """Callers waiting for a place, first come first; each is handed the place of a write that ends."""

    async def run(self, fn: Callable[..., T], kwargs: dict[str, Any], *, play: bool = False) -> T:
        if not play:
            await self._enter_async()
        return await asyncio.wrap_future(self._submit(fn, kwargs, play))

    def run_blocking(self, fn: Callable[..., T], kwargs: dict[str, Any], *, play: bool = False) -> T:
        if not play:
            self._enter_blocking()
        return self._submit(fn, kwargs, play).result()

    def close(self) -> None:
        """Let the writes in the queue finish, then close the writer's connections."""
        with self._lock:
            self._closed = True
            self._ready.notify_all()
        for worker in self._workers:
            worker.join()
        if self._held is not None:
            self._held.close()
        self._engine.dispose()
        if self._checkpointer is not None:
            self._checkpointer.close()

    def _submit(self, fn: Callable[..., T], kwargs: dict[str, Any], play: bool) -> Future[T]:
        """Queue the write (on a place taken, unless `play`); a place is left when its write ends."""
        future: Future[T] = Future()
        if not play:
            future.add_done_callback(lambda _: self._leave())
        with self._lock:
            if self._closed:
                future.set_exception(RuntimeError("the writer is closed"))
                return future
            self._jobs[0 if play else 1].append(_Job(fn, kwargs, future))
            if len(self._workers) < self.threads:
                worker = threading.Thread(target=self._work, name=f"arena-writer-{len(self._workers)}", daemon=True)
                self._workers.append(worker)
                worker.start()
            self._ready.notify()
        return future

    def _work(self) -> None:
        """A writer thread: the next write, play's first, until the writer is closed and the queue empty."""
        while True:
            with self._lock:
                while not (self._jobs[0] or self._jobs[1] or self._closed):
                    self._ready.wait()
                if not (self._jobs[0] or self._jobs[1]):
                    return
                job = (self._jobs[0] or self._jobs[1]).popleft()
            if not job.future.set_running_or_notify_cancel():
                continue
            try:
                result = self.execute(job.fn, job.kwargs)
            except BaseException as exc:
                job.future.set_exception(exc)
            else:
                job.future.set_result(result)

    def execute(self, fn: Callable[..., T], kwargs: dict[str, Any]) -> T:
        """One write in the calling thread, as a writer thread runs each: `fn(session=...)` in a
        session of its own on a writer connection. Only for a caller that is the database's one
        writer (a benchmark); everything else goes through `run` or `run_blocking`."""
        try:
            with Session(self._bind()) as session:
                return fn(session=session, **kwargs)
        finally:
            if self._checkpointer is not None:
                self._checkpointer.wrote()

    def _bind(self) -> Engine | Connection:
        if not self._sqlite:
            return self._engine
        if self._held is None:
            self._held = self._engine.connect()
        elif self._held.in_transaction():  # never joined: each write is a transaction of its own
            self._held.rollback()
        return self._held

    def _take(self) -> bool:
        """Take a place if one is free and nobody waits for one (call with the lock held)."""
        if self.taken < self._limit and not self._waiters:
            self.taken += 1
            return True
        return False

    def _leave(self) -> None:
        """A write ended: hand its place to the first waiter, or free it."""
        with self._lock:
            if not self._waiters:
                self.taken -= 1
                return
            grant = self._waiters.popleft()
        grant()

    async def _enter_async(self) -> None:
        loop = asyncio.get_running_loop()
        placed: asyncio.Future[None] = loop.create_future()

        def handed() -> None:
            if placed.done():  # it gave up meanwhile: pass the place on
                self._leave()
            else:
                placed.set_result(None)

        def grant() -> None:
            try:
                loop.call_soon_threadsafe(handed)
            except RuntimeError:  # its loop is closed
                self._leave()

        with self._lock:
            if self._take():
                return
            self._waiters.append(grant)
        try:
            async with asyncio.timeout(self._wait_s):
                await placed
        except BaseException as exc:
            with self._lock:
                handed_over = grant not in self._waiters
                if not handed_over:
                    self._waiters.remove(grant)
            if handed_over and placed.done() and not placed.cancelled():
                self._leave()  # handed a place as it gave up; a pending hand-over passes it on itself
            placed.cancel()
            if isinstance(exc, TimeoutError):
                raise self._busy() from None
            raise

    def _enter_blocking(self) -> None:
        placed = threading.Event()
        with self._lock:
            if self._take():
                return
            self._waiters.append(placed.set)
        if placed.wait(self._wait_s):
            return
        with self._lock:
            if placed.set in self._waiters:
                self._waiters.remove(placed.set)
                raise self._busy()
        # handed a place just as the wait ran out: it is this caller's

    def _busy(self) -> StorageBusy:
        return StorageBusy(
            f"the arena's database is busy: {self._limit} writes were queued for {self._wait_s:g} s; try again shortly"
        )


_writers: weakref.WeakKeyDictionary[Engine, Writer] = weakref.WeakKeyDictionary()
_writers_lock = threading.Lock()


def for_engine(engine: Engine) -> Writer:
    """The writer of `engine`'s database in this process, made on first use: every `AsyncStore`
    on the engine shares it. Disposing of the engine closes it (a later write makes a new one)."""
    with _writers_lock:
        writer = _writers.get(engine)
        if writer is None:
            writer = _writers[engine] = Writer(engine)
            sa.event.listen(engine, "engine_disposed", _closer(weakref.ref(engine)))
    return writer


def _closer(engine: weakref.ref[Engine]) -> Callable[[Engine], None]:
    def close(_: Engine) -> None:
        target = engine()
        with _writers_lock:
            writer = None if target is None else _writers.pop(target, None)
        if writer is not None:
            writer.close()

    return close
