"""A conversation's lane: its FIFO queue of messages, the turn playing now, and the
approvals that turn waits on. The runtime owns one per conversation it has served since
it started; everything in it lives only while the runtime is up (the store holds what
must outlive it: checkpoints and receipts).

The turn's events go to its `owner`: the session that sent the message, or the session
that answered its pending approval after the sender's connection broke. Nothing is
buffered for a session that is gone.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..agent import Agent
from ._events import SessionEvent
from ._session import RuntimeSession


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    """A message that reached the runtime: its queue item id (also its receipt id), its
    text, and the session that sent it (whose tools and approval policy its turn uses)."""

    item_id: str
    text: str
    session: RuntimeSession
    waited: bool = False
    """Whether it was queued behind a turn (its `enqueued` event was told)."""


@dataclass
class PendingApproval:
    """A tool call waiting for a person's decision (True: allowed)."""

    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    run_id: str | None
    decision: asyncio.Future[bool]


@dataclass
class ActiveTurn:
    """The turn a lane is playing."""

    message: QueuedMessage
    owner: RuntimeSession
    started: float = field(default_factory=time.monotonic)
    task: asyncio.Task[Any] | None = None
    agent: Agent | None = None
    approvals: dict[str, PendingApproval] = field(default_factory=dict)
    finishing: bool = False
    """The model gave its final answer: only storing the turn is left, which an abort
    no longer interrupts (so a turn is never told cancelled and stored all the same)."""

    def emit(self, event: SessionEvent) -> None:
        self.owner.event(event)

    def run_id(self) -> str | None:
        """The run playing now (the agent's run id), else the last one it started."""
        agent = self.agent
        if agent is None:
            return None
        playing = agent.turn_in_flight
        if playing is not None:
            return playing.input.run_id
        return agent.last_run.run_id if agent.last_run is not None else None

    def run_ids(self) -> tuple[str, ...] | None:
        """Every run the turn started (one agent run per turn); None before any began."""
        run_id = self.run_id()
        return None if run_id is None else (run_id,)

    def duration_ms(self) -> float:
        return (time.monotonic() - self.started) * 1000.0


@dataclass
class ConversationLane:
    """One conversation's queue and its turn in play."""

    conversation_id: str
    agent_id: str
    waiting: deque[QueuedMessage] = field(default_factory=deque)
    active: ActiveTurn | None = None
    worker: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self.active is not None or bool(self.waiting)
