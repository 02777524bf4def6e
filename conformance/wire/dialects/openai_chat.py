"""OpenAI Chat Completions (`POST /v1/chat/completions`): requests into the IR, replies out.

Reply shapes follow what openai-python actually parses: the `ChatCompletion` model, the
raw `Stream` decoder (which turns a `data: {"error": ...}` event into `APIError`) and the
`ChatCompletionStream` accumulator behind `client.chat.completions.stream(...)`.
"""

from __future__ import annotations

from typing import Any

from ..ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from ._base import (
    ReplyIds,
    SseEvent,
    WireFormatError,
    arguments_text,
    halves,
    text_pieces,
)
from ._fields import (
    content_text,
    flag,
    function_spec,
    json_or_raw,
    non_empty,
    obj,
    optional_array,
    request_object,
    string,
)
from ._openai_errors import error_body

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
_FINISH_REASONS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def _content(value: Any, field: str, *, text_only: bool) -> tuple[str, tuple[str, ...]]:
    """(joined text, omitted part types); `text_only` refuses any part but text."""

    def read(part: dict[str, Any], kind: str, where: str) -> str | None:
        if kind == "text":
            return string(part.get("text"), f"{where}.text")
        if text_only:
            raise WireFormatError(f"{where}.type", "expected 'text' (only text parts here)")
        return None

    return content_text(value, field, read, array="an array")


def _tool_call(value: Any, field: str) -> ToolCall:
    call = obj(value, field)
    call_id = non_empty(call.get("id"), f"{field}.id")
    kind = call.get("type", "function")
    if kind == "custom":
        custom = obj(call.get("custom"), f"{field}.custom")
        custom_input = string(custom.get("input"), f"{field}.custom.input")
        name = non_empty(custom.get("name"), f"{field}.custom.name")
        return ToolCall(id=call_id, name=name, arguments=custom_input)
    if kind != "function":
        raise WireFormatError(f"{field}.type", "expected 'function' or 'custom'")
    function = obj(call.get("function"), f"{field}.function")
    name = non_empty(function.get("name"), f"{field}.function.name")
    arguments = string(
        function.get("arguments"), f"{field}.function.arguments", "expected a JSON-encoded string"
    )
    return ToolCall(id=call_id, name=name, arguments=json_or_raw(arguments))


def _assistant(msg: dict[str, Any], field: str) -> Message:
    text, omitted = "", tuple[str, ...]()
    if msg.get("content") is not None:
        text, omitted = _content(msg["content"], f"{field}.content", text_only=False)
    raw_calls = optional_array(msg.get("tool_calls"), f"{field}.tool_calls")
    calls = tuple(_tool_call(c, f"{field}.tool_calls.{j}") for j, c in enumerate(raw_calls))
    extra = tuple(key for key in ("refusal", "audio", "function_call") if msg.get(key) is not None)
    return Message(role="assistant", text=text, tool_calls=calls, omitted_parts=omitted + extra)


def _message(value: Any, field: str, system: list[str]) -> Message | None:
    """One wire message; system/developer texts go to `system` and yield None."""
    msg = obj(value, field)
    role = msg.get("role")
    if role not in _ROLES:
        raise WireFormatError(f"{field}.role", f"expected one of {', '.join(_ROLES)}")
    if role == "assistant":
        return _assistant(msg, field)
    content = msg.get("content")
    if role == "function":  # legacy function calling: results carry no call id
        raise WireFormatError(
            f"{field}.role",
            "the legacy 'function' role is not modelled by turnlaw (its results cannot be "
            "paired with a call); send tool calls and 'tool' messages instead",
        )
    if content is None:
        raise WireFormatError(f"{field}.content", "required for this role")
    if role in ("system", "developer"):
        text, _ = _content(content, f"{field}.content", text_only=True)
        if text:
            system.append(text)
        return None
    text, omitted = _content(content, f"{field}.content", text_only=False)
    if role == "user":
        return Message(role="user", text=text, omitted_parts=omitted)
    call_id = non_empty(msg.get("tool_call_id"), f"{field}.tool_call_id")
    return Message(role="tool", text=text, tool_call_id=call_id, omitted_parts=omitted)


def _function_spec(value: Any, field: str) -> ToolSpec:
    return function_spec(obj(value, field), field)


def _tools(body: dict[str, Any]) -> tuple[ToolSpec, ...]:
    specs: list[ToolSpec] = []
    for i, raw_tool in enumerate(optional_array(body.get("tools"), "tools")):
        tool = obj(raw_tool, f"tools.{i}")
        kind = tool.get("type")
        if kind == "function":
            specs.append(_function_spec(tool.get("function"), f"tools.{i}.function"))
        elif kind == "custom":
            custom = obj(tool.get("custom"), f"tools.{i}.custom")
            description = custom.get("description")
            specs.append(
                ToolSpec(
                    name=non_empty(custom.get("name"), f"tools.{i}.custom.name"),
                    description=description if isinstance(description, str) else "",
                )
            )
        else:
            raise WireFormatError(f"tools.{i}.type", "expected 'function' or 'custom'")
    # deprecated `functions`: still tools the model was offered
    legacy = optional_array(body.get("functions"), "functions")
    specs.extend(_function_spec(f, f"functions.{i}") for i, f in enumerate(legacy))
    return tuple(specs)


def _has_content(msg: dict[str, Any]) -> bool:
    """Refusal, legacy function_call and audio stand in for content on the real API too."""
    return any(msg.get(key) is not None for key in ("content", "refusal", "function_call", "audio"))


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _call_ids(reply: AssistantReply, ids: ReplyIds) -> list[str]:
    return [c.id or ids.tool_call_id("call_", i) for i, c in enumerate(reply.tool_calls)]


def _content_value(reply: AssistantReply) -> str | None:
    """`null` content for a tool-call-only reply, as the real API sends it."""
    return None if not reply.text and reply.tool_calls else reply.text


class OpenAIChatCodec:
    """The Chat Completions dialect; stateless, so one module-level instance serves all."""

    dialect: Dialect = Dialect.OPENAI_CHAT
    path: str = "/v1/chat/completions"

    def parse_request(self, body: Any) -> RequestIR:
        """Normalize a request body; raise WireFormatError naming the bad field."""
        request = request_object(body)
        model = non_empty(request.get("model"), "model")
        raw_messages = request.get("messages")
        if not isinstance(raw_messages, list):
            raise WireFormatError("messages", "expected an array of messages")
        if not raw_messages:
            raise WireFormatError("messages", "expected at least one message")
        system: list[str] = []
        parsed = [_message(m, f"messages.{i}", system) for i, m in enumerate(raw_messages)]
        stream = flag(request.get("stream"), "stream")
        options = request.get("stream_options")
        usage_asked = options is not None and obj(options, "stream_options").get("include_usage")
        return RequestIR(
            dialect=self.dialect,
            model=model,
            system="\n\n".join(system),
            messages=tuple(m for m in parsed if m is not None),
            tools=_tools(request),
            stream=stream,
            include_usage=stream and usage_asked is True,
            raw=request,
        )

    def check_roles(self, request: RequestIR) -> list[str]:
        """Ordering rules the Chat Completions endpoint enforces on `messages`."""
        raw_messages = request.raw.get("messages")
        if not isinstance(raw_messages, list):
            return []
        problems: list[str] = []
        previous: Any = None
        for i, msg in enumerate(raw_messages):
            if not isinstance(msg, dict):
                previous = msg
                continue
            role = msg.get("role")
            if role == "tool":
                prev_role = previous.get("role") if isinstance(previous, dict) else None
                answers_calls = prev_role == "tool" or (
                    prev_role == "assistant" and bool(previous.get("tool_calls"))
                )
                if not answers_calls:
                    problems.append(
                        f"messages.{i}: a tool message must directly follow an assistant "
                        "message with tool_calls or another tool message"
                    )
            elif role == "assistant" and not msg.get("tool_calls") and not _has_content(msg):
                problems.append(
                    f"messages.{i}: an assistant message has neither content nor tool_calls"
                )
            previous = msg
        return problems

    def render_json(self, reply: AssistantReply, request: RequestIR, ids: ReplyIds) -> Any:
        """A `chat.completion` object with a single choice."""
        message: dict[str, Any] = {
            "role": "assistant",
            "content": _content_value(reply),
            "refusal": None,
            "annotations": [],
        }
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments_text(call.arguments)},
                }
                for call, call_id in zip(reply.tool_calls, _call_ids(reply, ids), strict=True)
            ]
        return {
            "id": ids.response_id("chatcmpl-turnlaw-"),
            "object": "chat.completion",
            "created": ids.created,
            "model": request.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": _FINISH_REASONS[reply.stop_reason],
                }
            ],
            "usage": _usage(reply.usage),
            "service_tier": "default",
            "system_fingerprint": None,
        }

    def render_sse(
        self, reply: AssistantReply, request: RequestIR, ids: ReplyIds
    ) -> list[SseEvent]:
        """Role chunk, text pieces, tool-call chunks, finish chunk, [usage chunk], [DONE]."""
        head: dict[str, Any] = {
            "id": ids.response_id("chatcmpl-turnlaw-"),
            "object": "chat.completion.chunk",
            "created": ids.created,
            "model": request.model,
            "service_tier": "default",
            "system_fingerprint": None,
        }
        if request.include_usage:
            head["usage"] = None  # the real API sends an explicit null until the last chunk

        def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> SseEvent:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            return SseEvent.of({**head, "choices": [choice]})

        opening_content = None if _content_value(reply) is None else ""
        events = [chunk({"role": "assistant", "content": opening_content, "refusal": None})]
        events += [chunk({"content": piece}) for piece in text_pieces(reply.text)]
        for index, (call, call_id) in enumerate(
            zip(reply.tool_calls, _call_ids(reply, ids), strict=True)
        ):
            opening = {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            events.append(chunk({"tool_calls": [opening]}))
            for piece in halves(arguments_text(call.arguments)):
                piece_delta = {"index": index, "function": {"arguments": piece}}
                events.append(chunk({"tool_calls": [piece_delta]}))
        events.append(chunk({}, _FINISH_REASONS[reply.stop_reason]))
        if request.include_usage:
            events.append(SseEvent.of({**head, "choices": [], "usage": _usage(reply.usage)}))
        events.append(SseEvent(data="[DONE]"))
        return events

    def render_error(self, status: int, message: str) -> Any:
        """`{"error": {message, type, param, code}}`, typed the way api.openai.com types it."""
        return error_body(status, message)

    def render_stream_error(self, message: str, ids: ReplyIds) -> list[SseEvent]:
        """A bare `data: {"error": ...}` event: openai-python raises `APIError` on reading it."""
        error = {"message": message, "type": "server_error", "param": None, "code": None}
        return [SseEvent.of({"error": error})]


CODEC = OpenAIChatCodec()
