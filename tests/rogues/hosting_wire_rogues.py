"""Hosts that break the served wire: where the session id comes from, the pause, the
lanes, and whose session it is.

Each is the reference `StandingAgent` with one seam overridden (docs/reference.md lists
the hosting seams); the reference adapter spawns it by import path, so it runs in the
host's own process, against the suite's fake, like the reference host does.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from reference_impl.agent import Agent, RunResult
from reference_impl.checkpoint import load_checkpoint
from reference_impl.continuation import StoredConversation, TurnRequest
from reference_impl.hosting import (
    AgentPool,
    AwaitingDecisionError,
    Incoming,
    SharedAgentLane,
    StandingAgent,
    TurnServed,
)


class HeaderBeforeBody(StandingAgent):
    """Reads the `x-session-id` header before the body's `sessionId`: a request carrying
    both continues the header's session."""

    def session_id_of(self, incoming: Incoming) -> str | None:
        header = incoming.headers.get("x-session-id")
        return header if header is not None else super().session_id_of(incoming)


class CookieIssuedToCarriedSession(StandingAgent):
    """In cookie mode every request is issued a fresh session cookie, also one that
    carried a session id (which the new cookie's session then replaces)."""

    def cookie_to_issue(self, carried: bool) -> str | None:
        return None if self.session_cookie is None else str(uuid.uuid4())


class SessionlessStoredUnderDefault(StandingAgent):
    """A request with no session id is served as session "default": it is stored, and
    the next request without one continues it (and a pause there is carried)."""

    def session_id_of(self, incoming: Incoming) -> str | None:
        return super().session_id_of(incoming) or "default"


class MessageTakenAsDecision(StandingAgent):
    """A message sent while a decision is owed is taken as the decision: the paused run
    resumes with it, so a second request walks around the question."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        paused = stored is not None and load_checkpoint(stored.checkpoint).pending is not None
        if request.message is not None and stored is not None and paused:
            return await agent.resume(
                stored.checkpoint, request.message, session_id=request.session_id
            )
        return await super().play(agent, stored, request)


class PauseDroppedOnMessage(StandingAgent):
    """A message while a decision is owed is refused, but the refusal forgets the
    session: the question is gone, and the decision then has nothing to answer."""

    async def play(
        self, agent: Agent, stored: StoredConversation | None, request: TurnRequest
    ) -> RunResult:
        try:
            return await super().play(agent, stored, request)
        except AwaitingDecisionError:
            if request.session_id is not None:
                self.sessions.forget(request.session_id)
            raise


class QueuedRequestAnsweredWithoutRunning(StandingAgent):
    """Under `enqueue`, a request that finds its session busy waits for the running turn
    and is answered with that turn's answer, never run itself (a coalescing queue)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.answered: dict[str, RunResult] = {}

    async def invoke(self, incoming: Incoming) -> TurnServed:
        session_id = self.session_id_of(incoming)
        queued = self.lanes.policy == "enqueue" and session_id is not None
        if queued and session_id is not None and self.lanes.active_turn(session_id):
            async with self.session_lane(session_id, "coalesced"):
                return TurnServed(session_id, self.answered[session_id])
        served = await super().invoke(incoming)
        if served.session_id is not None:
            self.answered[served.session_id] = served.result
        return served


class RejectWithoutSessionLane(StandingAgent):
    """Under `reject`, turns take no session lane, so nothing is refused: a second
    request for a running session waits for the agent and then runs too."""

    def session_lane(
        self, session_id: str | None, turn_id: str
    ) -> AbstractAsyncContextManager[None]:
        if self.lanes.policy == "reject":
            return self.lanes.hold(None, turn_id)
        return super().session_lane(session_id, turn_id)


class OneAgentForEverySession(StandingAgent):
    """With an agent per session configured, every session is leased one and the same
    agent, one turn at a time: sessions never run in parallel."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.the_one: SharedAgentLane | None = None

    def agent_for(self, session_id: str | None) -> AbstractAsyncContextManager[Agent]:
        if isinstance(self.agents, AgentPool):
            return self._the_one_agent(self.agents)
        return super().agent_for(session_id)

    @asynccontextmanager
    async def _the_one_agent(self, pool: AgentPool) -> AsyncIterator[Agent]:
        if self.the_one is None:
            self.the_one = SharedAgentLane(await pool.build())
        async with self.the_one.lease(None) as agent:
            yield agent


class SessionIdIsOwnership(StandingAgent):
    """Holding a session id is holding the session: the verified caller is never checked
    against the session's owner, so another principal's turn runs and their read is
    served."""

    async def check_owner(self, session_id: str, principal: str | None) -> None:
        return None
