"""A file that is not a usable session store is refused, typed, naming the file, and
left byte for byte as it was; a row that is not a checkpoint is unreadable (not absent)
and kept. `sqlite_sessions` opens and checks the file at construction, so a host fails
at start, not on its first request."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from reference_impl.errors import AgentError
from reference_impl.store import (
    SCHEMA_VERSION,
    SessionFileError,
    SessionStoreError,
    UnreadableSessionError,
    UnstorableSessionError,
    sqlite_sessions,
)

CHECKPOINT = '{"version": 1, "history": []}'


def _ours(path: Path, sessions: int = 3) -> Path:
    store = sqlite_sessions(path)
    for n in range(sessions):
        store.save(
            f"s{n}", CHECKPOINT.replace("[]", f'[{{"n": {n}, "pad": "{"x" * 900}"}}]'), owner=None
        )
    store.close()
    return path


def _sql(path: Path, *statements: str, values: tuple[object, ...] = ()) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        for statement in statements:
            connection.execute(statement, values)


def text_file(path: Path) -> None:
    path.write_text("sessions: none yet\n", encoding="utf-8")


def empty_file(path: Path) -> None:
    path.write_bytes(b"")


def another_apps_db(path: Path) -> None:
    _sql(
        path,
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
        "INSERT INTO users VALUES (1, 'x')",
    )


def another_apps_stamped_db(path: Path) -> None:
    _sql(path, "CREATE TABLE t (x)", "PRAGMA application_id = 1234", "PRAGMA user_version = 7")


def tableless_db(path: Path) -> None:
    _sql(path, "PRAGMA user_version = 0", "CREATE TABLE t (x)", "DROP TABLE t", "VACUUM")


def newer_schema(path: Path) -> None:
    _ours(path)
    _sql(path, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def broken_schema(path: Path) -> None:
    _ours(path)
    _sql(path, "DROP TABLE turnlaw_sessions")


def not_our_format(path: Path) -> None:
    _ours(path)
    _sql(path, "UPDATE turnlaw_store SET value = 'someone-else' WHERE key = 'format'")


def truncated_header(path: Path) -> None:
    _ours(path)
    path.write_bytes(path.read_bytes()[:60])


def truncated_pages(path: Path) -> None:
    _ours(path, sessions=40)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garbled_pages(path: Path) -> None:
    _ours(path, sessions=40)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for offset in range(page, len(data), page):  # every page after the first
        data[offset : offset + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))


def _open_and_read(path: Path) -> None:
    """Damage SQLite finds only when it reads a row counts too."""
    store = sqlite_sessions(path)
    try:
        store.load("s0")
    finally:
        store.close()


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "text file": (text_file, "not-sqlite"),
    "empty file": (empty_file, "empty"),
    "another app's database": (another_apps_db, "foreign"),
    "another app's stamped database": (another_apps_stamped_db, "foreign"),
    "an SQLite file with no tables": (tableless_db, "empty"),
    "a newer schema": (newer_schema, "newer-schema"),
    "our stamp, our table dropped": (broken_schema, "corrupt"),
    "our stamp, another format": (not_our_format, "corrupt"),
    "a truncated header": (truncated_header, "corrupt"),
    "truncated pages": (truncated_pages, "corrupt"),
    "garbled pages": (garbled_pages, "corrupt"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_that_is_not_a_usable_store_is_refused_and_untouched(
    tmp_path: Path, case: str
) -> None:
    make, reason = BAD_FILES[case]
    path = tmp_path / "sessions.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(SessionFileError) as raised:
        _open_and_read(path)
    assert raised.value.reason == reason
    assert str(path) in str(raised.value)
    assert isinstance(raised.value, AgentError)
    assert path.read_bytes() == before


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError) as raised:
        sqlite_sessions(tmp_path)
    assert raised.value.reason == "unreadable"


@pytest.mark.parametrize(
    ("stored", "why"),
    [
        (b"\xff\xfe\x00", "UTF-8"),
        ("not json", "not JSON"),
        ("[1, 2]", "not an object"),
        ("null", "not an object"),
    ],
)
def test_a_row_that_is_not_a_checkpoint_is_unreadable_and_kept(
    tmp_path: Path, stored: bytes | str, why: str
) -> None:
    path = _ours(tmp_path / "sessions.db")
    _sql(
        path, "UPDATE turnlaw_sessions SET checkpoint = ? WHERE session_id = 's1'", values=(stored,)
    )
    store = sqlite_sessions(path)
    try:
        with pytest.raises(UnreadableSessionError) as raised:
            store.load("s1")
        assert (
            why in str(raised.value)
            and "'s1'" in str(raised.value)
            and str(path) in str(raised.value)
        )
        with pytest.raises(UnreadableSessionError):
            store.save("s1", CHECKPOINT, owner=None)  # never overwritten by a fresh start
        assert store.load("s0") is not None
    finally:
        store.close()
    with closing(sqlite3.connect(path)) as connection:
        kept = connection.execute(
            "SELECT checkpoint FROM turnlaw_sessions WHERE session_id = 's1'"
        ).fetchone()
    assert kept == (stored,)


def test_an_owner_that_is_not_text_is_unreadable(tmp_path: Path) -> None:
    path = _ours(tmp_path / "sessions.db")
    _sql(path, "UPDATE turnlaw_sessions SET owner = x'ff00' WHERE session_id = 's2'")
    store = sqlite_sessions(path)
    with pytest.raises(UnreadableSessionError):
        store.owner("s2")
    store.close()


@pytest.mark.parametrize(
    ("session_id", "checkpoint", "field"),
    [
        ("lone \ud800 surrogate", CHECKPOINT, "session id"),
        ("s", '{"text": "\ud800"}', "checkpoint"),
        ("s", "[]", "checkpoint"),
        ("s", "{", "checkpoint"),
        (7, CHECKPOINT, "session id"),
        ("s", {"version": 1}, "checkpoint"),
    ],
)
def test_what_cannot_be_given_back_unchanged_is_refused_before_writing(
    tmp_path: Path, session_id: object, checkpoint: object, field: str
) -> None:
    store = sqlite_sessions(tmp_path / "sessions.db")
    with pytest.raises(UnstorableSessionError) as raised:
        store.save(session_id, checkpoint, owner=None)  # type: ignore[arg-type]
    assert raised.value.field == field
    assert isinstance(raised.value, ValueError)
    store.close()


def test_a_closed_store_refuses_calls(tmp_path: Path) -> None:
    store = sqlite_sessions(tmp_path / "sessions.db")
    store.close()
    store.close()  # twice is fine
    with pytest.raises(SessionStoreError, match="closed"):
        store.load("s")


def test_the_revision_counts_every_save(tmp_path: Path) -> None:
    store = sqlite_sessions(tmp_path / "sessions.db")
    for _ in range(3):
        store.save("s", CHECKPOINT, owner=None)
    loaded = store.load("s")
    assert loaded is not None and loaded.revision == 3
    store.close()


def test_a_new_file_is_wal_stamped_and_private(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    sqlite_sessions(path).close()
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert connection.execute("PRAGMA application_id").fetchone() == (0x746C7373,)
    assert path.stat().st_mode & 0o077 == 0  # conversations are nobody else's to read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"]
