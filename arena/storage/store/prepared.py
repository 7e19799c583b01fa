"""Statements for the hot path, run on the DB-API cursor: SQLAlchemy Core compiles each once per
dialect, with the type conversions it would apply, and each execution is one driver call.

A finished game's commit is a handful of small statements; through a SQLAlchemy connection each
costs tens of microseconds of Python around a few of the database's (its cache key, execution
context and result object), most of the commit on SQLite (docs/benchmarks.md). Here the SQL text,
the order of its parameters and their bind processors (datetimes, JSON, enums, as SQLAlchemy
would convert them) are worked out once; the sqlite3 module and psycopg then cache the prepared
statement on their connection. A driver error is raised as SQLAlchemy raises it (the same
`sqlalchemy.exc` class, the connection invalidated when it was lost), so callers and retries
cannot tell the difference.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.compiler import Compiled
from sqlalchemy.sql.elements import ClauseElement


class Prepared:
    """A Core statement, compiled for each dialect it is run on."""

    def __init__(self, statement: ClauseElement) -> None:
        self._statement = statement
        self._by_dialect: dict[str, _Compiled] = {}

    def compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(dialect.name)
        if found is None:
            found = self._by_dialect[dialect.name] = _Compiled(self._statement.compile(dialect=dialect), dialect)
        return found


class _Compiled:
    """The SQL text of a statement for one dialect, and how to turn values into its parameters."""

    def __init__(self, compiled: Compiled, dialect: Dialect) -> None:
        self.sql = str(compiled)
        binds: Mapping[sa.BindParameter[Any], str] = compiled.bind_names  # type: ignore[attr-defined]
        self._defaults = {name: bind.effective_value for bind, name in binds.items() if not bind.required}
        """The values the statement itself holds (its literals), by parameter name."""
        self._order: Sequence[str] | None = compiled.positiontup if dialect.positional else None  # type: ignore[attr-defined]
        self._processors: dict[str, Callable[[Any], Any]] = {}
        for bind, name in binds.items():
            if bind.expanding:
                raise ValueError(f"{name}: an expanding parameter (IN over a list) cannot be prepared")
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                self._processors[name] = processor

    def parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
        if not (self._defaults or self._processors):  # most rows of a commit: the values as they are
            return values if self._order is None else tuple(values[name] for name in self._order)
        merged = {**self._defaults, **values}
        for name, processor in self._processors.items():
            merged[name] = processor(merged[name])
        return merged if self._order is None else tuple(merged[name] for name in self._order)


class Rows:
    """A write of many rows of `table` in one statement: an INSERT of `columns` or, with `key`, an
    UPDATE of `columns` of the rows whose `key` matches (each maps a parameter name to its column).

    On PostgreSQL the rows go as one JSON parameter through `json_to_recordset`: one statement
    whatever their number, where an executemany through psycopg's pipeline costs a message and a
    pass of its Python per row, and one string where an array per column costs psycopg a pass
    over each list to find and dump its elements' type (docs/benchmarks.md). The values are
    numbers, text and NULLs, which JSON carries exactly (a float's repr reads back as itself).
    Elsewhere (SQLite, in the process) each row is one execution."""

    def __init__(self, table: sa.Table, columns: Mapping[str, str], key: tuple[str, str] | None = None) -> None:
        self._table = table
        self._columns = dict(columns)
        self._key = key
        params = {**columns, **dict([key])} if key else columns
        if key is None:
            each: ClauseElement = sa.insert(table).values({column: sa.bindparam(p) for p, column in params.items()})
        else:
            each = (
                sa.update(table)
                .where(table.c[key[1]] == sa.bindparam(key[0]))
                .values({column: sa.bindparam(p) for p, column in columns.items()})
            )
        self.each = Prepared(each)
        self.params = list(params)
        self._recordset: Prepared | None = None

    def recordset(self, dialect: Dialect) -> Prepared:
        """The statement over one JSON parameter `rows`, a list of objects keyed by `params` (PostgreSQL)."""
        if self._recordset is None:
            table = self._table.name
            names = {**self._columns, **dict([self._key])} if self._key else self._columns
            fields = (f"{p} {self._table.c[c].type.compile(dialect=dialect)}" for p, c in names.items())
            rows = f"json_to_recordset(CAST(:rows AS json)) AS u({', '.join(fields)})"
            if self._key is None:
                sql = f"INSERT INTO {table} ({', '.join(names.values())}) SELECT * FROM {rows}"
            else:
                sets = ", ".join(f"{c} = u.{p}" for p, c in self._columns.items())
                param, column = self._key
                sql = f"UPDATE {table} SET {sets} FROM {rows} WHERE {table}.{column} = u.{param}"
            self._recordset = Prepared(sa.text(sql))
        return self._recordset


class Cursor:
    """A DB-API cursor of a SQLAlchemy connection's transaction, running `Prepared` statements."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._dialect = connection.dialect
        raw = connection.connection.dbapi_connection
        assert raw is not None
        self._raw = raw
        self._cursor = raw.cursor()
        self._pipeline: Any = None

    def execute(self, statement: Prepared, values: Mapping[str, Any]) -> Any:
        """Run `statement` once; the cursor, to fetch from."""
        compiled = statement.compiled(self._dialect)
        with self._errors(compiled.sql):
            self._cursor.execute(compiled.sql, compiled.parameters(values))
        return self._cursor

    def executemany(self, statement: Prepared, rows: Sequence[Mapping[str, Any]]) -> None:
        compiled = statement.compiled(self._dialect)
        with self._errors(compiled.sql):
            self._cursor.executemany(compiled.sql, [compiled.parameters(row) for row in rows])  # type: ignore[arg-type]

    def fetch_together(self, *queries: tuple[Prepared, Mapping[str, Any]], synced: bool = False) -> list[Sequence[Any]]:
        """Every row of each query. Inside `pipeline` on PostgreSQL they are sent at once, each on a
        cursor of its own, and the first fetch waits for every answer: one round trip for them all.
        With `synced`, a Sync ends the batch: until the next one the session is then idle in its
        transaction, which `idle_in_transaction_session_timeout` bounds (after a fetch alone it
        stays active, unbounded). On SQLite they run one after another. No query may need another's
        answer."""
        if getattr(self._raw, "pipeline", None) is None:
            return [self.execute(statement, values).fetchall() for statement, values in queries]
        sent = []
        for statement, values in queries:
            compiled = statement.compiled(self._dialect)
            cursor = self._raw.cursor()
            with self._errors(compiled.sql):
                cursor.execute(compiled.sql, compiled.parameters(values))
            sent.append((cursor, compiled.sql))
        if synced and self._pipeline is not None:
            with self._errors(sent[-1][1]):
                self._pipeline.sync()
        rows: list[Sequence[Any]] = []
        for cursor, sql in sent:
            with self._errors(sql):
                rows.append(cursor.fetchall())
            cursor.close()
        return rows

    def write_rows(self, rows: Rows, values: Sequence[Mapping[str, Any]]) -> None:
        """Write `values` (one mapping of `rows.params` per row) with `rows`' statement."""
        if self._dialect.name == "postgresql":
            self.execute(
                rows.recordset(self._dialect),
                {"rows": json.dumps([{p: row[p] for p in rows.params} for row in values])},
            )
        else:
            self.executemany(rows.each, values)

    @contextmanager
    def pipeline(self) -> Iterator[None]:
        """Send the statements run inside without waiting for each one's answer, where the driver
        can (psycopg's pipeline mode: one round trip for them all); on SQLite, as they are."""
        pipeline = getattr(self._raw, "pipeline", None)
        if pipeline is None:
            yield
            return
        with self._errors("pipeline"), pipeline() as self._pipeline:
            try:
                yield
            finally:
                self._pipeline = None

    def commit_in_pipeline(self) -> None:
        """Inside `pipeline` on PostgreSQL, queue the transaction's COMMIT with its writes, so they
        take one round trip (the session's commit then finds nothing left to do); elsewhere
        nothing: the session's commit does it."""
        if getattr(self._raw, "pipeline", None) is not None:
            with self._errors("COMMIT"):
                self._raw.commit()

    def close(self) -> None:
        self._cursor.close()

    @contextmanager
    def _errors(self, sql: str) -> Iterator[None]:
        """A driver error as SQLAlchemy would raise it, the connection invalidated if it was lost."""
        dbapi = self._dialect.loaded_dbapi
        try:
            yield
        except dbapi.Error as exc:
            lost = self._dialect.is_disconnect(exc, self._raw, self._cursor)
            if lost:
                self._connection.invalidate(exc)
            raise sa.exc.DBAPIError.instance(
                sql, None, exc, dbapi.Error, hide_parameters=True, connection_invalidated=lost, dialect=self._dialect
            ) from exc


def loaded(value: Any) -> Any:
    """A JSON column's value as the driver returned it: text on SQLite, already parsed by psycopg."""
    return json.loads(value) if isinstance(value, str) else value
