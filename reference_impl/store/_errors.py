"""What a session store raises: every refusal names the store and, where one is at
stake, the session, so a person reading a 500 in a log knows which file and row to open.

They derive from the runtime's `AgentError`, shaped like the memory store's errors
(`MemoryFileError` / `MemoryRowError`): a `where`, a `problem`, and the fields a caller
branches on.
"""

from __future__ import annotations

from .._error_base import AgentError


class SessionStoreError(AgentError):
    """A session store could not do what was asked. `where` names the store (a SQLite
    store's file path, or `memory`); `problem` says what is wrong."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"session store {where}: {problem}")


class SessionFileError(SessionStoreError):
    """The store's file cannot be used at all. `reason` is one of `unreadable`,
    `not-sqlite`, `corrupt`, `busy` (locked by another process for longer than the busy
    timeout), `foreign` (another program's file), `newer-schema` (written
    by a later version) and `empty` (an existing file without our schema: only a path
    that does not exist is a new store). The file is left exactly as it was."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, reason: str, problem: str) -> None:
        self.reason = reason
        super().__init__(where, f"{problem} [{reason}]")


class UnreadableSessionError(SessionStoreError):
    """A stored session exists but is not a readable checkpoint. It is not absent: the
    caller must not start it afresh, and the row is kept as it was for a person to read
    (`forget` removes it on purpose)."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, session_id: str, problem: str) -> None:
        self.session_id = session_id
        super().__init__(where, f"session {session_id!r:.120} cannot be read: {problem}")


class SessionOwnershipError(SessionStoreError):
    """A save claimed a session another owner holds. The owner recorded on the first
    save that carried one never changes, so nothing was written."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, session_id: str) -> None:
        self.session_id = session_id
        # the principals are left out: the message may reach a log the caller can read
        super().__init__(
            where, f"session {session_id!r:.120} belongs to another owner; nothing was saved"
        )


class UnstorableSessionError(SessionStoreError, ValueError):
    """A save the store refuses to keep: a session id or checkpoint that is not text it
    can store and give back unchanged (`field` names which), or a checkpoint that is not
    a JSON object. Nothing was written."""

    __module__ = "reference_impl.store"

    def __init__(self, where: str, field: str, problem: str) -> None:
        self.field = field
        super().__init__(where, f"cannot store this {field}: {problem}")
