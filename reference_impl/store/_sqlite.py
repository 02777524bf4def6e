"""The SQLite session store: one file, safe to share between processes, every write
whole.

Each save is one `BEGIN IMMEDIATE` transaction (the write lock is taken before the
owner is read, so two processes cannot both see "no owner" and both record theirs), and
every connection waits up to BUSY_TIMEOUT for another's lock. The store holds ONE
connection, opened with `check_same_thread=False` and used behind a lock: the host calls
it from `asyncio.to_thread`'s pool, a connection per thread would outlive those threads
and could not be closed from `close()`, and each call is far shorter than the lock's
cost matters for (see the numbers in docs/session-stores.md).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Final

from ._contract import StoredSession, check_session_id, check_storable, read_checkpoint
from ._errors import (
    SessionFileError,
    SessionOwnershipError,
    SessionStoreError,
    UnreadableSessionError,
)
from ._sqlite_file import FAILURES, TABLE, database_error, open_store_file

DAMAGED: Final = b"\xff\xfenot a checkpoint\x00"
"""What `damage_session` writes into a row: bytes that are neither UTF-8 nor JSON."""

_ROW: Final = f"SELECT checkpoint, owner, typeof(owner), revision FROM {TABLE} WHERE session_id = ?"


class SqliteSessions:
    """Sessions in one SQLite file (see the module docstring for why one connection)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = os.fspath(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = open_store_file(self._path)

    @property
    def path(self) -> str:
        return self._path

    def load(self, session_id: str) -> StoredSession | None:
        check_session_id(self._path, session_id)
        with self._lock:
            connection = self._open()
            try:
                row = connection.execute(_ROW, (session_id,)).fetchone()
            except FAILURES as error:
                raise database_error(self._path, error) from error
        if row is None:
            return None
        checkpoint = read_checkpoint(self._path, session_id, row[0])
        return StoredSession(
            session_id=session_id,
            checkpoint=checkpoint,
            owner=self._owner_of(session_id, row),
            revision=self._revision_of(session_id, row[3]),
        )

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        check_storable(self._path, session_id, checkpoint)
        with self._lock:
            connection = self._open()
            try:
                connection.execute("BEGIN IMMEDIATE")
            except FAILURES as error:
                raise database_error(self._path, error) from error
            try:
                self._write(connection, session_id, checkpoint, owner)
                connection.execute("COMMIT")
            except SessionStoreError:
                _roll_back(connection)
                raise
            except FAILURES as error:
                _roll_back(connection)
                raise database_error(self._path, error) from error

    def owner(self, session_id: str) -> str | None:
        check_session_id(self._path, session_id)
        with self._lock:
            connection = self._open()
            try:
                row = connection.execute(_ROW, (session_id,)).fetchone()
            except FAILURES as error:
                raise database_error(self._path, error) from error
        return None if row is None else self._owner_of(session_id, row)

    def forget(self, session_id: str) -> bool:
        check_session_id(self._path, session_id)
        with self._lock:
            connection = self._open()
            try:
                with _transaction(connection):
                    cursor = connection.execute(
                        f"DELETE FROM {TABLE} WHERE session_id = ?", (session_id,)
                    )
            except FAILURES as error:
                raise database_error(self._path, error) from error
            return cursor.rowcount > 0

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def damage(self, session_id: str) -> bool:
        """Make one stored session unreadable (see `damage_session`)."""
        check_session_id(self._path, session_id)
        with self._lock:
            return _damage(self._path, self._open(), session_id)

    # -- inside a call ---------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self._connection is None:
            raise SessionStoreError(self._path, "the store is closed")
        return self._connection

    def _write(
        self, connection: sqlite3.Connection, session_id: str, checkpoint: str, owner: str | None
    ) -> None:
        row = connection.execute(_ROW, (session_id,)).fetchone()
        if row is None:
            connection.execute(
                f"INSERT INTO {TABLE} (session_id, checkpoint, owner, revision)"
                " VALUES (?, ?, ?, 1)",
                (session_id, checkpoint, owner),
            )
            return
        recorded = self._owner_of(session_id, row)
        if owner is not None and recorded is not None and owner != recorded:
            raise SessionOwnershipError(self._path, session_id)
        read_checkpoint(self._path, session_id, row[0])  # an unreadable row is kept as it is
        connection.execute(
            f"UPDATE {TABLE} SET checkpoint = ?, owner = ?, revision = ? WHERE session_id = ?",
            (
                checkpoint,
                recorded if recorded is not None else owner,
                self._revision_of(session_id, row[3]) + 1,
                session_id,
            ),
        )

    def _owner_of(self, session_id: str, row: tuple[object, ...]) -> str | None:
        value, kind = row[1], row[2]
        if value is None:
            return None
        if kind != b"text" or not isinstance(value, bytes):
            raise UnreadableSessionError(self._path, session_id, "its owner is not text")
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableSessionError(
                self._path, session_id, f"its owner is not UTF-8 ({error.reason})"
            ) from error

    def _revision_of(self, session_id: str, value: object) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UnreadableSessionError(self._path, session_id, f"its revision is {value!r:.40}")
        return value


@contextmanager
def _transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any failure."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        _roll_back(connection)
        raise


def _damage(path: str, connection: sqlite3.Connection, session_id: str) -> bool:
    try:
        with _transaction(connection):
            cursor = connection.execute(
                f"UPDATE {TABLE} SET checkpoint = ? WHERE session_id = ?", (DAMAGED, session_id)
            )
    except FAILURES as error:
        raise database_error(path, error) from error
    return cursor.rowcount > 0


def _roll_back(connection: sqlite3.Connection) -> None:
    try:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    except FAILURES:  # a damaged file may refuse even this
        pass


def sqlite_sessions(path: str | os.PathLike[str]) -> SqliteSessions:
    """The session store in the SQLite file at `path` (created when nothing is there);
    a file that is not a usable store raises SessionFileError naming it."""
    return SqliteSessions(path)


def damage_session(path: str | os.PathLike[str], session_id: str) -> bool:
    """Write bytes that are not a checkpoint into one stored session's row, the way a
    real store goes bad, so a host's "unreadable is not absent" can be tested; True when
    the session was there. Call it while no host is writing that session."""
    where = os.fspath(path)
    check_session_id(where, session_id)
    if not os.path.lexists(where):
        raise SessionFileError(where, "unreadable", "no store file at this path")
    with closing(open_store_file(where)) as connection:
        return _damage(where, connection, session_id)
