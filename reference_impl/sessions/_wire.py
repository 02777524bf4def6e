"""The session runtime's wire: HTTP bodies for agents and conversations, and the frames
of a session's WebSocket, one pydantic model each.

A WebSocket carries one session. The client's first frame is `open` (a new conversation
on an agent, or a resume by either kind of id); the runtime answers `opened` with the
session's ids, or `refused` and closes. Then the client sends requests, each with a
`request_id` the runtime's `reply` names, and `tool_output` frames (a client tool's
result); the runtime sends `event` frames (the session's stream), `reply` frames and
`execute_tool` frames (run this client tool and answer with its output). Everything the
runtime sends goes through one writer in order, so a reply never overtakes an event
emitted before it. Text frames of JSON; types are strict, unknown fields refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ._events import SessionEvent


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --- HTTP -------------------------------------------------------------------------------


class CreateAgentBody(_Body):
    """`POST /agents`."""

    system: str = ""
    memory: dict[str, str] = Field(default_factory=dict, description="label -> value, in order")
    model: str | None = None


class AgentBody(_Body):
    """An agent as the runtime shows it (`POST /agents`, `GET /agents/{id}`)."""

    id: str
    system: str
    memory: dict[str, str]
    model: str
    default_conversation_id: str


class CreateConversationBody(_Body):
    """`POST /conversations`."""

    agent_id: str


class ConversationBody(_Body):
    id: str
    agent_id: str


class ConversationsBody(_Body):
    """`GET /conversations?agent_id=…`: the agent's conversations, oldest first."""

    conversations: tuple[ConversationBody, ...]


MessageRole = Literal["user", "assistant", "tool_call", "tool_result"]


class MessageBody(_Body):
    """One listed message (`GET /conversations/{id}/messages`)."""

    role: MessageRole
    text: str = ""
    id: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None


class MessagesBody(_Body):
    messages: tuple[MessageBody, ...]


class ErrorBody(_Body):
    """Every refusal: what happened, and the code a client branches on."""

    error: str
    code: str


# --- the session's WebSocket: client to runtime --------------------------------------------


class ToolDefinition(_Body):
    """A client tool: offered to the model in this session only, run by the client."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class OpenFrame(_Body):
    """The first frame: `new_conversation` starts one on agent `target`; otherwise
    `target` is resumed (an agent id: its default conversation; a conversation id)."""

    type: Literal["open"] = "open"
    target: str
    new_conversation: bool = False
    tools: tuple[ToolDefinition, ...] = ()
    needs_approval: tuple[str, ...] = ()
    model: str | None = None


class SendFrame(_Body):
    type: Literal["send"] = "send"
    request_id: int
    text: str


class AbortFrame(_Body):
    type: Literal["abort"] = "abort"
    request_id: int


class DecideFrame(_Body):
    type: Literal["decide"] = "decide"
    request_id: int
    tool_call_id: str
    allow: bool


class RemoveQueuedFrame(_Body):
    type: Literal["remove_queued"] = "remove_queued"
    request_id: int
    item_id: str


class StateFrame(_Body):
    type: Literal["state"] = "state"
    request_id: int


class ToolOutputFrame(_Body):
    """A client tool's output for an `execute_tool` request."""

    type: Literal["tool_output"] = "tool_output"
    tool_call_id: str
    content: str
    is_error: bool = False


ClientFrame = Annotated[
    SendFrame | AbortFrame | DecideFrame | RemoveQueuedFrame | StateFrame | ToolOutputFrame,
    Field(discriminator="type"),
]
CLIENT_FRAME: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)


# --- the session's WebSocket: runtime to client --------------------------------------------


class OpenedFrame(_Body):
    type: Literal["opened"] = "opened"
    agent_id: str
    conversation_id: str
    session_id: str


class RefusedFrame(_Body):
    """The open (or a frame) was refused; after an open, the socket then closes."""

    type: Literal["refused"] = "refused"
    error: str
    code: str


class SentValue(_Body):
    item_id: str


class DoneValue(_Body):
    """abort / decide / remove_queued: whether it did anything."""

    done: bool


class PendingApprovalBody(_Body):
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class StateValue(_Body):
    """A consolidated snapshot of the session's conversation."""

    agent_id: str
    conversation_id: str
    messages: tuple[MessageBody, ...]
    pending_approvals: tuple[PendingApprovalBody, ...] = ()


class ReplyFrame(_Body):
    """The answer to one request: `value` when ok, else `error` and `code`."""

    type: Literal["reply"] = "reply"
    request_id: int
    ok: bool = True
    value: SentValue | DoneValue | StateValue | None = None
    error: str | None = None
    code: str | None = None


class EventFrame(_Body):
    type: Literal["event"] = "event"
    event: SessionEvent


class ExecuteToolFrame(_Body):
    """Run this client tool and send its `tool_output`."""

    type: Literal["execute_tool"] = "execute_tool"
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


ServerFrame = Annotated[
    OpenedFrame | RefusedFrame | ReplyFrame | EventFrame | ExecuteToolFrame,
    Field(discriminator="type"),
]
SERVER_FRAME: TypeAdapter[ServerFrame] = TypeAdapter(ServerFrame)


__all__ = [
    "CLIENT_FRAME",
    "SERVER_FRAME",
    "AbortFrame",
    "AgentBody",
    "ClientFrame",
    "ConversationBody",
    "ConversationsBody",
    "CreateAgentBody",
    "CreateConversationBody",
    "DecideFrame",
    "DoneValue",
    "ErrorBody",
    "EventFrame",
    "ExecuteToolFrame",
    "MessageBody",
    "MessageRole",
    "MessagesBody",
    "OpenFrame",
    "OpenedFrame",
    "PendingApprovalBody",
    "RefusedFrame",
    "RemoveQueuedFrame",
    "ReplyFrame",
    "SendFrame",
    "SentValue",
    "ServerFrame",
    "StateFrame",
    "StateValue",
    "ToolDefinition",
    "ToolOutputFrame",
]
