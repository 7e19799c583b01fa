"""One tournament's failure stays its own: it is marked failed with its reason, and the rest go on.

The tournament runner starts and plays many tournaments in one process. A start that raises
anything but the expected refusals (too few entrants, already started) or a play task that stops
with an error is a fault of that tournament alone (a schedule it cannot make, a bug its settings
reach): it is marked FAILED with a one-line reason, shown to the operator, and never started or
played again. Database unavailability is the exception: it is the arena's, not the tournament's,
and the runner keeps trying at its next tick as before.
"""

from __future__ import annotations

import logging
from datetime import datetime

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

log = logging.getLogger(__name__)


def is_transient(exc: BaseException) -> bool:
    """Whether `exc` says the database is unavailable for now (the arena retries), rather than
    that something is wrong with one tournament."""
    if isinstance(exc, (OperationalError, InterfaceError, DatabaseUnreachable)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


def reason(exc: BaseException) -> str:
    """A one-line reason for the operator: the error's kind and the first line of its message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def fail(*, session: Session, tournament: str, exc: BaseException, when: str, now: datetime | None = None) -> str:
    """Mark `tournament` failed because `exc` was raised `when` ('starting', 'playing'); returns
    the stored reason."""
    why = f"{when} failed: {reason(exc)}"
    if store.fail_tournament(session=session, tournament=tournament, reason=why, now=now):
        log.error("tournament %r failed, the others go on: %s", tournament, why)
    return why


def start_or_fail(*, session: Session, tournament: str, now: datetime | None = None) -> records.Tournament:
    """`store.start_tournament`; a start that fails for another reason than the tournament not
    being ready (NotEnoughEntrants), startable (TournamentAlreadyStarted) or known, or the database
    being unavailable, is rolled back, the tournament marked failed in a transaction of its own, and
    TournamentFailed raised with the reason."""
    try:
        return store.start_tournament(session=session, tournament=tournament, now=now)
    except (NotEnoughEntrants, TournamentAlreadyStarted, UnknownTournament):
        raise
    except Exception as exc:
        if is_transient(exc):
            raise
        why = fail(session=session, tournament=tournament, exc=exc, when="starting", now=now)
        raise TournamentFailed(f"tournament {tournament!r} failed: {why}") from None
