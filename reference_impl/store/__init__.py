"""Session stores: where a standing agent keeps one conversation per session.

`sqlite_sessions(path)` for a host that outlives its process (and shares its file with
other processes), `memory_sessions()` for tests and throwaway hosts. Both keep the
contract of docs/hosting.md "Session stores"; `conformance.batteries` checks it.
`sqlite_runtime_store(path)` is the same file with the session runtime's directory
beside the conversations (agents, conversations, message receipts; docs/sessions.md).
"""

from __future__ import annotations

from ._contract import SessionStore, StoredSession
from ._directory import (
    AgentRecord,
    ConversationRecord,
    Receipt,
    ReceiptState,
    SqliteRuntimeStore,
    UnknownRecordError,
    UnreadableRecordError,
    sqlite_runtime_store,
)
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
    "AgentRecord",
    "ConversationRecord",
    "MemorySessions",
    "Receipt",
    "ReceiptState",
    "SessionFileError",
    "SessionOwnershipError",
    "SessionStore",
    "SessionStoreError",
    "SqliteRuntimeStore",
    "SqliteSessions",
    "StoredSession",
    "UnknownRecordError",
    "UnreadableRecordError",
    "UnreadableSessionError",
    "UnstorableSessionError",
    "damage_session",
    "memory_sessions",
    "sqlite_runtime_store",
    "sqlite_sessions",
]
