"""The values that cross the session door: the seed's agent / conversation / session model.

Seed 003 describes a runtime where an *agent* persists (with memory), a *conversation*
is a thread on it, and a *session* is the live connection a client sends on and streams
from. The suite drives such a runtime through a *backend* (the place its agents and
conversations live, started against the fake on a store the suite can open again),
which creates agents and opens sessions. A session's `stream()` is one pass: the events
the runtime emitted for the next turn, up to and including its `result` (or up to an
approval request, or to the connection's end). docs/sessions.md is the contract.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..catalog import ToolName
from ..wire.ir import Dialect

JSONValue = Any
"""Plain JSON data (what `json.loads` returns)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- what the suite asks for -----------------------------------------------------------


class BackendSpec(_Frozen):
    """Everything an adapter needs to open one session-model backend against the fake."""

    base_url: str = Field(description="the fake provider's base URL (…/v1)")
    api_key: str
    dialect: Dialect = Dialect.OPENAI_CHAT
    stream: bool = Field(
        default=True, description="ask the model for streamed replies (true) or whole ones"
    )
    model: str = Field(
        default="turnlaw-model",
        description="the model every agent uses unless a session passes another "
        "(the fake lists it at GET /v1/models)",
    )
    store: str = Field(
        min_length=1,
        description="a directory the backend keeps everything in (agents, memory, "
        "conversations); the suite gives a fresh one per test, and a backend opened again "
        "on the same store is the same backend in another process",
    )
    killable: bool = Field(
        default=False,
        description="the suite will kill this backend's runtime (SIGKILL): it must run in a "
        "process of its own. When false the adapter may run it in the suite's process",
    )


class SessionAgentSpec(_Frozen):
    """What `create_agent` builds: the persistent entity with memory."""

    system: str = Field(default="", description="the agent's instructions")
    memory: dict[str, str] = Field(
        default_factory=dict,
        description="agent-level memory blocks, label -> value: part of every conversation "
        "of the agent (its system prompt), in every process",
    )


class SessionOptions(_Frozen):
    """What one session is opened with: what the seed scopes to the session."""

    tools: tuple[ToolName, ...] = Field(
        default=(),
        description="client tools from the catalog, registered for this session only and "
        "executed by the client (the adapter)",
    )
    needs_approval: tuple[ToolName, ...] = Field(
        default=(),
        description="the session's permission behaviour: these of its tools pause the turn "
        "for a person's approval (an `approval_request` event) before they run",
    )
    model: str | None = Field(
        default=None,
        description="a model update passed to the session; it persists beyond the session "
        "(None: the agent's current model)",
    )


BreakHow = Literal["drop", "kill"]
"""How a connection breaks: `drop`, the client's connection dies (socket dropped, pipe
closed) while the runtime stays up; `kill`, the runtime process serving the session is
SIGKILLed."""


# --- what comes back ------------------------------------------------------------------


class SessionIds(_Frozen):
    """The ids a session exposes once the backend resolved them."""

    agent_id: str
    conversation_id: str
    session_id: str | None = Field(
        description="the session's own id as the runtime exposes it (None: it exposes none)"
    )


RunId = Annotated[str | None, Field(default=None, description="the run the event belongs to")]


class AssistantEvent(_Frozen):
    type: Literal["assistant"] = "assistant"
    text: str
    run_id: RunId = None


class ReasoningEvent(_Frozen):
    type: Literal["reasoning"] = "reasoning"
    text: str
    run_id: RunId = None


class ToolCallEvent(_Frozen):
    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    tool_name: str
    arguments: JSONValue = None
    run_id: RunId = None


class ToolResultEvent(_Frozen):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: str
    is_error: bool = False
    run_id: RunId = None


class ApprovalRequestEvent(_Frozen):
    """A tool call that waits for a person: the pass ends here until `decide`."""

    type: Literal["approval_request"] = "approval_request"
    tool_call_id: str
    tool_name: str
    arguments: JSONValue = None
    run_id: RunId = None


class QueueEvent(_Frozen):
    """The runtime's queue changed (the seed's `queue_update`): `action` in the runtime's
    own words (enqueued, dequeued, removed, cleared, …), the items it names."""

    type: Literal["queue"] = "queue"
    action: str
    item_ids: tuple[str, ...] = ()


class ErrorEvent(_Frozen):
    type: Literal["error"] = "error"
    message: str
    run_id: RunId = None


class RetryEvent(_Frozen):
    type: Literal["retry"] = "retry"
    message: str = ""
    run_id: RunId = None


class ResultEvent(_Frozen):
    """The turn's terminal message."""

    type: Literal["result"] = "result"
    success: bool
    text: str | None = Field(default=None, description="the turn's full final text")
    stop_reason: str | None = None
    duration_ms: float | None = None
    run_ids: tuple[str, ...] | None = Field(
        default=None, description="every run the turn started; None: absent"
    )


SessionEvent = Annotated[
    AssistantEvent
    | ReasoningEvent
    | ToolCallEvent
    | ToolResultEvent
    | ApprovalRequestEvent
    | QueueEvent
    | ErrorEvent
    | RetryEvent
    | ResultEvent,
    Field(discriminator="type"),
]
"""One typed event of a session's stream."""

PassEnd = Literal["result", "approval", "closed", "waiting"]
"""Why a pass ended: its `result` (the last event), an `approval_request` (the turn waits
for `decide`; the next pass goes on with it), the connection's end with no result, or
`stream(wait=...)` ran out of time first (the next pass goes on where this one stopped)."""


class StreamPass(_Frozen):
    """One pass through `stream()`: every event the session yielded, in order."""

    events: tuple[SessionEvent, ...]
    ended: PassEnd

    @property
    def result(self) -> ResultEvent | None:
        last = self.events[-1] if self.events else None
        return last if isinstance(last, ResultEvent) else None


class StoredMessage(_Frozen):
    """One message of a conversation as the runtime lists it (`listMessages()`).

    `role` is the suite's word for it: `user` (a message a client sent, as it reached the
    runtime), `assistant` (text the agent answered), `tool_call` / `tool_result` (with
    `tool_call_id`), or `other` (anything else the runtime lists: system notes, reminders,
    usage). `text` is its text, joined when the runtime keeps it in parts."""

    role: Literal["user", "assistant", "tool_call", "tool_result", "other"]
    text: str = ""
    id: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None


class PendingApproval(_Frozen):
    tool_call_id: str
    tool_name: str
    arguments: JSONValue = None


class SessionState(_Frozen):
    """A consolidated snapshot of the session's conversation (`bootstrapState()`)."""

    agent_id: str
    conversation_id: str
    messages: tuple[StoredMessage, ...]
    pending_approvals: tuple[PendingApproval, ...] = ()


__all__ = [
    "ApprovalRequestEvent",
    "AssistantEvent",
    "BackendSpec",
    "BreakHow",
    "ErrorEvent",
    "JSONValue",
    "PassEnd",
    "PendingApproval",
    "QueueEvent",
    "ReasoningEvent",
    "ResultEvent",
    "RetryEvent",
    "SessionAgentSpec",
    "SessionEvent",
    "SessionIds",
    "SessionOptions",
    "SessionState",
    "StoredMessage",
    "StreamPass",
    "ToolCallEvent",
    "ToolResultEvent",
]
