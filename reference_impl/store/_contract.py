"""The contract every session store keeps (docs/hosting.md "Session stores").

The host calls a store synchronously from worker threads (`asyncio.to_thread`), so a
store is plain blocking code that is safe to call from several threads at once. The
checkpoint crosses as JSON text: the store keeps it as given and checks only that it
is a JSON object, because the one thing that may restore a conversation is the agent's
own `continue_from` door, never the store.
"""

from __future__ import annotations

import json
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ._errors import UnreadableSessionError, UnstorableSessionError


class StoredSession(BaseModel):
    """One stored conversation, as `load` gives it back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session_id: str = Field(description="the caller's session id, exactly as saved")
    checkpoint: str = Field(description="the agent's checkpoint, the JSON text last saved")
    owner: str | None = Field(
        default=None, description="the principal recorded on the first save that named one"
    )
    revision: int = Field(ge=1, description="how many saves this session has had")


@runtime_checkable
class SessionStore(Protocol):
    """Where a host keeps one checkpoint per session."""

    def load(self, session_id: str) -> StoredSession | None:
        """The stored session; None only when none is stored (an unreadable one raises
        UnreadableSessionError)."""
        ...

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        """Store `checkpoint` for the session, whole or not at all. The first save that
        names an owner records it; a save naming another raises SessionOwnershipError."""
        ...

    def owner(self, session_id: str) -> str | None:
        """The session's recorded owner; None when it has none or is not stored."""
        ...

    def forget(self, session_id: str) -> bool:
        """Remove the session, readable or not; True when there was one."""
        ...

    def close(self) -> None:
        """Release the store; later calls raise SessionStoreError."""
        ...


def check_session_id(where: str, session_id: object) -> str:
    """The id, if a store can hold it: text that is valid Unicode (a JSON body can carry
    a lone surrogate, which no file can store). Checked on every call, not only on save,
    so a host refuses such an id before it runs a turn it could not persist."""
    if not isinstance(session_id, str):
        raise UnstorableSessionError(where, "session id", f"not text ({type(session_id).__name__})")
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UnstorableSessionError(
            where, "session id", f"not valid Unicode ({error.reason})"
        ) from error
    return session_id


def check_storable(where: str, session_id: object, checkpoint: object) -> None:
    """Refuse, before anything is written, what could not be given back unchanged."""
    check_session_id(where, session_id)
    if not isinstance(checkpoint, str):
        raise UnstorableSessionError(where, "checkpoint", f"not text ({type(checkpoint).__name__})")
    try:
        checkpoint.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UnstorableSessionError(
            where, "checkpoint", f"not valid Unicode ({error.reason})"
        ) from error
    try:
        parsed = json.loads(checkpoint)
    except ValueError as error:
        raise UnstorableSessionError(where, "checkpoint", f"not JSON ({error})") from error
    if not isinstance(parsed, dict):
        raise UnstorableSessionError(
            where, "checkpoint", f"a JSON {type(parsed).__name__}, not an object"
        )


def read_checkpoint(where: str, session_id: str, stored: object) -> str:
    """The stored value as checkpoint text, or UnreadableSessionError saying why not."""
    if isinstance(stored, bytes):
        try:
            stored = stored.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UnreadableSessionError(
                where, session_id, f"its checkpoint is not UTF-8 text ({error.reason})"
            ) from error
    if not isinstance(stored, str):
        raise UnreadableSessionError(
            where, session_id, f"its checkpoint is not text ({type(stored).__name__})"
        )
    try:
        parsed = json.loads(stored)
    except ValueError as error:
        raise UnreadableSessionError(
            where, session_id, f"its checkpoint is not JSON ({error})"
        ) from error
    if not isinstance(parsed, dict):
        raise UnreadableSessionError(
            where, session_id, f"its checkpoint is a JSON {type(parsed).__name__}, not an object"
        )
    return stored
