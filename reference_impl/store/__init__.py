"""Session stores: where a standing agent keeps one conversation per session.

`sqlite_sessions(path)` for a host that outlives its process (and shares its file with
other processes), `memory_sessions()` for tests and throwaway hosts. Both keep the
contract of docs/hosting.md "Session stores"; `conformance.batteries` checks it.
"""

from __future__ import annotations

from ._contract import SessionStore, StoredSession
from ._errors import (
    SessionFileError,
    SessionOwnershipError,
    SessionStoreError,
    UnreadableSessionError,
    UnstorableSessionError,
)
from ._memory import MemorySessions, memory_sessions
from ._sqlite import SqliteSessions, damage_session, sqlite_sessions
from ._sqlite_file import SCHEMA_VERSION

__all__ = [
    "SCHEMA_VERSION",
    "MemorySessions",
    "SessionFileError",
    "SessionOwnershipError",
    "SessionStore",
    "SessionStoreError",
    "SqliteSessions",
    "StoredSession",
    "UnreadableSessionError",
    "UnstorableSessionError",
    "damage_session",
    "memory_sessions",
    "sqlite_sessions",
]
