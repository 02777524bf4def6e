"""One SQLite store file shared by several stores, threads and processes: created once
whatever the race, every save counted, and `damage_session` (the hosting door's hook)
reaching exactly one row."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conformance.batteries._race_plan import SHARED, shared_id
from conformance.batteries._session_store_battery import _race
from reference_impl.store import (
    SessionFileError,
    SqliteSessions,
    UnreadableSessionError,
    damage_session,
    sqlite_sessions,
)

CHECKPOINT = '{"version": 1}'


def test_stores_opening_a_new_path_at_once_all_get_the_same_store(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    barrier = threading.Barrier(6)
    opened: list[SqliteSessions] = []
    failures: list[BaseException] = []

    def open_and_save(n: int) -> None:
        barrier.wait()
        try:
            store = sqlite_sessions(path)
            store.save(f"s{n}", CHECKPOINT, owner=None)
            opened.append(store)
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=open_and_save, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not failures
    for store in opened:
        assert all(store.load(f"s{n}") is not None for n in range(6))
        store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions.db"], "a scratch file was left"


def test_two_processes_saving_the_same_sessions_count_every_save(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    sqlite_sessions(path).close()
    writes = 40
    reports = _race("reference_impl.store:sqlite_sessions", path, writes, claims=5)
    assert all(not report["errors"] for report in reports.values())
    store = sqlite_sessions(path)
    for index in range(SHARED):
        loaded = store.load(shared_id(index))
        assert loaded is not None
        assert loaded.revision == 2 * writes // SHARED, "a save was lost or split"
    store.close()


def test_damage_session_makes_one_row_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    store = sqlite_sessions(path)
    store.save("hit", CHECKPOINT, owner="o")
    store.save("spared", CHECKPOINT, owner=None)
    assert damage_session(path, "hit") is True
    assert damage_session(path, "never-saved") is False
    with pytest.raises(UnreadableSessionError):
        store.load("hit")
    assert store.owner("hit") == "o", "damage touches the checkpoint only"
    assert store.load("spared") is not None
    store.close()


def test_damage_session_creates_no_store(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError):
        damage_session(tmp_path / "missing.db", "s")
    assert not (tmp_path / "missing.db").exists()
