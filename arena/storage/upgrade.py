"""What `scout-arena db status` and `scout-arena db upgrade` do, each ending in one line to print.

`upgrade` holds the arena's lock on the database (`arena.storage.lock`) while it runs, so it never
changes the tables under a serving arena; it looks at the database first, so a foreign one gets
no lock file beside it.
"""

from __future__ import annotations

from arena.errors import ArenaError
from arena.storage.database import (
    SchemaKind,
    SchemaState,
    create_engine,
    database_state,
    parse_url,
    refuse_unusable,
    shown_database,
    upgrade_database,
)
from arena.storage.lock import lock_database
from arena.storage.tables import SCHEMA_VERSION


def status(url: str) -> tuple[bool, str]:
    """Whether the arena can use the database at `url` as it is, and a line saying what it holds."""
    parsed = parse_url(url)
    shown = shown_database(parsed)
    state = database_state(url)
    if state.kind is SchemaKind.CURRENT:
        return True, f"{shown}: schema version {state.version} ({state.revision}), the newest: nothing to upgrade"
    if state.kind is SchemaKind.EMPTY:
        return True, f"{shown}: empty; an arena started on it creates its tables at schema version {SCHEMA_VERSION}"
    try:
        refuse_unusable(state, parsed, create=False)
    except ArenaError as exc:  # the refusal is the status line
        return False, f"{shown}: {_after_name(str(exc), shown)}"
    raise AssertionError(state)


def upgrade(url: str) -> str:
    """Bring the database at `url` to this arena's schema, holding its lock; the line to print."""
    parsed = parse_url(url)
    shown = shown_database(parsed)
    state = database_state(url)
    if state.kind is SchemaKind.CURRENT:
        return f"{shown} is at schema version {state.version}, the newest: nothing to upgrade"
    if state.kind not in (SchemaKind.OUTDATED, SchemaKind.EMPTY):
        refuse_unusable(state, parsed, create=True)
    engine = create_engine(url) if parsed.get_backend_name() == "postgresql" else None
    try:
        lock = lock_database(parsed, shown, engine=engine)
        try:
            before, after = upgrade_database(url)
        finally:
            lock.release()
    finally:
        if engine is not None:
            engine.dispose()
    return _done(shown, before, after)


def _done(shown: str, before: SchemaState, after: SchemaState) -> str:
    if before.kind is SchemaKind.EMPTY:
        return f"created the arena's tables in {shown} at schema version {after.version}"
    if before.kind is SchemaKind.CURRENT:
        return f"{shown} is at schema version {after.version}, the newest: nothing to upgrade"
    return f"upgraded {shown} from schema version {before.version} to {after.version}, keeping its data"


def _after_name(message: str, shown: str) -> str:
    return message.removeprefix(shown).lstrip(" :")
