"""A session's events, as the runtime emits them and the client reads them.

Seed 003's stream: the turn's typed events (assistant text, tool calls and results,
approval requests, queue changes, errors, retries), ending with the turn's `result`.
Each event that belongs to a run carries its `run_id`; the result lists every run the
turn started (`run_ids`, absent when it started none). These models are the WebSocket's
event payloads too (`_wire.EventFrame`), so the client reads exactly what was emitted.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AssistantEvent(_Event):
    """Text the model answered (one per model reply that had text)."""

    type: Literal["assistant"] = "assistant"
    text: str
    run_id: str | None = None


class ToolCallEvent(_Event):
    """The model called a tool (emitted when the call is taken up, before it runs)."""

    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    run_id: str | None = None


class ToolResultEvent(_Event):
    """What the model is shown as the call's result."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: str
    is_error: bool = False
    run_id: str | None = None


class ApprovalRequestEvent(_Event):
    """A call to a tool the session said needs approval: the turn waits for a decision."""

    type: Literal["approval_request"] = "approval_request"
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    run_id: str | None = None


class QueueEvent(_Event):
    """The conversation's queue changed: `enqueued` (a message waits behind a turn),
    `dequeued` (its turn begins), `removed` (taken off before it began)."""

    type: Literal["queue"] = "queue"
    action: Literal["enqueued", "dequeued", "removed"]
    item_ids: tuple[str, ...] = ()


class ErrorEvent(_Event):
    """The turn failed (the provider kept failing, the store refused) or the connection
    broke (the client's own, before its failed `result`)."""

    type: Literal["error"] = "error"
    message: str
    run_id: str | None = None


class RetryEvent(_Event):
    """A run retried a model call. The reference emits none: its provider SDK retries
    inside one call, out of the runtime's sight, and the runtime itself never retries."""

    type: Literal["retry"] = "retry"
    message: str = ""
    run_id: str | None = None


StopReason = Literal["end_turn", "cancelled", "error", "connection_closed"]
"""Why a turn ended: answered, aborted, failed, or (client-side) its connection broke."""


class ResultEvent(_Event):
    """The turn's terminal event."""

    type: Literal["result"] = "result"
    success: bool
    text: str | None = Field(default=None, description="the final answer, all its text")
    stop_reason: StopReason
    duration_ms: float | None = Field(default=None, ge=0)
    run_ids: tuple[str, ...] | None = Field(
        default=None, description="every run the turn started; absent when none started"
    )


SessionEvent = Annotated[
    AssistantEvent
    | ToolCallEvent
    | ToolResultEvent
    | ApprovalRequestEvent
    | QueueEvent
    | ErrorEvent
    | RetryEvent
    | ResultEvent,
    Field(discriminator="type"),
]


__all__ = [
    "ApprovalRequestEvent",
    "AssistantEvent",
    "ErrorEvent",
    "QueueEvent",
    "ResultEvent",
    "RetryEvent",
    "SessionEvent",
    "StopReason",
    "ToolCallEvent",
    "ToolResultEvent",
]
