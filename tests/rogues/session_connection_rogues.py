"""Session runtimes and clients that break what a broken connection leaves: whether the
session can be reused, what its open pass is told, what a resumed session is shown and
listed, and the approvals that wait on a person.

The client is part of the runtime (it is what turns a dropped socket into an `error` and
a failed `result`, and refuses reuse), so some of these are a `SessionClient` whose
`session_class` overrides one seam of the reference's `Session`; the reference adapter
drives the reference runtime through it. The others are the reference `SessionRuntime`
with the seams one change needs overridden (docs/reference.md, "The session seams").
"""

from __future__ import annotations

import asyncio
from typing import Any

from reference_impl.agent import RunResult
from reference_impl.sessions import (
    ActiveTurn,
    AssistantEvent,
    MessageBody,
    ResultEvent,
    RuntimeSession,
    SessionEvent,
    SessionOptions,
    SessionRuntime,
)
from reference_impl.sessions.client import Session, SessionClient
from reference_impl.store import ConversationRecord

# -- the client: reuse after a break, and what the open pass is told ---------------------


class _Reconnecting(Session):
    def __init__(self, client: SessionClient, *connection: Any) -> None:
        super().__init__(client, *connection)
        self.client = client
        self.replacement: Session | None = None

    async def send(self, text: str) -> str:
        if self.usable:
            return await super().send(text)
        if self.replacement is None:
            self.replacement = await self.client.resume_session(
                self.conversation_id, can_also_run=tuple(self.tools.values())
            )
        return await self.replacement.send(text)

    async def next_event(self) -> SessionEvent:
        if self.replacement is not None:
            return await self.replacement.next_event()
        return await super().next_event()

    async def close(self) -> None:
        if self.replacement is not None:
            await self.replacement.close()
        await super().close()


class ReconnectingClient(SessionClient):
    """A session whose connection broke reconnects silently when it is used again: its
    client resumes the conversation on a new connection and takes the message (reuse is
    never refused)."""

    session_class = _Reconnecting


class _SilentAtBreak(Session):
    def told_at_break(self) -> tuple[SessionEvent, ...]:
        return ()


class BreakToldNothingClient(SessionClient):
    """A pass open when its session's connection breaks just ends: it is told neither an
    error nor a failed result (the session still refuses reuse)."""

    session_class = _SilentAtBreak


# -- the runtime: what a resumed session is shown and listed -----------------------------


class MissedEventsReplayed(SessionRuntime):
    """A turn that ends after its session's connection is gone has its end (answer and
    result) told to the sessions still on its conversation, or else to the next one
    opened on it: a resumed session is replayed what was missed."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.missed: dict[str, list[SessionEvent]] = {}

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        told = super().completed(turn, result)
        if not turn.owner.attached:
            conversation_id = turn.owner.conversation_id
            missed: list[SessionEvent] = [
                AssistantEvent(text=result.answer or "", run_id=result.run_id),
                told,
            ]
            others = [s for s in self.sessions if s.conversation_id == conversation_id]
            for session in others:
                for event in missed:
                    session.event(event)
            if not others:
                self.missed.setdefault(conversation_id, []).extend(missed)
        return told

    async def open_session(
        self, conversation: ConversationRecord, options: SessionOptions
    ) -> RuntimeSession:
        session = await super().open_session(conversation, options)
        missed = self.missed.pop(conversation.id, [])

        def replay() -> None:
            for event in missed:
                session.event(event)

        # after the transport has told the client `opened`, which it does on return
        asyncio.get_running_loop().call_soon(replay)
        return session


class ReceiptsNotListed(SessionRuntime):
    """A conversation's listed messages are only what its completed turns hold: a message
    that reached the runtime is not listed until its turn completes (so one whose
    runtime died is never listed)."""

    async def messages(self, conversation_id: str) -> tuple[MessageBody, ...]:
        listed = await super().messages(conversation_id)
        return tuple(message for message in listed if message.id is None)


# -- approvals -----------------------------------------------------------------------------


class PendingApprovalEndsWithItsClient(SessionRuntime):
    """A turn waiting for a person's approval is aborted when the connection of the
    session it belongs to ends: the pending approval does not outlive its client."""

    def close_session(self, session: RuntimeSession) -> None:
        super().close_session(session)
        for lane in self.lanes.values():
            turn = lane.active
            if turn is not None and turn.owner is session and turn.approvals and turn.task:
                turn.task.cancel()


class ApprovedCallRunsTwice(SessionRuntime):
    """A call a person allowed is run by the client when the approval comes, and then
    run again by the turn: it runs twice (the model is shown the second run)."""

    async def wait_for_approval(
        self, turn: ActiveTurn, tool_call_id: str, tool_name: str, arguments: dict[str, Any]
    ) -> bool:
        allowed = await super().wait_for_approval(turn, tool_call_id, tool_name, arguments)
        if allowed:
            await turn.owner.run_tool(tool_call_id, tool_name, arguments)
        return allowed


class DeniedCallRunsAnyway(SessionRuntime):
    """A person's decision on a call is waited for but not heeded: a denied call runs
    all the same."""

    async def wait_for_approval(
        self, turn: ActiveTurn, tool_call_id: str, tool_name: str, arguments: dict[str, Any]
    ) -> bool:
        await super().wait_for_approval(turn, tool_call_id, tool_name, arguments)
        return True
