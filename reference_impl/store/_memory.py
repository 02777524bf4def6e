"""The in-memory session store: the same contract as the SQLite one, for tests and for
a host whose sessions may end with the process.

It keeps exactly what a file would (the checkpoint text, the owner, a revision), so an
unreadable row — `damage` makes one — is as loud here as on disk.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ._contract import StoredSession, check_session_id, check_storable, read_checkpoint
from ._errors import SessionOwnershipError, SessionStoreError

WHERE = "memory"
DAMAGED = b"\xff\xfenot a checkpoint\x00"
"""What `damage` leaves in a row: bytes that are neither UTF-8 nor JSON."""


@dataclass
class _Row:
    checkpoint: str | bytes
    owner: str | None
    revision: int


class MemorySessions:
    """Sessions in a dict behind a lock: every call is whole, from any thread."""

    def __init__(self) -> None:
        self._rows: dict[str, _Row] = {}
        self._lock = threading.Lock()
        self._closed = False

    def load(self, session_id: str) -> StoredSession | None:
        check_session_id(WHERE, session_id)
        with self._lock:
            self._check_open()
            row = self._rows.get(session_id)
            if row is None:
                return None
            checkpoint = read_checkpoint(WHERE, session_id, row.checkpoint)
            return StoredSession(
                session_id=session_id, checkpoint=checkpoint, owner=row.owner, revision=row.revision
            )

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        check_storable(WHERE, session_id, checkpoint)
        with self._lock:
            self._check_open()
            row = self._rows.get(session_id)
            if row is None:
                self._rows[session_id] = _Row(checkpoint, owner, 1)
                return
            if owner is not None and row.owner is not None and owner != row.owner:
                raise SessionOwnershipError(WHERE, session_id)
            read_checkpoint(WHERE, session_id, row.checkpoint)  # an unreadable row is kept
            row.checkpoint = checkpoint
            row.owner = row.owner if row.owner is not None else owner
            row.revision += 1

    def owner(self, session_id: str) -> str | None:
        check_session_id(WHERE, session_id)
        with self._lock:
            self._check_open()
            row = self._rows.get(session_id)
            return row.owner if row is not None else None

    def forget(self, session_id: str) -> bool:
        check_session_id(WHERE, session_id)
        with self._lock:
            self._check_open()
            return self._rows.pop(session_id, None) is not None

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def damage(self, session_id: str) -> bool:
        """Make one stored session unreadable, as a bad disk or a bad migration would;
        True when there was one. For testing that unreadable is not absent."""
        check_session_id(WHERE, session_id)
        with self._lock:
            self._check_open()
            row = self._rows.get(session_id)
            if row is None:
                return False
            row.checkpoint = DAMAGED
            return True

    def _check_open(self) -> None:
        if self._closed:
            raise SessionStoreError(WHERE, "the store is closed")


def memory_sessions() -> MemorySessions:
    """A fresh in-memory session store."""
    return MemorySessions()
