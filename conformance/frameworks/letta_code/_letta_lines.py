"""The lines of Letta Code's headless protocol ("stream-json"), as pydantic models.

One JSON object per line, both ways, over the CLI's stdin and stdout. The models are
written from what CLI 0.34.12 writes (its `letta.js` bundle, `runBidirectional...`) and
what `@letta-ai/letta-code-sdk` 0.1.14 sends and reads, and they keep every field they do
not name (`extra="allow"`): the CLI adds fields between releases, and a field this
adapter does not read is not an error. What *is* an error is a line of a known type
without the fields its type promises (a result with no subtype, a tool request with no
call id): `parse_cli_line` raises `LettaLineError` naming the line, where the SDK would
read `undefined` and go on.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
)

JsonObject = dict[str, Any]


class LettaLineError(Exception):
    """A stdout line of the CLI that is JSON of a known type but not of that type's shape."""

    def __init__(self, line: str, problem: str) -> None:
        super().__init__(f"Letta Code wrote a line this adapter cannot read ({problem}): {line}")
        self.line = line
        self.problem = problem


class _Line(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


# --- CLI -> client ---------------------------------------------------------------------


class InitLine(_Line):
    """`{"type":"system","subtype":"init"}`: the process has resolved its agent and
    conversation. `session_id` is what the SDK exposes as `sessionId`."""

    type: Literal["system"]
    subtype: Literal["init"]
    agent_id: str
    conversation_id: str
    session_id: str | None = None
    model: str | None = None
    tools: list[str] = Field(default_factory=list)


class ControlReply(_Line):
    subtype: str
    request_id: str | None = None
    response: JsonObject | None = None
    error: str | None = None


class ControlResponseLine(_Line):
    """The CLI's answer to one of the client's control requests (`request_id`)."""

    type: Literal["control_response"]
    response: ControlReply


class CanUseTool(_Line):
    """The CLI asks whether a tool call may run (`--permission-mode` decides which)."""

    subtype: Literal["can_use_tool"]
    tool_name: str
    tool_call_id: str
    input: Any = None


class ExecuteExternalTool(_Line):
    """The CLI asks the client to run one of the tools it registered."""

    subtype: Literal["execute_external_tool"]
    tool_name: str
    tool_call_id: str
    input: Any = None


class OtherRequest(_Line):
    subtype: str | None = None


def _request_kind(value: Any) -> str:
    subtype = value.get("subtype") if isinstance(value, dict) else getattr(value, "subtype", None)
    return subtype if subtype in ("can_use_tool", "execute_external_tool") else "other"


ControlRequestBody = Annotated[
    Annotated[CanUseTool, Tag("can_use_tool")]
    | Annotated[ExecuteExternalTool, Tag("execute_external_tool")]
    | Annotated[OtherRequest, Tag("other")],
    Discriminator(_request_kind),
]


class ControlRequestLine(_Line):
    """A request of the CLI's to the client; the client answers with `request_id`."""

    type: Literal["control_request"]
    request_id: str
    request: ControlRequestBody


class MessageLine(_Line):
    """`{"type":"message","message_type":...}`: one message of the turn as the runtime
    streams it (assistant text, reasoning, a tool call or its return, usage, stop reason).
    Which fields a message type carries is read by `_letta_events`."""

    type: Literal["message"]
    message_type: str
    run_id: str | None = None


class ResultLine(_Line):
    """The turn's terminal line. CLI 0.34.12 sets `stop_reason` only when `subtype` is
    "error", and `run_ids` to an empty list always."""

    type: Literal["result"]
    subtype: str
    result: str | None = None
    stop_reason: str | None = None
    duration_ms: float | None = None
    run_ids: Any = None
    conversation_id: str | None = None


class ErrorLine(_Line):
    type: Literal["error"]
    message: str
    stop_reason: str | None = None
    run_id: str | None = None


class RetryLine(_Line):
    type: Literal["retry"]
    reason: str | None = None
    run_id: str | None = None


class QueueLine(_Line):
    """`queue_item_enqueued`, `queue_batch_dequeued`, `queue_cleared`, `queue_blocked`:
    the runtime's own queue, as it changes."""

    type: str
    item_id: str | None = None
    item_ids: list[str] = Field(default_factory=list)


class OtherLine(_Line):
    """Any other line (`stream_event`, `recovery`, a system line that is not init, ...):
    read past, as the SDK reads past what it does not transform."""

    type: str


_KNOWN = ("control_response", "control_request", "message", "result", "error", "retry")


def _line_kind(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return "other"
    if kind == "system":
        subtype = value.get("subtype") if isinstance(value, dict) else None
        return "init" if subtype == "init" else "other"
    if kind.startswith("queue_"):
        return "queue"
    return kind if kind in _KNOWN else "other"


CliLine = Annotated[
    Annotated[InitLine, Tag("init")]
    | Annotated[ControlResponseLine, Tag("control_response")]
    | Annotated[ControlRequestLine, Tag("control_request")]
    | Annotated[MessageLine, Tag("message")]
    | Annotated[ResultLine, Tag("result")]
    | Annotated[ErrorLine, Tag("error")]
    | Annotated[RetryLine, Tag("retry")]
    | Annotated[QueueLine, Tag("queue")]
    | Annotated[OtherLine, Tag("other")],
    Discriminator(_line_kind),
]
"""One stdout line of the CLI."""

_CLI_LINE: TypeAdapter[CliLine] = TypeAdapter(CliLine)


def parse_cli_line(line: str) -> CliLine | None:
    """The line as a model; None for a line that is not a JSON object (the SDK skips
    those too: the CLI's own stdout guard keeps them rare). Raises `LettaLineError`."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return None
    try:
        return _CLI_LINE.validate_python(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'line'}: {e['msg']}"
            for e in error.errors()
        )
        raise LettaLineError(line[:2000], problems) from None


# --- client -> CLI ---------------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def as_line(self) -> str:
        return self.model_dump_json(exclude_none=True) + "\n"


class UserContent(_Out):
    role: Literal["user"] = "user"
    content: str


class UserLine(_Out):
    """A user message: the runtime runs it now, or queues it behind the active turn."""

    type: Literal["user"] = "user"
    message: UserContent


class ExternalTool(_Out):
    """A tool the client registers and runs itself (the SDK's `tools` option)."""

    name: str
    description: str
    parameters: JsonObject


class ControlRequestOut(_Out):
    """`initialize`, `interrupt`, `list_messages`, `bootstrap_session_state`,
    `recover_pending_approvals`, `register_external_tools`: the request's own fields
    go in `request` beside its `subtype`."""

    type: Literal["control_request"] = "control_request"
    request_id: str
    request: JsonObject


class PermissionAnswer(_Out):
    """What the SDK's `handleCanUseTool` answers: allow (input unchanged), or deny with
    the person's reason and without interrupting the turn."""

    behavior: Literal["allow", "deny"]
    message: str | None = None
    interrupt: bool | None = None
    updatedInput: JsonObject | None = None  # the CLI's field names
    updatedPermissions: list[Any] | None = None


class PermissionReply(_Out):
    subtype: Literal["success"] = "success"
    request_id: str
    response: PermissionAnswer


class TextPart(_Out):
    type: Literal["text"] = "text"
    text: str


class ToolResultReply(_Out):
    subtype: Literal["external_tool_result"] = "external_tool_result"
    request_id: str
    tool_call_id: str
    content: list[TextPart]
    is_error: bool


class ControlResponseOut(_Out):
    type: Literal["control_response"] = "control_response"
    response: PermissionReply | ToolResultReply


ClientLine = UserLine | ControlRequestOut | ControlResponseOut
"""One line the client writes to the CLI's stdin."""


__all__ = [
    "CanUseTool",
    "CliLine",
    "ClientLine",
    "ControlReply",
    "ControlRequestLine",
    "ControlRequestOut",
    "ControlResponseLine",
    "ControlResponseOut",
    "ErrorLine",
    "ExecuteExternalTool",
    "ExternalTool",
    "InitLine",
    "JsonObject",
    "LettaLineError",
    "MessageLine",
    "OtherLine",
    "OtherRequest",
    "PermissionAnswer",
    "PermissionReply",
    "QueueLine",
    "ResultLine",
    "RetryLine",
    "TextPart",
    "ToolResultReply",
    "UserContent",
    "UserLine",
    "parse_cli_line",
]
