"""Opening a session store's SQLite file: ours, readable, and the right version — or a
SessionFileError naming the file, with the file left exactly as it was.

The file says what it is three ways: `PRAGMA application_id`, `PRAGMA user_version`
(the schema version) and an identifying table holding our format name, so another
program's database, a later version's, or a file of no program at all is refused
rather than read as "no sessions" or written into. Only a path that does not exist is
a new store; it is built under a temporary name and linked into place, so a second
process opening the same path at the same moment never sees it half-made.

Schema 2 adds, beside the conversations, the session runtime's directory (agents,
conversations, message receipts: `_directory.py`), so a turn's checkpoint and its
receipt commit in one transaction. A schema-1 file keeps working: once it has passed
every check, it is upgraded in place (the three tables added, the stamps moved to 2) in
one transaction, so no reader ever sees it half-upgraded; a file that fails a check is
refused untouched, as before.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any, Final

from ._errors import SessionFileError

APPLICATION_ID: Final = 0x746C7373  # "tlss": turnlaw session store
SCHEMA_VERSION: Final = 2
UPGRADABLE: Final = frozenset({1})
"""Older schema versions this one upgrades in place (see the module docstring)."""
FORMAT: Final = "turnlaw-sessions"
BUSY_TIMEOUT: Final = 10.0
"""Seconds a connection waits for another process's write lock before giving up."""

IDENTITY_TABLE: Final = "turnlaw_store"
TABLE: Final = "turnlaw_sessions"
AGENTS: Final = "turnlaw_agents"
CONVERSATIONS: Final = "turnlaw_conversations"
RECEIPTS: Final = "turnlaw_receipts"
_SCHEMA_1: Final = (
    f"CREATE TABLE {IDENTITY_TABLE} (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
    f"INSERT INTO {IDENTITY_TABLE} VALUES ('format', '{FORMAT}')",
    f"INSERT INTO {IDENTITY_TABLE} VALUES ('schema', '1')",
    f"CREATE TABLE {TABLE} ("
    " session_id TEXT PRIMARY KEY NOT NULL,"
    " checkpoint TEXT NOT NULL,"
    " owner TEXT,"
    " revision INTEGER NOT NULL) WITHOUT ROWID",
)
_SCHEMA_2: Final = (
    f"CREATE TABLE {AGENTS} ("
    " agent_id TEXT PRIMARY KEY NOT NULL,"
    " record TEXT NOT NULL,"
    " created INTEGER NOT NULL) WITHOUT ROWID",
    f"CREATE TABLE {CONVERSATIONS} ("
    " conversation_id TEXT PRIMARY KEY NOT NULL,"
    " agent_id TEXT NOT NULL,"
    " created INTEGER NOT NULL) WITHOUT ROWID",
    f"CREATE INDEX {CONVERSATIONS}_by_agent ON {CONVERSATIONS} (agent_id, created)",
    f"CREATE TABLE {RECEIPTS} ("
    " receipt_id TEXT PRIMARY KEY NOT NULL,"
    " conversation_id TEXT NOT NULL,"
    " text TEXT NOT NULL,"
    " state TEXT NOT NULL,"
    " created INTEGER NOT NULL) WITHOUT ROWID",
    f"CREATE INDEX {RECEIPTS}_by_conversation ON {RECEIPTS} (conversation_id, created)",
    f"UPDATE {IDENTITY_TABLE} SET value = '2' WHERE key = 'schema'",
)
"""What schema 2 adds to schema 1: a new file runs both, an upgrade the second."""
_COLUMNS: Final = {
    TABLE: ("session_id", "checkpoint", "owner", "revision"),
    AGENTS: ("agent_id", "record", "created"),
    CONVERSATIONS: ("conversation_id", "agent_id", "created"),
    RECEIPTS: ("receipt_id", "conversation_id", "text", "state", "created"),
}
_OURS_1: Final = frozenset(
    {IDENTITY_TABLE, TABLE, f"sqlite_autoindex_{IDENTITY_TABLE}_1", f"sqlite_autoindex_{TABLE}_1"}
)
_OURS: Final = (
    _OURS_1
    | {
        name
        for table in (AGENTS, CONVERSATIONS, RECEIPTS)
        for name in (table, f"sqlite_autoindex_{table}_1")
    }
    | {f"{CONVERSATIONS}_by_agent", f"{RECEIPTS}_by_conversation"}
)
_HEADER: Final = b"SQLite format 3\x00"
FAILURES: Final = (sqlite3.Error, UnicodeDecodeError)
"""What SQLite raises on a damaged file; Python decodes its message, which a damaged
schema can make invalid UTF-8."""


def open_store_file(path: str) -> sqlite3.Connection:
    """A checked connection to the store at `path`, creating it if nothing is there."""
    if not os.path.lexists(path):
        _create(path)
    connection = _connect(path)
    try:
        _check(path, connection)
    except SessionFileError:
        connection.close()
        raise
    except FAILURES as error:
        connection.close()
        raise database_error(path, error) from error
    return connection


def database_error(path: str, error: Exception) -> SessionFileError:
    """What an SQLite failure on this file means, as the typed error naming it."""
    message = str(error)
    if "not a database" in message:
        return SessionFileError(path, "not-sqlite", f"SQLite says: {message}")
    if "locked" in message or "busy" in message:
        return SessionFileError(
            path, "busy", f"locked by another connection for over {BUSY_TIMEOUT}s ({message})"
        )
    if "unable to open" in message or "readonly" in message or "disk I/O" in message:
        return SessionFileError(path, "unreadable", f"SQLite says: {message}")
    return SessionFileError(path, "corrupt", f"SQLite says: {message}")


def _connect(path: str) -> sqlite3.Connection:
    """A connection to the existing file, after checking it looks like SQLite."""
    try:
        if not os.path.isfile(path):
            raise SessionFileError(path, "unreadable", "not a regular file")
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError as error:
        raise SessionFileError(path, "unreadable", f"cannot read the file ({error})") from error
    if not header:
        raise SessionFileError(
            path,
            "empty",
            "the file exists but is empty (0 bytes); only a path that does not exist is a "
            "new store: delete the file, or point at the right one",
        )
    if not header.startswith(_HEADER):
        raise SessionFileError(path, "not-sqlite", "not an SQLite database file")
    if len(header) < 100:
        raise SessionFileError(path, "corrupt", "the SQLite header is truncated")
    try:
        uri = Path(path).absolute().as_uri() + "?mode=rw"
        # One connection shared by the store's callers behind its lock (see _sqlite.py).
        connection = sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as error:
        raise SessionFileError(path, "unreadable", f"SQLite cannot open it ({error})") from error
    connection.text_factory = bytes  # decoded per column, so a bad row can be named
    return connection


def _check(path: str, connection: sqlite3.Connection) -> None:
    """Refuse a file that is not our store, or is ours from a later version, or is damaged."""
    application_id = _scalar(connection, "PRAGMA application_id")
    version = _scalar(connection, "PRAGMA user_version")
    names = {_text(row[0]) for row in connection.execute("SELECT name FROM sqlite_master")}
    if application_id != APPLICATION_ID:
        if application_id != 0 or version != 0:
            raise SessionFileError(
                path,
                "foreign",
                f"another program's SQLite file (application_id {application_id:#x}, "
                f"user_version {version})",
            )
        if not names:
            raise SessionFileError(
                path,
                "empty",
                "an SQLite file with no tables: only a path that does not exist is a new "
                "store; delete the file, or point at the right one",
            )
        shown = ", ".join(sorted(names)[:5])
        raise SessionFileError(
            path,
            "foreign",
            f"another program's SQLite file (it holds {shown}); sessions keep a file of their own",
        )
    if version > SCHEMA_VERSION:
        raise SessionFileError(
            path,
            "newer-schema",
            f"written by a later turnlaw (schema version {version}; this one reads "
            f"{SCHEMA_VERSION}); upgrade turnlaw to read it",
        )
    if version < 1 or not names <= _ours(version) or not _has_our_tables(connection, version):
        raise SessionFileError(
            path, "corrupt", f"stamped as turnlaw sessions, but its schema (v{version}) is broken"
        )
    verdict = connection.execute("PRAGMA quick_check(1)").fetchone()
    found = _text(verdict[0]) if verdict is not None else "no verdict"
    if found != "ok":
        raise SessionFileError(path, "corrupt", f"SQLite's quick check says: {found:.200}")
    mode = _text(connection.execute("PRAGMA journal_mode").fetchone()[0])
    if mode.lower() != "wal":  # ours are made WAL; a copy may have lost it
        connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")  # a committed turn survives power loss too
    if version in UPGRADABLE:
        _upgrade(connection)


def _ours(version: int) -> frozenset[str]:
    return _OURS_1 if version == 1 else _OURS


def _has_our_tables(connection: sqlite3.Connection, version: int) -> bool:
    tables = (TABLE,) if version == 1 else tuple(_COLUMNS)
    for table in tables:
        columns = tuple(_text(row[1]) for row in connection.execute(f"PRAGMA table_info({table})"))
        if columns != _COLUMNS[table]:
            return False
    identity = dict(
        (_text(key), _text(value))
        for key, value in connection.execute(f"SELECT key, value FROM {IDENTITY_TABLE}")
    )
    return identity.get("format") == FORMAT


def _upgrade(connection: sqlite3.Connection) -> None:
    """Schema 1 → 2 in one transaction. Under the write lock the version is read again:
    another process may have upgraded the file since it was checked."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        if _scalar(connection, "PRAGMA user_version") in UPGRADABLE:
            for statement in _SCHEMA_2:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _create(path: str) -> None:
    """Build the schema under a temporary name, then link it into place: the path never
    names a half-made store. Losing the race to another creator is fine: theirs is
    checked like any file."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, scratch = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".new", dir=folder
        )
    except OSError as error:
        raise SessionFileError(path, "unreadable", f"cannot create the file ({error})") from error
    os.close(handle)
    try:
        with closing(sqlite3.connect(scratch, isolation_level=None)) as connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("BEGIN IMMEDIATE")
            for statement in (*_SCHEMA_1, *_SCHEMA_2):
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        with contextlib.suppress(FileExistsError):
            os.link(scratch, path)
    except (OSError, sqlite3.Error) as error:
        raise SessionFileError(path, "unreadable", f"cannot create the file ({error})") from error
    finally:
        for leftover in (scratch, f"{scratch}-wal", f"{scratch}-shm"):
            if os.path.lexists(leftover):
                os.unlink(leftover)


def _scalar(connection: sqlite3.Connection, query: str) -> int:
    row = connection.execute(query).fetchone()
    return int(row[0]) if row is not None else 0


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
