"""Whatever bytes of a store file go bad, every call either answers correctly or raises
a SessionStoreError (typed, naming the file): never an untyped crash, never a
checkpoint that is not one. Hypothesis garbles a real store file (a run of bytes
overwritten anywhere, or the file cut short)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.store import SessionStoreError, sqlite_sessions

SESSIONS = 30


def _make(path: Path) -> bytes:
    store = sqlite_sessions(path)
    for n in range(SESSIONS):
        store.save(f"s{n}", json.dumps({"n": n, "text": "t" * (50 * n)}), owner=f"o{n % 3}")
    store.close()
    return path.read_bytes()


@settings(deadline=None)  # each example writes a fresh store, fsynced save by save
@given(
    start=st.floats(min_value=0, max_value=1, exclude_max=True),
    garbage=st.binary(min_size=1, max_size=64),
    cut=st.booleans(),
)
def test_a_garbled_store_file_is_typed_or_read_right(
    tmp_path_factory: pytest.TempPathFactory, start: float, garbage: bytes, cut: bool
) -> None:
    folder = tmp_path_factory.mktemp("garbled")
    path = folder / "sessions.db"
    data = bytearray(_make(path))
    offset = int(start * len(data))
    if cut:
        del data[offset:]
    else:
        data[offset : offset + len(garbage)] = garbage
    path.write_bytes(bytes(data))
    try:
        store = sqlite_sessions(path)
    except SessionStoreError:
        assert path.read_bytes() == bytes(data), "a refused file was changed"
        return
    try:
        for n in range(SESSIONS):
            try:
                loaded = store.load(f"s{n}")
                owner = store.owner(f"s{n}")
            except SessionStoreError:
                continue
            if loaded is not None:
                assert isinstance(json.loads(loaded.checkpoint), dict)
                assert owner is None or isinstance(owner, str)
        with contextlib.suppress(SessionStoreError):
            store.save("new", "{}", owner=None)
    finally:
        store.close()
