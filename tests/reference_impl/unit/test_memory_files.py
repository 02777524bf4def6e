"""The SQLite memory file: a store says what it is, and anything else is refused by name.

Real files throughout: made empty, foreign, newer, corrupt or malformed with the
sqlite3 module and raw bytes, the way a careless user or another program would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from reference_impl import (
    MemoryEntry,
    MemoryFileError,
    MemoryRowError,
    MemoryStoreError,
    MemoryWriteError,
    SqliteMemoryStore,
)
from reference_impl._sqlite_memory import APPLICATION_ID, SCHEMA_VERSION

T0 = datetime(2026, 11, 30, 3, 44, 14, tzinfo=UTC)
LEGACY_TABLE = (
    "CREATE TABLE IF NOT EXISTS memory_entries ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, role TEXT NOT NULL,"
    " turn INTEGER NOT NULL, text TEXT NOT NULL, updated TEXT NOT NULL)"
)
LEGACY_INDEX = (
    "CREATE INDEX IF NOT EXISTS memory_entries_namespace ON memory_entries (namespace, id)"
)


def entry(text: str, *, role: str = "user", namespace: str = "t/p/c") -> MemoryEntry:
    return MemoryEntry.model_validate(
        {"namespace": namespace, "role": role, "turn": 1, "text": text, "updated": T0}
    )


def sql(path: Path, *statements: str) -> None:
    with closing(sqlite3.connect(path)) as connection, connection:
        for statement in statements:
            connection.execute(statement)


def pragma(path: Path, name: str) -> object:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(f"PRAGMA {name}").fetchone()[0]


async def written_store(tmp_path: Path) -> tuple[SqliteMemoryStore, Path]:
    path = tmp_path / "memory.db"
    store = SqliteMemoryStore(path)
    await store.add([entry("Book me a table for two"), entry("Booked.", role="assistant")])
    return store, path


# --- what counts as new --------------------------------------------------------------


async def test_a_path_that_does_not_exist_is_a_new_store_stamped_versioned_and_in_wal(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    store = SqliteMemoryStore(path)
    assert await store.entries("t/p/c") == []
    assert not path.exists(), "reading creates nothing"
    await store.add([entry("kept")])
    assert pragma(path, "application_id") == APPLICATION_ID
    assert pragma(path, "user_version") == SCHEMA_VERSION
    assert pragma(path, "journal_mode") == "wal"
    assert [e.text for e in await store.entries("t/p/c")] == ["kept"]
    assert sorted(p.name for p in tmp_path.iterdir() if ".new" in p.name) == []


async def test_a_zero_length_file_is_refused_not_read_as_empty_memory(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    path.touch()
    store = SqliteMemoryStore(path)
    with pytest.raises(MemoryFileError) as raised:
        await store.entries("t/p/c")
    assert raised.value.reason == "empty" and str(path) in str(raised.value)
    with pytest.raises(MemoryFileError, match=r"\[empty\]"):
        await store.add([entry("x")])
    assert path.stat().st_size == 0, "the file is left as it was"


async def test_an_sqlite_file_with_no_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    sql(path, "VACUUM")
    assert path.stat().st_size == 0 or path.read_bytes().startswith(b"SQLite format 3")
    if path.stat().st_size == 0:  # some SQLite builds write nothing for VACUUM on a new file
        sql(path, "CREATE TABLE t (x)", "DROP TABLE t")
    with pytest.raises(MemoryFileError) as raised:
        await SqliteMemoryStore(path).add([entry("x")])
    assert raised.value.reason == "empty"


# --- files that are not ours ---------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"not a database at all\n", b"\x00" * 4096, b"SQLite format 2\x00" + b"\x00" * 200],
    ids=["text", "zeros", "almost-a-header"],
)
async def test_a_file_that_is_not_sqlite_is_named(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(content)
    with pytest.raises(MemoryFileError) as raised:
        await SqliteMemoryStore(path).entries("t/p/c")
    assert raised.value.reason == "not-sqlite"
    assert raised.value.where == str(path)
    assert path.read_bytes() == content


async def test_another_programs_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    sql(path, "CREATE TABLE unrelated (x INTEGER)")
    store = SqliteMemoryStore(path)
    for attempt in (store.entries("n"), store.add([entry("x", namespace="n")])):
        with pytest.raises(MemoryFileError) as raised:
            await attempt
        assert raised.value.reason == "foreign" and "unrelated" in str(raised.value)
    with closing(sqlite3.connect(path)) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
    assert names == ["unrelated"]


@pytest.mark.parametrize(
    ("application_id", "user_version", "reason"),
    [
        (0x12345678, 0, "foreign"),
        (0, 7, "foreign"),
        (APPLICATION_ID, SCHEMA_VERSION + 1, "newer-schema"),
    ],
)
async def test_a_file_stamped_by_someone_else_or_a_later_version_is_refused(
    tmp_path: Path, application_id: int, user_version: int, reason: str
) -> None:
    store, path = await written_store(tmp_path)
    sql(path, f"PRAGMA application_id = {application_id}", f"PRAGMA user_version = {user_version}")
    with pytest.raises(MemoryFileError) as raised:
        await store.entries("t/p/c")
    assert raised.value.reason == reason and str(path) in str(raised.value)


async def test_a_directory_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(MemoryFileError) as raised:
        await SqliteMemoryStore(tmp_path).entries("t/p/c")
    assert raised.value.reason == "unreadable"


async def test_a_store_in_a_folder_that_does_not_exist_fails_typed(tmp_path: Path) -> None:
    with pytest.raises(MemoryFileError, match="cannot create"):
        await SqliteMemoryStore(tmp_path / "gone" / "memory.db").add([entry("x")])


async def test_a_truncated_file_is_corrupt(tmp_path: Path) -> None:
    store, path = await written_store(tmp_path)
    await store.add([entry("y" * 3000) for _ in range(20)])  # several pages
    path.write_bytes(path.read_bytes()[:4096])
    with pytest.raises(MemoryStoreError) as raised:
        await store.entries("t/p/c")
    assert str(path) in str(raised.value)


async def test_a_file_written_before_the_stamp_is_read_and_stamped_on_write(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    sql(
        path,
        LEGACY_TABLE,
        LEGACY_INDEX,
        "INSERT INTO memory_entries (namespace, role, turn, text, updated)"
        f" VALUES ('t/p/c', 'user', 1, 'old', '{T0.isoformat()}')",
    )
    store = SqliteMemoryStore(path)
    assert [e.text for e in await store.entries("t/p/c")] == ["old"]
    assert pragma(path, "application_id") == 0
    await store.add([entry("new")])
    assert pragma(path, "application_id") == APPLICATION_ID
    assert [e.text for e in await store.entries("t/p/c")] == ["old", "new"]


# --- malformed rows ------------------------------------------------------------------


def insert(values: str) -> str:
    return f"INSERT INTO memory_entries (namespace, role, turn, text, updated) VALUES ({values})"


NOW = f"'{T0.isoformat()}'"
BAD_ROWS: dict[str, tuple[str, str]] = {
    "role-system": (f"'t/p/c', 'system', 1, 'x', {NOW}", "role"),
    "turn-text": (f"'t/p/c', 'user', 'three', 'x', {NOW}", "turn"),
    "turn-zero": (f"'t/p/c', 'user', 0, 'x', {NOW}", "turn"),
    "turn-real": (f"'t/p/c', 'user', 1.5, 'x', {NOW}", "turn"),
    "text-blob": (f"'t/p/c', 'user', 1, x'00ff', {NOW}", "text"),
    "text-not-utf8": (f"'t/p/c', 'user', 1, CAST(x'ff' AS TEXT), {NOW}", "text"),
    "updated-prose": ("'t/p/c', 'user', 1, 'x', 'yesterday'", "updated"),
    "updated-naive": ("'t/p/c', 'user', 1, 'x', '2026-01-01T00:00:00'", "updated"),
}


@pytest.mark.parametrize("bad", list(BAD_ROWS), ids=list(BAD_ROWS))
async def test_a_malformed_row_is_named_by_file_row_and_column(tmp_path: Path, bad: str) -> None:
    store, path = await written_store(tmp_path)
    values, column = BAD_ROWS[bad]
    sql(path, insert(values))
    with pytest.raises(MemoryRowError) as raised:
        await store.entries("t/p/c")
    assert (raised.value.row, raised.value.field) == (3, column)
    assert str(path) in str(raised.value) and "row 3" in str(raised.value)
    assert await store.entries("another/namespace") == [], "other namespaces still read"


# --- writes --------------------------------------------------------------------------


def failing_on(text: str) -> Callable[[Path], None]:
    def install(path: Path) -> None:
        sql(
            path,
            "CREATE TRIGGER refuse BEFORE INSERT ON memory_entries"
            f" WHEN NEW.text = '{text}' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END",
        )

    return install


async def test_a_write_is_one_transaction_and_its_failure_is_typed(tmp_path: Path) -> None:
    store, path = await written_store(tmp_path)
    before = await store.entries("t/p/c")
    failing_on("second")(path)
    with pytest.raises(MemoryWriteError) as raised:
        await store.add([entry("first"), entry("second", role="assistant")])
    assert "refused by trigger" in str(raised.value) and str(path) in str(raised.value)
    assert await store.entries("t/p/c") == before, "neither entry was stored"


async def test_an_index_that_no_longer_matches_its_table_is_found(tmp_path: Path) -> None:
    """SQLite answers queries from a damaged index without noticing; the store's
    integrity check on first use does notice, before recall shows wrong entries."""
    _, path = await written_store(tmp_path)
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA writable_schema = ON")
        connection.execute(
            "UPDATE sqlite_master SET sql = 'CREATE INDEX memory_entries_namespace ON"
            " memory_entries (text, id)' WHERE name = 'memory_entries_namespace'"
        )
        connection.commit()
    with pytest.raises(MemoryFileError) as raised:
        await SqliteMemoryStore(path).entries("t/p/c")
    assert raised.value.reason == "corrupt" and "integrity check" in str(raised.value)
