"""The StandingAgent: a served conversation per session, with no transport in it.

Per request: the verified caller, the session id, the session's lane, ownership, an
agent, then `reference_impl.continuation` (hydrate → the agent's own door → persist)
before the reply exists. Every decision is a named method (the hosting seams in
docs/reference.md), so a host derived from the reference changes one decision by
overriding one method, as the agent's rogues do.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from .. import continuation
from ..agent import Agent, RunResult
from ..continuation import NoPendingAskError, StoredConversation, TurnRequest
from ..errors import (
    DecisionRefusedError,
    InvalidCheckpointError,
    InvalidMessageError,
    PendingQuestionError,
    RunInFlightError,
)
from ..store import (
    SessionOwnershipError,
    SessionStore,
    UnreadableSessionError,
    UnstorableSessionError,
)
from ._errors import (
    AwaitingDecisionError,
    ConcurrentRunError,
    HostRefusal,
    InvalidRequestError,
    NoPendingAskHostError,
    PauseNotCarriedError,
    RunFailedHostError,
    SessionNotFoundError,
    SessionUnreadableError,
    ShuttingDownError,
    UnauthenticatedError,
)
from ._lanes import AgentFactory, AgentPool, ConcurrentInvoke, SessionLanes, SharedAgentLane

IdentityVerifier = Callable[[Mapping[str, str]], str | None]
"""Turns a request's headers into a principal, or None to refuse (401)."""

Persist = Callable[[], Awaitable[None]]
"""Storing what a turn left behind, ready to run."""


@dataclass(frozen=True, slots=True)
class Incoming:
    """One request as the transport read it: the body's fields, headers, cookies."""

    message: str | None
    decision: str | None
    body_session_id: str | None
    headers: Mapping[str, str]
    cookies: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class TurnServed:
    """What a request produced: an answer or a pause, for the transport to reply with.

    `after` is work left for after the reply (the reference leaves none: it persists
    before replying); `issued_cookie` is a session id to hand the caller as a cookie."""

    session_id: str | None
    result: RunResult
    issued_cookie: str | None = None
    after: Persist | None = None


class StandingAgent:
    """Serves conversations: one stored checkpoint per session, continued per request."""

    def __init__(
        self,
        *,
        agent: Agent | None = None,
        agent_factory: AgentFactory | None = None,
        sessions: SessionStore,
        on_concurrent_invoke: ConcurrentInvoke = "reject",
        max_active_sessions: int = 100,
        identity: IdentityVerifier | None = None,
        session_cookie: str | None = None,
    ) -> None:
        if (agent is None) == (agent_factory is None):
            raise ValueError("give exactly one of agent= (shared) and agent_factory=")
        self.sessions = sessions
        self.lanes = SessionLanes(on_concurrent_invoke)
        self.agents: SharedAgentLane | AgentPool = (
            SharedAgentLane(agent)
            if agent is not None
            else AgentPool(agent_factory, max_active_sessions)  # type: ignore[arg-type]
        )
        self.verifier = identity
        self.session_cookie = session_cookie
        self.shutting_down = False

    # -- the request -------------------------------------------------------------------

    async def invoke(self, incoming: Incoming) -> TurnServed:
        """Serve one request; a refusal is a HostRefusal carrying its code and status."""
        self.refuse_if_stopping()
        principal = self.principal_of(incoming.headers)
        session_id = self.session_id_of(incoming)
        issued = self.cookie_to_issue(session_id is not None)
        if issued is not None:
            session_id = issued
        request = TurnRequest(session_id, incoming.message, incoming.decision, principal)
        turn_id = f"turn-{uuid.uuid4().hex[:12]}"
        async with self.session_lane(session_id, turn_id):
            if session_id is not None:
                await self.check_owner(session_id, principal)
            async with self.agent_for(session_id) as agent:
                stored = await self.hydrate(session_id)
                result = await self.play(agent, stored, request)
                self.release_pause(agent, result)
            if result.pending is not None and session_id is None:
                raise PauseNotCarriedError(result.pending.question)
            after = await self.persist_turn(self.persisting(session_id, result, principal))
        return TurnServed(session_id, result, issued_cookie=issued, after=after)

    async def read_session(self, session_id: str, headers: Mapping[str, str]) -> str:
        """`GET /sessions/{id}`: the stored checkpoint text, owner checked like a turn."""
        principal = self.principal_of(headers)
        await self.check_owner(session_id, principal)
        stored = await self.hydrate(session_id)
        if stored is None:
            raise SessionNotFoundError(session_id)
        return stored.checkpoint

    # -- the seams -----------------------------------------------------------------------

    def refuse_if_stopping(self) -> None:
        """A host that is stopping refuses new turns (running ones finish and persist)."""
        if self.shutting_down:
            raise ShuttingDownError()

    def principal_of(self, headers: Mapping[str, str]) -> str | None:
        """The verified caller (None without a verifier); a refused one is 401."""
        if self.verifier is None:
            return None
        principal = self.verifier(headers)
        if principal is None:
            raise UnauthenticatedError()
        return principal

    def session_id_of(self, incoming: Incoming) -> str | None:
        """Where the session id is read: the body, else `x-session-id`, else the session
        cookie (cookie mode only). An empty one, from any of them, is refused (400): it is
        not "no session id", and no session can be kept under it. So are `.` and `..`,
        which `GET /sessions/{id}` could never read back."""
        if incoming.body_session_id is not None:
            return _carried(incoming.body_session_id, "the body's `sessionId`")
        header = incoming.headers.get("x-session-id")
        if header is not None:
            return _carried(header, "the `x-session-id` header")
        if self.session_cookie is not None:
            cookie = incoming.cookies.get(self.session_cookie)
            if cookie is not None:
                return _carried(cookie, f"the session cookie `{self.session_cookie}`")
        return None

    def cookie_to_issue(self, carried: bool) -> str | None:
        """A new session id to issue as a cookie: in cookie mode, only to a request that
        carried no session id at all."""
        if self.session_cookie is None or carried:
            return None
        return str(uuid.uuid4())

    def session_lane(
        self, session_id: str | None, turn_id: str
    ) -> AbstractAsyncContextManager[None]:
        """The session's lane for this turn: refused or queued behind a running turn, by
        policy (`on_concurrent_invoke`)."""
        return self.lanes.hold(session_id, turn_id)

    def agent_for(self, session_id: str | None) -> AbstractAsyncContextManager[Agent]:
        """The agent that plays this session's turn: the shared one (FIFO), or the
        session's own from the pool."""
        return self.agents.lease(session_id)

    async def check_owner(self, session_id: str, principal: str | None) -> None:
        """With a verifier, a session recorded for another principal is not found."""
        if principal is None:
            return
        owner = await asyncio.to_thread(self.sessions.owner, session_id)
        if owner is not None and owner != principal:
            raise SessionNotFoundError(session_id)

    async def hydrate(self, session_id: str | None) -> StoredConversation | None:
        """The stored conversation (None: absent). Unreadable is a refusal (500), never a
        fresh start."""
        try:
            return await asyncio.to_thread(continuation.hydrate, self.sessions, session_id)
        except UnreadableSessionError as error:
            raise SessionUnreadableError(str(error)) from error
        except UnstorableSessionError as error:  # refused before a turn it could not keep
            raise InvalidRequestError(str(error)) from error

    def continued_conversation(
        self, stored: StoredConversation | None, request: TurnRequest
    ) -> StoredConversation | None:
        """What the turn continues: the stored conversation exactly as stored. The host
        never edits history, so a message while a decision is owed meets the agent's own
        refusal (PendingQuestionError), the pause kept."""
        return stored

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        """The turn, through the agent's own door; its refusals in the wire's codes."""
        try:
            continued = self.continued_conversation(stored, request)
            return await continuation.take_turn(agent, continued, request)
        except HostRefusal:
            raise
        except NoPendingAskError as error:
            raise NoPendingAskHostError(str(error)) from error
        except (DecisionRefusedError, InvalidMessageError) as error:
            raise InvalidRequestError(str(error)) from error
        except PendingQuestionError as error:
            raise AwaitingDecisionError(
                f"session {request.session_id!r} owes a decision: {error.question!r} was "
                f"asked by {error.tool_name!r} (call {error.tool_call_id}). Answer it with a "
                '`decision` in the body ({"decision": ..., "sessionId": ...}); the message '
                "was not run."
            ) from error
        except InvalidCheckpointError as error:
            raise SessionUnreadableError(
                f"the stored conversation cannot be read: {error}"
            ) from error
        except RunInFlightError as error:
            raise ConcurrentRunError(request.session_id or "", "the agent's run") from error
        except Exception as error:  # the provider kept failing: the store keeps the last turn
            raise RunFailedHostError(f"the run failed: {error}") from error

    def release_pause(self, agent: Agent, result: RunResult) -> None:
        """What a shared agent keeps of a paused turn: nothing. It serves every session,
        and an agent refuses new messages while its own last run is paused, so one
        session's question would refuse every other session. The question owed is the
        stored one (it travels in the checkpoint and refuses a message to that session
        alone); an agent of the session's own keeps its pause."""
        if result.pending is not None and isinstance(self.agents, SharedAgentLane):
            agent.abandon_pause()

    def persisting(self, session_id: str | None, result: RunResult, owner: str | None) -> Persist:
        """Storing this turn's checkpoint (a request without a session is not stored)."""

        async def persist() -> None:
            try:
                await asyncio.to_thread(
                    continuation.persist, self.sessions, session_id, result.checkpoint, owner
                )
            except SessionOwnershipError as error:
                raise SessionNotFoundError(session_id or "") from error

        return persist

    async def persist_turn(self, persist: Persist) -> Persist | None:
        """When the turn is stored: now, before the reply exists (nothing left after)."""
        await persist()
        return None

    # -- lifetime --------------------------------------------------------------------------

    def begin_shutdown(self) -> None:
        self.shutting_down = True


_DOT_SEGMENTS = frozenset({".", ".."})
"""Ids `GET /sessions/{id}` cannot carry: a client removes them from a path as dot
segments, `%2E` spelled or not (RFC 3986 5.2.4; the WHATWG URL parser)."""


def _carried(session_id: str, source: str) -> str:
    """The session id a request carried, or InvalidRequestError naming where it came from:
    any text but an empty one and the two that could never be read back."""
    if not session_id:
        raise InvalidRequestError(
            f"{source} is empty; send a session id of at least one character, or none at all"
        )
    if session_id in _DOT_SEGMENTS:
        raise InvalidRequestError(
            f"{source} is {session_id!r}, which GET /sessions/{{id}} cannot read back (a "
            "client removes '.' and '..' from a path); choose another session id"
        )
    return session_id
