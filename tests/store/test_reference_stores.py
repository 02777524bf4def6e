"""The session-store battery against the reference's two stores, as a user would run it
against theirs: the SQLite one through import paths (so its second process opens it
too), the memory one through overrides."""

from __future__ import annotations

from pathlib import Path

from conformance.batteries import SessionStoreBattery, SessionStoreLike
from reference_impl.store import (
    MemorySessions,
    SessionOwnershipError,
    UnreadableSessionError,
    memory_sessions,
)


class TestSqliteSessions(SessionStoreBattery):
    store_spec = "reference_impl.store:sqlite_sessions"
    damage_spec = "reference_impl.store:damage_session"
    unreadable_error = UnreadableSessionError
    ownership_error = SessionOwnershipError


class TestMemorySessions(SessionStoreBattery):
    persistent = False
    unreadable_error = UnreadableSessionError
    ownership_error = SessionOwnershipError

    def make_store(self, path: Path) -> SessionStoreLike:
        return memory_sessions()

    def damage(self, store: SessionStoreLike, path: Path, session_id: str) -> None:
        assert isinstance(store, MemorySessions)
        assert store.damage(session_id)
