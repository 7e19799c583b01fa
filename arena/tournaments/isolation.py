"""One tournament's failure stays its own: it is marked failed with its reason, and the rest go on.

The tournament runner starts and plays many tournaments in one process. A start that raises
anything but the expected refusals (too few entrants, already started) or a play task that stops
with an error is a fault of that tournament alone (a schedule it cannot make, a bug its settings
reach): it is marked FAILED with a one-line reason, shown to the operator, and never started or
played again. Database unavailability is the exception: it is the arena's, not the tournament's,
and the runner keeps trying at its next tick as before.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar, overload

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlmodel import Session

from arena import records
from arena.errors import (
    DatabaseUnreachable,
    NotEnoughEntrants,
    TournamentAlreadyStarted,
    TournamentFailed,
    UnknownTournament,
)
from arena.storage import store
from arena.storage.async_store import Transactions, in_steps, on_session
from arena.storage.writer import writes

log = logging.getLogger(__name__)
T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """Whether `exc` says the database is unavailable for now (the arena retries), rather than
    that something is wrong with one tournament."""
    if isinstance(exc, (OperationalError, InterfaceError, DatabaseUnreachable)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


RETRY_FIRST_S = 0.05
"""The first wait before a storage call that failed for want of the database is tried again."""
RETRY_MAX_S = 5.0
"""The longest wait between tries: each failure doubles the wait up to this."""


@dataclass
class Outage:
    """Whether the database is known to be failing the calls of one party (a tournament's play):
    its calls share one, so a failure that hits several of them at once is logged once."""

    logged: bool = False


@overload
async def retrying(call: Callable[[], Awaitable[T]], what: str, outage: Outage | None = None) -> T: ...


@overload
async def retrying(
    call: Callable[[], Awaitable[T]], what: str, outage: Outage | None = None, *, done_if: type[Exception] | None
) -> T | None: ...


async def retrying(
    call: Callable[[], Awaitable[T]],
    what: str,
    outage: Outage | None = None,
    *,
    done_if: type[Exception] | None = None,
) -> T | None:
    """`await call()`, tried again while it fails because the database is unavailable
    (`is_transient`: locked, busy, connection lost), after RETRY_FIRST_S doubling up to
    RETRY_MAX_S (each wait drawn between half and all of that, so many callers do not retry in
    step), for as long as it takes: the caller (a tournament's play) waits, and is never stopped
    or failed by it. One warning says the database failed `what`, one line that it answers again;
    the tries between are not logged, nor the failures of other calls sharing the `outage`
    meanwhile. A retry that raises `done_if` means the try that failed took effect after all (its
    answer was lost): None."""
    outage = outage if outage is not None else Outage()
    delay = RETRY_FIRST_S
    failures = 0
    while True:
        try:
            result = await call()
        except Exception as exc:
            if failures and done_if is not None and isinstance(exc, done_if):
                result = None
            else:
                if not is_transient(exc):
                    raise
                if not outage.logged:
                    outage.logged = True
                    log.warning("%s waits for the database, retrying with back-off: %s", what, reason(exc))
                failures += 1
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(2 * delay, RETRY_MAX_S)
                continue
        if failures and outage.logged:
            outage.logged = False
            log.info("%s: the database answered again after %d retries", what, failures)
        return result


def reason(exc: BaseException) -> str:
    """A one-line reason for the operator: the error's kind and the first line of its message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


@writes
def fail(*, session: Session, tournament: str, exc: BaseException, when: str, now: datetime | None = None) -> str:
    """Mark `tournament` failed because `exc` was raised `when` ('starting', 'playing'); returns
    the stored reason."""
    why = f"{when} failed: {reason(exc)}"
    if store.fail_tournament(session=session, tournament=tournament, reason=why, now=now):
        log.error("tournament %r failed, the others go on: %s", tournament, why)
    return why


def _start_or_fail(
    db: Transactions, *, tournament: str, now: datetime | None = None, schedule: bool = True
) -> records.Tournament:
    try:
        if schedule:
            return db(store.start_tournament, tournament=tournament, now=now)
        db(store.close_entries, tournament=tournament, now=now)
        return db(store.show_tournament, tournament=tournament)
    except (NotEnoughEntrants, TournamentAlreadyStarted, UnknownTournament):
        raise
    except Exception as exc:
        if is_transient(exc):
            raise
        why = db(fail, tournament=tournament, exc=exc, when="starting", now=now)
        raise TournamentFailed(f"tournament {tournament!r} failed: {why}") from None


@in_steps(_start_or_fail)
def start_or_fail(
    *, session: Session, tournament: str, now: datetime | None = None, schedule: bool = True
) -> records.Tournament:
    """`store.start_tournament`; a start that fails for another reason than the tournament not
    being ready (NotEnoughEntrants), startable (TournamentAlreadyStarted) or known, or the database
    being unavailable, is marked failed in a transaction of its own, and TournamentFailed raised
    with the reason. The start stores its schedule in chunks (`store.start_tournament`): a failure
    while it draws the schedule has stored none of it. Without `schedule` only the entries close
    (`store.close_entries`): a cluster node stores the schedule under its lease afterwards."""
    return _start_or_fail(on_session(session), tournament=tournament, now=now, schedule=schedule)
