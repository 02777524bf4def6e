"""The durable memory store: one SQLite file that says what it is, or a loud refusal.

The file identifies itself (`PRAGMA application_id`) and its schema version
(`PRAGMA user_version`), so a file of another program, of a later version, or of no
program at all is named and refused, never read as "no memories" or written into.
What counts as new: only a path that does not exist. An existing file is a store only
if it carries our stamp — a zero-length file, or an SQLite file with no tables, is
refused (`empty`): it is someone's mistake or another program's file, and memory that
silently starts over hides both. A file of the same table written before the stamp
existed (turnlaw ≤ 0.x) is stamped on its first write.

A new file is built under a temporary name and linked into place, so no process ever
sees it half-made. Journal mode is WAL (readers never block the writer), every
connection waits up to `BUSY_TIMEOUT` for a lock, a write is one transaction, and
every row read back is validated: a malformed row is an error naming the file, the row
and the column, not an untyped crash that makes its namespace unreadable. Each store
runs SQLite's `integrity_check` on its first use (once: it reads the whole file),
because a damaged index answers queries wrongly without SQLite noticing — and a row of
another namespace is never returned, whatever the index says.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Sequence
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from .errors import MemoryFileError, MemoryRowError, MemoryWriteError
from .memory import MemoryEntry

APPLICATION_ID: Final = 0x746C6D65  # "tlme": turnlaw memory entries
SCHEMA_VERSION: Final = 1
BUSY_TIMEOUT: Final = 5.0
"""Seconds a connection waits for another one's lock before giving up."""

_HEADER: Final = b"SQLite format 3\x00"
_TABLE: Final = "memory_entries"
_COLUMNS: Final = ("id", "namespace", "role", "turn", "text", "updated")
_SCHEMA: Final = (
    f"CREATE TABLE {_TABLE} ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " namespace TEXT NOT NULL,"
    " role TEXT NOT NULL,"
    " turn INTEGER NOT NULL,"
    " text TEXT NOT NULL,"
    " updated TEXT NOT NULL)",
    f"CREATE INDEX {_TABLE}_namespace ON {_TABLE} (namespace, id)",
)
_SELECT: Final = (
    "SELECT id, "
    + ", ".join(f"{column}, typeof({column})" for column in _COLUMNS[1:])
    + f" FROM {_TABLE} WHERE namespace = ? ORDER BY id"
)
_FAILURES: Final = (sqlite3.Error, UnicodeDecodeError)
"""What SQLite raises on a damaged file; Python decodes its message, which a damaged
schema can make invalid UTF-8."""
_OURS: Final = frozenset({_TABLE, f"{_TABLE}_namespace", "sqlite_sequence"})
"""Everything our schema puts in sqlite_master (AUTOINCREMENT adds sqlite_sequence)."""


class SqliteMemoryStore:
    """A durable store in one SQLite file, so memory outlives the process.

    Each call opens its own connection on a worker thread: sqlite3 connections are
    bound to the thread that made them, and the event loop must not block on disk.
    Every failure is a MemoryStoreError naming the file.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = os.fspath(path)
        self._verified = False  # integrity_check passed on this store's first use

    @property
    def path(self) -> str:
        return self._path

    async def add(self, entries: Sequence[MemoryEntry]) -> None:
        if entries:
            await asyncio.to_thread(self._add, list(entries))

    async def entries(self, namespace: str) -> list[MemoryEntry]:
        return await asyncio.to_thread(self._entries, namespace)

    # -- opening ---------------------------------------------------------------------

    def _file_error(self, reason: str, problem: str) -> MemoryFileError:
        return MemoryFileError(self._path, reason, problem)

    def _connect(self) -> sqlite3.Connection:
        """A connection to the existing file, after checking it looks like SQLite."""
        try:
            if not os.path.isfile(self._path):
                raise self._file_error("unreadable", "not a regular file")
            with open(self._path, "rb") as file:
                header = file.read(100)
        except OSError as error:
            raise self._file_error("unreadable", f"cannot read the file ({error})") from error
        if not header:
            raise self._file_error(
                "empty",
                "the file exists but is empty (0 bytes); only a path that does not "
                "exist is a new store: delete the file, or point at the right one",
            )
        if not header.startswith(_HEADER):
            raise self._file_error("not-sqlite", "not an SQLite database file")
        if len(header) < 100:
            raise self._file_error("corrupt", "the SQLite header is truncated")
        try:
            uri = Path(self._path).absolute().as_uri() + "?mode=rw"
            connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as error:
            raise self._file_error("unreadable", f"SQLite cannot open it ({error})") from error
        connection.text_factory = bytes  # decoded per column, so a bad row can be named
        return connection

    def _check_schema(self, connection: sqlite3.Connection) -> bool:
        """Refuse a file that is not our store; True when it is an unstamped legacy one."""
        application_id = _scalar(connection, "PRAGMA application_id")
        version = _scalar(connection, "PRAGMA user_version")
        names = {
            _name(row[0]) for row in connection.execute("SELECT name FROM sqlite_master").fetchall()
        }
        if application_id == APPLICATION_ID:
            if version > SCHEMA_VERSION:
                raise self._file_error(
                    "newer-schema",
                    f"written by a later turnlaw (schema version {version}; this one reads "
                    f"{SCHEMA_VERSION}); upgrade turnlaw to read it",
                )
            if version < 1 or not self._has_our_table(connection):
                raise self._file_error(
                    "corrupt", f"stamped as turnlaw memory, but its schema (v{version}) is broken"
                )
            return False
        if application_id != 0 or version != 0:
            raise self._file_error(
                "foreign",
                f"another program's SQLite file (application_id {application_id:#x}, "
                f"user_version {version})",
            )
        if not names:
            raise self._file_error(
                "empty",
                "an SQLite file with no tables: only a path that does not exist is "
                "a new store; delete the file, or point at the right one",
            )
        if names <= _OURS and self._has_our_table(connection):
            return True
        shown = ", ".join(sorted(names - _OURS)[:5]) or ", ".join(sorted(names)[:5])
        raise self._file_error(
            "foreign",
            f"another program's SQLite file (it holds {shown}); memory keeps a file of its own",
        )

    @staticmethod
    def _has_our_table(connection: sqlite3.Connection) -> bool:
        columns = connection.execute(f"PRAGMA table_info({_TABLE})").fetchall()
        return tuple(_name(column[1]) for column in columns) == _COLUMNS

    def _open_checked(self, connection: sqlite3.Connection) -> bool:
        try:
            legacy = self._check_schema(connection)
            if not self._verified:
                self._check_integrity(connection)
                self._verified = True
            return legacy
        except _FAILURES as error:
            raise self._database_error(error) from error

    def _check_integrity(self, connection: sqlite3.Connection) -> None:
        """Once per store: damage SQLite does not notice on its own (an index that no
        longer matches its table answers queries wrongly) is found here, not in recall."""
        verdict = connection.execute("PRAGMA integrity_check(1)").fetchone()
        found = _name(verdict[0]) if verdict is not None else "no verdict"
        if found != "ok":
            raise self._file_error("corrupt", f"SQLite's integrity check says: {found:.200}")

    def _database_error(self, error: Exception) -> MemoryFileError:
        message = str(error)
        if "not a database" in message:
            return self._file_error("not-sqlite", f"SQLite says: {message}")
        if "locked" in message or "busy" in message:
            return self._file_error(
                "unreadable", f"locked by another connection for over {BUSY_TIMEOUT}s ({message})"
            )
        if "unable to open" in message or "readonly" in message:
            return self._file_error("unreadable", f"SQLite says: {message}")
        return self._file_error("corrupt", f"SQLite says: {message}")

    # -- creating --------------------------------------------------------------------

    def _create(self) -> None:
        """Build the schema under a temporary name, then link it into place: the path
        never names a half-made store. Losing the race to another creator is fine."""
        folder = os.path.dirname(os.path.abspath(self._path))
        try:
            handle, scratch = tempfile.mkstemp(
                prefix=f".{os.path.basename(self._path)}.", suffix=".new", dir=folder
            )
        except OSError as error:
            raise self._file_error("unreadable", f"cannot create the file ({error})") from error
        os.close(handle)
        try:
            with closing(sqlite3.connect(scratch, isolation_level=None)) as connection:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                connection.execute("COMMIT")
            # created meanwhile by another writer: theirs is checked like any file
            with contextlib.suppress(FileExistsError):
                os.link(scratch, self._path)
        except (OSError, sqlite3.Error) as error:
            raise self._file_error("unreadable", f"cannot create the file ({error})") from error
        finally:
            for leftover in (scratch, f"{scratch}-wal", f"{scratch}-shm"):
                if os.path.lexists(leftover):
                    os.unlink(leftover)

    # -- writing and reading ---------------------------------------------------------

    def _add(self, entries: Sequence[MemoryEntry]) -> None:
        if not os.path.lexists(self._path):
            self._create()
        rows = [(e.namespace, e.role, e.turn, e.text, e.updated.isoformat()) for e in entries]
        with closing(self._connect()) as connection:
            try:
                connection.execute("BEGIN IMMEDIATE")
            except _FAILURES as error:
                raise self._database_error(error) from error
            try:
                if self._open_checked(connection):
                    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                connection.executemany(
                    f"INSERT INTO {_TABLE} (namespace, role, turn, text, updated)"
                    " VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
                connection.execute("COMMIT")
            except MemoryFileError:
                _roll_back(connection)
                raise
            except _FAILURES as error:
                _roll_back(connection)
                raise MemoryWriteError(self._path, f"SQLite says: {error}") from error

    def _entries(self, namespace: str) -> list[MemoryEntry]:
        if not os.path.lexists(self._path):
            return []  # reading creates nothing; the first write does
        with closing(self._connect()) as connection:
            try:
                connection.execute("BEGIN")  # one snapshot for the checks and the rows
                self._open_checked(connection)
                rows = connection.execute(_SELECT, (namespace,)).fetchall()
                connection.execute("COMMIT")
            except _FAILURES as error:
                raise self._database_error(error) from error
        entries = [self._entry(row) for row in rows]
        for row, entry in zip(rows, entries, strict=True):
            if entry.namespace != namespace:  # a damaged index: never show another's entry
                raise self._file_error(
                    "corrupt",
                    f"row {row[0]} of namespace {entry.namespace!r} was returned "
                    f"for {namespace!r}: its index is damaged",
                )
        return entries

    def _entry(self, row: tuple[Any, ...]) -> MemoryEntry:
        """One stored row as an entry, or a MemoryRowError naming its id and column.

        `row` is the id, then each column's value and its SQLite storage class."""
        row_id = row[0]
        values: dict[str, Any] = {}
        for position, column in enumerate(_COLUMNS[1:]):
            value, kind = row[1 + 2 * position], _name(row[2 + 2 * position])
            wanted = "integer" if column == "turn" else "text"
            if kind != wanted:
                raise MemoryRowError(self._path, row_id, column, f"expected {wanted}, got {kind}")
            if column == "turn":
                values[column] = value
                continue
            try:
                values[column] = value.decode("utf-8")
            except UnicodeDecodeError as error:
                raise MemoryRowError(
                    self._path, row_id, column, f"not UTF-8 text ({error.reason})"
                ) from error
        try:
            values["updated"] = datetime.fromisoformat(values["updated"])
        except ValueError as error:
            raise MemoryRowError(
                self._path, row_id, "updated", f"not an ISO 8601 time: {values['updated']!r:.80}"
            ) from error
        try:
            return MemoryEntry.model_validate(values)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            field = ".".join(str(part) for part in first["loc"]) or "(row)"
            raise MemoryRowError(self._path, row_id, field, first["msg"]) from error


def _roll_back(connection: sqlite3.Connection) -> None:
    with contextlib.suppress(*_FAILURES):  # a damaged file may refuse even this
        if connection.in_transaction:
            connection.execute("ROLLBACK")


def _scalar(connection: sqlite3.Connection, query: str) -> int:
    row = connection.execute(query).fetchone()
    return int(row[0]) if row is not None else 0


def _name(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
