"""Session runtimes that break a turn: its result, its runs, the conversation's queue,
and abort.

Each is the reference `SessionRuntime` with the seams one change needs overridden
(docs/reference.md, "The session seams"), its docstring that change in words, served by
the reference adapter by import path against the suite's fake; one is the runtime's
client instead (a `SessionClient` whose `session_class` overrides `Session.abort`).
"""

from __future__ import annotations

from typing import Any

from reference_impl.agent import RunResult
from reference_impl.sessions import (
    ActiveTurn,
    ConversationLane,
    QueuedMessage,
    ResultEvent,
    RuntimeSession,
    SessionOptions,
    SessionRuntime,
)
from reference_impl.sessions.client import Session, SessionClient

# -- the result ------------------------------------------------------------------------


class ResultWithoutText(SessionRuntime):
    """A completed turn's result carries no text: the answer is told only in the turn's
    assistant events."""

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        return super().completed(turn, result).model_copy(update={"text": None})


class ResultListsNoRuns(SessionRuntime):
    """A completed turn's result lists no runs (`run_ids` empty, as Letta Code reports
    it), though the turn's events carry their run's id."""

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        return super().completed(turn, result).model_copy(update={"run_ids": ()})


# -- the queue -----------------------------------------------------------------------------


class QueueIsLastInFirstOut(SessionRuntime):
    """The conversation's queue is last in, first out: of the messages waiting behind a
    turn, the newest plays first."""

    def next_message(self, lane: ConversationLane) -> QueuedMessage | None:
        return lane.waiting.pop() if lane.waiting else None


class QueuedMessageRunsAtOnce(SessionRuntime):
    """A message sent while its conversation's turn plays is not queued behind it: it
    plays at once, beside that turn, in a queue of its own."""

    def lane_for(self, conversation_id: str, agent_id: str) -> ConversationLane:
        lane = super().lane_for(conversation_id, agent_id)
        return ConversationLane(conversation_id, agent_id) if lane.busy else lane


class SendWhileBusyIsDropped(SessionRuntime):
    """A message sent while its conversation's turn plays is answered with a queue item
    id and then dropped: it never plays."""

    def enqueue(self, lane: ConversationLane, message: QueuedMessage) -> None:
        if not message.waited:
            super().enqueue(lane, message)


class RemovedMessageStillPlays(SessionRuntime):
    """Taking a waiting message off the queue answers true, but the message stays
    queued and plays."""

    async def remove_queued(self, session: RuntimeSession, item_id: str) -> bool:
        lane = self.lanes.get(session.conversation_id)
        return lane is not None and any(m.item_id == item_id for m in lane.waiting)


# -- abort ---------------------------------------------------------------------------------


class AbortTellsNoResult(SessionRuntime):
    """Abort cancels the turn, but the session is never told the turn's end: the pass
    waits for a result that never comes."""

    async def abort(self, session: RuntimeSession) -> bool:
        lane = self.lanes.get(session.conversation_id)
        turn = lane.active if lane is not None else None
        aborted = await super().abort(session)
        if aborted and turn is not None:
            silent = RuntimeSession(session.agent_id, session.conversation_id, SessionOptions())
            silent.detach()
            turn.owner = silent
        return aborted


class AbortWaitsTheTurnOut(SessionRuntime):
    """Abort does not cancel the turn in play (nor its model request): the turn plays to
    its end, is stored, and is then told cancelled (as an interrupt that waits for the
    provider does)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.aborted: set[str] = set()
        """The queue item ids of the turns an abort was asked for."""

    async def abort(self, session: RuntimeSession) -> bool:
        lane = self.lanes.get(session.conversation_id)
        turn = lane.active if lane is not None else None
        if turn is None or turn.task is None or turn.task.done() or turn.finishing:
            return False
        self.aborted.add(turn.message.item_id)
        return True

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        told = super().completed(turn, result)
        if turn.message.item_id not in self.aborted:
            return told
        return told.model_copy(update={"success": False, "stop_reason": "cancelled"})


class _ClosedByAbort(Session):
    async def abort(self) -> bool:
        done = await super().abort()
        await self.close()
        return done


class AbortClosesTheSessionClient(SessionClient):
    """Abort asks the runtime to cancel the turn and then closes the session: the
    session cannot run another turn."""

    session_class = _ClosedByAbort
