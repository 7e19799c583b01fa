"""Errors of the arena's storage and tournament layer, each a one-line message a person can act on.

The CLI and the gRPC service print `str(error)` as it is, so every message names the thing that is
wrong and, where it helps, what to do instead. Catch `ArenaError` to handle them all.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Base class: a user or caller mistake with a one-line reason, never a bug."""


class InvalidDatabaseURL(ArenaError):
    """The database URL cannot be used (malformed, unsupported scheme, in-memory SQLite)."""


class DatabaseUnreachable(ArenaError):
    """The database URL is well formed, but connecting to it failed."""


class StorageBusy(DatabaseUnreachable):
    """The writer's queue stayed full for its whole wait (`arena.storage.writer`): try again shortly."""


class SchemaCreationFailed(ArenaError):
    """The database was reached but refused to create the arena's tables (rights, schema)."""


class SchemaVersionMismatch(ArenaError):
    """The database was created by a different version of the arena's schema."""


class UpgradeNeeded(SchemaVersionMismatch):
    """The database has an older schema that `scout-arena db upgrade` brings forward."""


class ForeignDatabase(ArenaError):
    """The database holds tables, or a file, that are not a Scout Arena's: left untouched."""


class NoArenaDatabase(ArenaError):
    """A command that only reads found no arena's tables (a missing file, an empty database)."""


class DatabaseInUse(ArenaError):
    """Another arena serves this database (or upgrades it): one arena per database."""


class InvalidName(ArenaError):
    """A bot or tournament name that is empty, too long or has unprintable characters."""


class DuplicateName(ArenaError):
    """A bot or tournament with this name already exists."""


class InvalidSetting(ArenaError):
    """A tournament setting out of range (table size, games per table, move limit, ...)."""


class InvalidBootstrap(ArenaError):
    """A rating table's bootstrap asked for no resamples, or for more than one call may compute."""


class UnknownBot(ArenaError):
    """No bot has this name."""


class UnknownTournament(ArenaError):
    """No tournament has this name."""


class UnknownGame(ArenaError):
    """No game has this id."""


class EntriesClosed(ArenaError):
    """The tournament has started: its entry list is closed."""


class AlreadyEntered(ArenaError):
    """The bot is already entered in the tournament."""


class TournamentFull(ArenaError):
    """Entering a tournament that has its most entrants, or whose schedule would grow too large."""


class EntryCodeRefused(ArenaError):
    """Entering an invite-only tournament without its entry code, or with a wrong one."""


class NotEnoughEntrants(ArenaError):
    """A tournament cannot start with fewer entrants than seats at a table."""


class TournamentAlreadyStarted(ArenaError):
    """Starting a tournament that is running or finished."""


class TournamentFailed(TournamentAlreadyStarted):
    """Starting a tournament that failed; the message gives its reason."""


class GameNotScheduled(ArenaError):
    """Marking a game running that is not waiting to be played (or whose tournament is not running)."""


class GameNotRunning(ArenaError):
    """Committing a game that was never marked running (or was voided since)."""


class GameAlreadyFinished(ArenaError):
    """Committing a game a second time: refused, so nothing is counted twice."""


class ResultMismatch(ArenaError):
    """A game result that does not fit its scheduled game (seats, seed, points, ranks)."""


class InvalidPage(ArenaError):
    """A page size out of range, or a page token the arena did not issue for this list."""


class LeaseLost(ArenaError):
    """In a cluster, a node's write for a game (or a schedule) whose lease it no longer holds: it
    expired, or another node took it over. Nothing was written."""
