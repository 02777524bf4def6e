"""The session-store battery against the reference's two stores, as a user would run it
against theirs: the SQLite one through import paths (so its second process opens it
too), the memory one through overrides."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from conformance.batteries import SessionStoreBattery, SessionStoreLike
from reference_impl.store import (
    MemorySessions,
    SessionOwnershipError,
    UnreadableSessionError,
    memory_sessions,
)

pytestmark = pytest.mark.timeout(300)
"""The round trip's examples write real files, and a second process writes the SQLite one."""


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


class _SlowSaves:
    """A store on a machine busy with something else: every save takes 10 ms."""

    def __init__(self, inner: SessionStoreLike) -> None:
        self._inner = inner

    def save(self, session_id: str, checkpoint: str, owner: str | None) -> None:
        time.sleep(0.01)
        self._inner.save(session_id, checkpoint, owner=owner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_the_round_trip_does_not_time_the_machine(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """A battery made under a profile with a 1 ms deadline still passes a correct store
    whose saves are slow: what the round trip judges is what loads back, not how fast."""
    before = settings.get_current_profile_name()
    settings.register_profile("hasty", deadline=1, max_examples=5, derandomize=True)
    settings.load_profile("hasty")
    try:

        class SlowStore(SessionStoreBattery):
            persistent = False

            def make_store(self, path: Path) -> SessionStoreLike:
                return _SlowSaves(memory_sessions())  # type: ignore[return-value]

    finally:
        settings.load_profile(before)
    SlowStore().test_every_saved_checkpoint_loads_back(tmp_path_factory=tmp_path_factory)  # type: ignore[attr-defined]
