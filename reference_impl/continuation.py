"""The one way a stored conversation is restored: hydrate, continue, persist.

A host (HTTP today, another session model later) serves a conversation across requests
by storing the agent's checkpoint per session. Restoring it has exactly one path, the
agent's own doors: a decision goes to `resume`, a message to `run(message,
continue_from=stored, session_id=sid)`, a session with nothing stored to `run(message,
session_id=sid)`. Nothing here edits history, so every refusal is the agent's own (a
message while paused is its `PendingQuestionError`) except the one no door can make: a
decision with nothing paused, refused before any run. Nothing here knows a transport.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ._error_base import AgentError
from .checkpoint import load_checkpoint
from .conversation import Identity

if TYPE_CHECKING:
    from .agent import Agent, RunResult
    from .checkpoint import AgentRunCheckpoint


class StoredConversation(Protocol):
    """What a session store gives back (`reference_impl.store.StoredSession`)."""

    @property
    def checkpoint(self) -> str: ...

    @property
    def owner(self) -> str | None: ...


class Sessions(Protocol):
    """The part of a session store continuation uses (docs/hosting.md, SessionStore)."""

    def load(self, session_id: str) -> StoredConversation | None: ...

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None: ...


class NoPendingAskError(AgentError):
    """A decision arrived for a session with nothing paused: there is no question to
    answer, so nothing is run and the stored conversation is untouched."""

    def __init__(self, session_id: str | None) -> None:
        self.session_id = session_id
        where = (
            f"session {session_id!r}" if session_id is not None else "a request without a session"
        )
        super().__init__(
            f"{where} has no paused question; a decision answers one. Send the message as "
            "`input` instead."
        )


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """One request against a session: a message or a decision (exactly one)."""

    session_id: str | None
    message: str | None = None
    decision: str | None = None
    principal: str | None = None

    def __post_init__(self) -> None:
        if (self.message is None) == (self.decision is None):
            raise ValueError("a turn request carries exactly one of message and decision")


def run_identity(session_id: str | None, principal: str | None) -> Identity | None:
    """The identity a hosted run is given: with a verified principal, the session's
    conversation under that principal; without one, none (the agent's ladder then takes
    the session, so every session has its own memory with no configuration)."""
    if principal is None or session_id is None:
        return None
    return Identity(conversation_id=session_id, principal=principal)


def hydrate(sessions: Sessions, session_id: str | None) -> StoredConversation | None:
    """The session's stored conversation; None when absent. An unreadable one raises the
    store's `UnreadableSessionError`: unreadable is not absent, and never starts fresh."""
    if session_id is None:
        return None
    return sessions.load(session_id)


async def take_turn(
    agent: Agent, stored: StoredConversation | None, request: TurnRequest
) -> RunResult:
    """Play the request through the agent's own door for what is stored."""
    sid = request.session_id
    if request.decision is not None:
        if stored is None or not _paused(stored.checkpoint):
            raise NoPendingAskError(sid)
        return await agent.resume(stored.checkpoint, request.decision, session_id=sid)
    assert request.message is not None
    identity = run_identity(sid, request.principal)
    if stored is None:
        return await agent.run(request.message, identity=identity, session_id=sid)
    return await agent.run(
        request.message, continue_from=stored.checkpoint, identity=identity, session_id=sid
    )


def persist(
    sessions: Sessions, session_id: str | None, checkpoint: AgentRunCheckpoint, owner: str | None
) -> None:
    """Store what the run left behind (a request without a session id is not stored)."""
    if session_id is not None:
        sessions.save(session_id, checkpoint.to_json(), owner=owner)


async def continue_session(agent: Agent, sessions: Sessions, request: TurnRequest) -> RunResult:
    """hydrate → the agent's door → persist, before returning. The store is blocking
    code, so it runs in a worker thread."""
    stored = await asyncio.to_thread(hydrate, sessions, request.session_id)
    result = await take_turn(agent, stored, request)
    await asyncio.to_thread(
        persist, sessions, request.session_id, result.checkpoint, request.principal
    )
    return result


def _paused(checkpoint: str) -> bool:
    """Whether a stored checkpoint holds a question still owed. Read by the agent's own
    loader, so a stored row it cannot read raises here as it would in `resume`."""
    return load_checkpoint(checkpoint).pending is not None


__all__ = [
    "NoPendingAskError",
    "Sessions",
    "StoredConversation",
    "TurnRequest",
    "continue_session",
    "hydrate",
    "persist",
    "run_identity",
    "take_turn",
]
