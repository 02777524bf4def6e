"""Rogue hosts that break what a served session stores, restores and runs under.

Each is a `StandingAgent` subclass overriding the hosting seams one change needs
(docs/reference.md): when a turn is persisted, how a stored row is hydrated, what the
host hands the agent's door. The reference agent runs inside every one of them, so the
agent-level laws are untouched and only the hosting laws can see the change. The
conformance host process imports them by path (`--host-class`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass, replace

from reference_impl.agent import Agent, RunResult
from reference_impl.checkpoint import AgentRunCheckpoint, load_checkpoint
from reference_impl.continuation import StoredConversation, TurnRequest
from reference_impl.conversation import Identity, Turn
from reference_impl.errors import NoConversationError
from reference_impl.hosting import Persist, StandingAgent
from reference_impl.store import UnreadableSessionError

WRITE_BEHIND = 1.0
"""Seconds a write-behind host keeps an answered turn in memory before storing it."""


@dataclass(frozen=True, slots=True)
class _Held:
    """A conversation a rogue holds itself, shaped like what a store gives back."""

    checkpoint: str
    owner: str | None = None


def _with_history(stored: StoredConversation | None, history: tuple[Turn, ...]) -> _Held:
    checkpoint = load_checkpoint(stored.checkpoint) if stored else AgentRunCheckpoint()
    edited = checkpoint.model_copy(update={"history": history})
    return _Held(edited.to_json(), stored.owner if stored else None)


class RepliesBeforePersisting(StandingAgent):
    """Replies first and stores the turn a second later (write-behind), serving its own
    unwritten turns meanwhile: a host killed right after a reply has lost the answered
    turn."""

    @functools.cached_property
    def unwritten(self) -> dict[str, str]:
        return {}

    @functools.cached_property
    def writes(self) -> set[asyncio.Task[None]]:
        return set()

    async def hydrate(self, session_id: str | None) -> StoredConversation | None:
        if session_id is not None and session_id in self.unwritten:
            return _Held(self.unwritten[session_id])
        return await super().hydrate(session_id)

    def persisting(self, session_id: str | None, result: RunResult, owner: str | None) -> Persist:
        write = super().persisting(session_id, result, owner)
        if session_id is None:
            return write
        text = result.checkpoint.to_json()
        self.unwritten[session_id] = text

        async def later() -> None:
            await asyncio.sleep(WRITE_BEHIND)
            await write()
            if self.unwritten.get(session_id) == text:
                del self.unwritten[session_id]

        task = asyncio.get_running_loop().create_task(later())
        self.writes.add(task)
        task.add_done_callback(self.writes.discard)

        async def nothing_yet() -> None:
            return None

        return nothing_yet


class UnreadableStartsFresh(StandingAgent):
    """Hydrates a stored row it cannot read as an absent session: the turn starts a fresh
    conversation, and its answer overwrites the only copy of the old one."""

    async def hydrate(self, session_id: str | None) -> StoredConversation | None:
        try:
            return await super().hydrate(session_id)
        except Exception as error:
            if isinstance(error.__cause__, UnreadableSessionError):
                return None
            raise


class OneConversationForAllSessions(StandingAgent):
    """Continues the shared agent's own last conversation whatever the session: every
    session's turns bleed into the next one served."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        if request.message is not None:
            with contextlib.suppress(NoConversationError):
                stored = _Held(agent.checkpoint().to_json())
        return await super().play(agent, stored, request)


class HostRebuildsHistory(StandingAgent):
    """Rebuilds the stored history from its text turns before continuing it (tool calls
    and their results dropped), instead of handing the stored checkpoint to the door as
    it is."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        if stored is not None and request.message is not None:
            history = load_checkpoint(stored.checkpoint).history
            texts = tuple(t for t in history if t.role != "tool" and not t.tool_calls)
            stored = _with_history(stored, texts)
        return await super().play(agent, stored, request)


class HostDropsTheAnswer(StandingAgent):
    """Hands the door the stored history without its last answer (the host's own copy of
    the conversation, kept without what the model said last)."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        if stored is not None and request.message is not None:
            history = load_checkpoint(stored.checkpoint).history
            if history and history[-1].role == "assistant":
                stored = _with_history(stored, history[:-1])
        return await super().play(agent, stored, request)


class HostNamesTheSession(StandingAgent):
    """Names an identity for every served run from its session (`conversation_id` = the
    session id): the namespace is synthesized by the host, yet published to tools."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        if request.message is None or request.session_id is None or stored is not None:
            return await super().play(agent, stored, request)
        named = Identity(conversation_id=request.session_id)
        return await agent.run(request.message, identity=named, session_id=request.session_id)


class HostRunsWithoutTheSession(StandingAgent):
    """Continues the stored conversation but runs it without its session id: each turn
    gets a namespace of its own, so a session's memory recalls nothing and its tools are
    told no session."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        return await super().play(agent, stored, replace(request, session_id=None))


class PersistsHalfATurn(StandingAgent):
    """Stores the new message before the run answers it (so a crash mid-turn leaves the
    session holding a turn that never completed), then the whole turn once answered."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        if request.message is not None and request.session_id is not None:
            history = load_checkpoint(stored.checkpoint).history if stored else ()
            half = _with_history(stored, (*history, Turn(role="user", text=request.message)))
            await asyncio.to_thread(
                self.sessions.save, request.session_id, half.checkpoint, owner=request.principal
            )
        return await super().play(agent, stored, request)
