"""An id no store can hold (a lone surrogate arrives easily in a JSON body's
`"\\ud800"`) is refused typed by every call, on both stores: a host can answer it before
running a turn it could never persist, instead of crashing inside SQLite's binding."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from reference_impl.store import (
    SessionStore,
    UnstorableSessionError,
    memory_sessions,
    sqlite_sessions,
)

STORES: dict[str, Callable[[Path], SessionStore]] = {
    "memory": lambda path: memory_sessions(),
    "sqlite": lambda path: sqlite_sessions(path / "sessions.db"),
}
CALLS: dict[str, Callable[[SessionStore, str], object]] = {
    "load": lambda store, sid: store.load(sid),
    "owner": lambda store, sid: store.owner(sid),
    "forget": lambda store, sid: store.forget(sid),
    "save": lambda store, sid: store.save(sid, "{}", owner=None),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("kind", sorted(STORES))
def test_an_id_that_is_not_unicode_is_refused_typed(tmp_path: Path, kind: str, call: str) -> None:
    store = STORES[kind](tmp_path)
    try:
        with pytest.raises(UnstorableSessionError) as raised:
            CALLS[call](store, "half \ud83d of an emoji")
        assert raised.value.field == "session id"
    finally:
        store.close()


@pytest.mark.parametrize("kind", sorted(STORES))
def test_both_stores_are_session_stores(tmp_path: Path, kind: str) -> None:
    store = STORES[kind](tmp_path)
    assert isinstance(store, SessionStore)
    store.close()
