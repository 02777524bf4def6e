"""Session stores broken on purpose, one bug each, so the battery is seen to FAIL.

Each is a bug real stores ship with: reading a bad row as "no session", letting a later
principal take a session over, keying rows by a C string (an embedded NUL ends the id),
and a JSON file rewritten whole on every save with no lock between processes.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from reference_impl.store import (
    SessionOwnershipError,
    SqliteSessions,
    StoredSession,
    UnreadableSessionError,
)


class AbsentWhenUnreadable(SqliteSessions):
    """Answers a row it cannot read as absent: the host then starts it afresh."""

    def load(self, session_id: str) -> StoredSession | None:
        try:
            return super().load(session_id)
        except UnreadableSessionError:
            return None


class SecondOwnerTakes(SqliteSessions):
    """Lets a save by another principal replace the owner, as an upsert of every column
    does."""

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        try:
            super().save(session_id, checkpoint, owner=owner)
        except SessionOwnershipError:
            self.forget(session_id)
            super().save(session_id, checkpoint, owner=owner)


class NulEndsTheId(SqliteSessions):
    """Keys rows by the id up to its first NUL, as a C-string binding would."""

    @staticmethod
    def _key(session_id: str) -> str:
        return session_id.split("\x00", 1)[0]

    def load(self, session_id: str) -> StoredSession | None:
        found = super().load(self._key(session_id))
        return None if found is None else found.model_copy(update={"session_id": session_id})

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        super().save(self._key(session_id), checkpoint, owner=owner)

    def owner(self, session_id: str) -> str | None:
        return super().owner(self._key(session_id))

    def forget(self, session_id: str) -> bool:
        return super().forget(self._key(session_id))


@dataclass(frozen=True)
class _Loaded:
    checkpoint: str


class WholeFileRewrite:
    """Every session in one JSON file, read, changed and renamed into place on each save:
    never torn, and safe between threads (a lock), but two processes each write back
    what they read, so one's saves vanish under the other's."""

    def __init__(self, path: Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()

    def _read(self) -> dict[str, dict[str, str | None]]:
        if not self._path.exists():
            return {}
        rows: dict[str, dict[str, str | None]] = json.loads(self._path.read_text("utf-8"))
        return rows

    def _write(self, rows: dict[str, dict[str, str | None]]) -> None:
        handle, scratch = tempfile.mkstemp(dir=self._path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(rows, file)
        os.replace(scratch, self._path)

    def load(self, session_id: str) -> _Loaded | None:
        with self._lock:
            row = self._read().get(session_id)
        return None if row is None else _Loaded(str(row["checkpoint"]))

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        with self._lock:
            rows = self._read()
            recorded = rows.get(session_id, {}).get("owner")
            if owner is not None and recorded is not None and owner != recorded:
                raise PermissionError(f"{session_id!r} belongs to another owner")
            rows[session_id] = {"checkpoint": checkpoint, "owner": recorded or owner}
            self._write(rows)

    def owner(self, session_id: str) -> str | None:
        with self._lock:
            return self._read().get(session_id, {}).get("owner")

    def forget(self, session_id: str) -> bool:
        with self._lock:
            rows = self._read()
            found = rows.pop(session_id, None) is not None
            self._write(rows)
            return found

    def close(self) -> None:
        pass
