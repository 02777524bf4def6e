"""How a queued message becomes a turn and how its end is told: the mechanics under the
runtime's seams (they are not seams: a derived runtime changes decisions, not these).

A conversation's worker takes the next message (`next_message`), plays it in a task of
its own (`play`), so that `abort` can cancel that task and with it the model request in
flight, and tells the turn's end to the session that owns it: its `result` (`completed`),
or an `error` then a failed result, or the cancelled result of an abort; the message's
receipt is settled to match (a completed turn's was settled with its checkpoint).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..agent import RunResult
from ..store import SessionStoreError, SqliteRuntimeStore, StoredSession
from ._events import ErrorEvent, QueueEvent, ResultEvent
from ._lane import ActiveTurn, ConversationLane, QueuedMessage


class TurnSlot:
    """`continuation`'s view of the store for one turn: the conversation's checkpoint,
    saved together with the turn's receipt (one transaction)."""

    def __init__(self, store: SqliteRuntimeStore, receipt_id: str) -> None:
        self.store = store
        self.receipt_id = receipt_id

    def load(self, session_id: str) -> StoredSession | None:
        return self.store.load(session_id)

    def save(self, session_id: str, checkpoint: str, *, owner: str | None) -> None:
        self.store.save_turn(session_id, checkpoint, [self.receipt_id])


class TurnPlayer:
    """The turn mechanics a SessionRuntime inherits."""

    store: SqliteRuntimeStore

    def next_message(self, lane: ConversationLane) -> QueuedMessage | None:
        raise NotImplementedError

    async def play(self, lane: ConversationLane, turn: ActiveTurn) -> RunResult:
        raise NotImplementedError

    def completed(self, turn: ActiveTurn, result: RunResult) -> ResultEvent:
        raise NotImplementedError

    async def _work(self, lane: ConversationLane) -> None:
        while (message := self.next_message(lane)) is not None:
            turn = ActiveTurn(message, owner=message.session)
            lane.active = turn
            if message.waited:
                turn.emit(QueueEvent(action="dequeued", item_ids=(message.item_id,)))
            try:
                await self._one_turn(lane, turn)
            finally:
                lane.active = None

    async def _one_turn(self, lane: ConversationLane, turn: ActiveTurn) -> None:
        task = asyncio.ensure_future(self.play(lane, turn))
        turn.task = task
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:  # the runtime is stopping: the turn is aborted
            task.cancel()
            await asyncio.wait([task])
            await self._ended(turn, task)
            raise
        await self._ended(turn, task)

    async def _ended(self, turn: ActiveTurn, task: asyncio.Task[RunResult]) -> None:
        receipt = [turn.message.item_id]
        if task.cancelled():
            await self._settle(receipt, "aborted")
            turn.emit(self._failed_result(turn, "cancelled"))
            return
        error = task.exception()
        if error is None:
            turn.emit(self.completed(turn, task.result()))
            return
        await self._settle(receipt, "failed")
        message = f"{type(error).__name__}: {error}"
        turn.emit(ErrorEvent(message=message[:2000], run_id=turn.run_id()))
        turn.emit(self._failed_result(turn, "error"))

    def _failed_result(self, turn: ActiveTurn, why: Any) -> ResultEvent:
        return ResultEvent(
            success=False, stop_reason=why, duration_ms=turn.duration_ms(), run_ids=turn.run_ids()
        )

    async def _settle(self, receipt: list[str], state: Any) -> None:
        with contextlib.suppress(SessionStoreError):  # the turn's result is told regardless
            await asyncio.to_thread(self.store.settle, receipt, state)
