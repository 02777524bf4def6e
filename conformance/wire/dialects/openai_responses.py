"""OpenAI Responses API (`POST /v1/responses`): input items in, Response objects out.

The Responses API carries a conversation as a flat list of items, so the parser regroups
them into IR turns: an assistant message and the function calls that follow it are one
turn, as the model produced them in one response. Server-side history
(`previous_response_id`, `conversation`, `item_reference`) is refused because turnlaw
can only judge what it can see on the wire.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from ._base import ReplyIds, SseEvent, WireFormatError, arguments_text
from ._fields import (
    content_text,
    flag,
    function_spec,
    json_or_raw,
    non_empty,
    obj,
    optional_array,
    optional_str,
    request_object,
    required_str,
    string,
)
from ._openai_errors import error_body
from ._openai_responses_stream import EventLog, text_part

_MESSAGE_ROLES = frozenset({"user", "assistant", "system", "developer"})
# Part type -> the key holding its text; every other part type is omitted, never refused.
_TEXT_KEYS = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
_INPUT_PARTS = frozenset({"input_text", "input_image", "input_file", "input_audio"})
_OUTPUT_PARTS = frozenset({"output_text", "refusal"})
_HIDDEN_HISTORY = (
    "server-side history would be invisible on the wire, so turnlaw cannot see what the "
    "model was shown; send the full conversation in `input` instead"
)


def _part_text(part: dict[str, Any], kind: str, where: str) -> str | None:
    key = _TEXT_KEYS.get(kind)
    if key is None:
        return None
    return string(part.get(key), f"{where}.{key}", f"expected a string in a {kind} part")


_content_text = partial(
    content_text, read=_part_text, array="a list", part_problem="expected a content part object"
)


def _arguments(item: dict[str, Any], where: str) -> Any:
    raw = string(
        item.get("arguments"), f"{where}.arguments", "expected the arguments as a JSON string"
    )
    return json_or_raw(raw)


class _Transcript:
    """Folds input items into IR messages; the grouping state lives here."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.system: list[str] = []
        self._pending: list[str] = []  # reasoning items waiting for their assistant turn
        self._open = False  # the last IR message is an assistant turn calls may join

    def add(self, raw_item: Any, where: str) -> None:
        item = obj(raw_item, where, "expected an input item object")
        kind = item.get("type")
        if kind == "message" or (kind is None and "role" in item):
            self._message(item, where)
        elif kind in ("function_call", "custom_tool_call"):
            self._call(item, where)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._output(item, where)
        elif kind == "item_reference":
            raise WireFormatError(f"{where}.type", f"item_reference refused: {_HIDDEN_HISTORY}")
        elif isinstance(kind, str) and kind:
            # reasoning, web_search_call, computer_call, ...: items the real API accepts
            # and the IR does not model; kept by type on the next assistant turn.
            self._pending.append(kind)
        else:
            raise WireFormatError(f"{where}.type", f"expected an input item type (got {kind!r})")

    def _assistant(self, text: str, calls: tuple[ToolCall, ...], omitted: tuple[str, ...]) -> None:
        self.messages.append(
            Message(
                role="assistant",
                text=text,
                tool_calls=calls,
                omitted_parts=(*self._pending, *omitted),
            )
        )
        self._pending.clear()
        self._open = True

    def _message(self, item: dict[str, Any], where: str) -> None:
        role = item.get("role")
        if role not in _MESSAGE_ROLES:
            raise WireFormatError(
                f"{where}.role", "expected one of user, assistant, system, developer"
            )
        if "content" not in item:
            raise WireFormatError(f"{where}.content", "expected message content")
        text, omitted = _content_text(item["content"], f"{where}.content")
        if role == "assistant":
            self._assistant(text, (), omitted)
            return
        self._open = False
        if role == "user":
            self.messages.append(Message(role="user", text=text, omitted_parts=omitted))
        elif text:
            self.system.append(text)

    def _call(self, item: dict[str, Any], where: str) -> None:
        custom = item.get("type") == "custom_tool_call"  # free-form input, not JSON
        call = ToolCall(
            id=required_str(item, "call_id", where),
            name=required_str(item, "name", where),
            arguments=required_str(item, "input", where) if custom else _arguments(item, where),
        )
        if not self._open:
            self._assistant("", (call,), ())
            return
        last = self.messages[-1]
        self.messages[-1] = last.model_copy(
            update={
                "tool_calls": (*last.tool_calls, call),
                "omitted_parts": (*last.omitted_parts, *self._pending),
            }
        )
        self._pending.clear()

    def _output(self, item: dict[str, Any], where: str) -> None:
        call_id = required_str(item, "call_id", where)
        if "output" not in item:
            raise WireFormatError(f"{where}.output", "expected a string or a list of parts")
        text, omitted = _content_text(item["output"], f"{where}.output")
        self.messages.append(
            Message(role="tool", text=text, tool_call_id=call_id, omitted_parts=omitted)
        )
        self._open = False


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    """Function tools offered; built-in tools (web_search, ...) are not ours to model."""
    specs: list[ToolSpec] = []
    for j, raw_tool in enumerate(optional_array(raw, "tools", "expected a list of tools")):
        tool = obj(raw_tool, f"tools.{j}", "expected a tool object")
        kind = string(tool.get("type"), f"tools.{j}.type", "expected a tool type string")
        if kind == "function":
            specs.append(function_spec(tool, f"tools.{j}"))
    return tuple(specs)


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _message_item(texts: tuple[str, ...], ids: ReplyIds, status: str) -> dict[str, Any]:
    return {
        "id": ids.response_id("msg_turnlaw_"),
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [text_part(text) for text in texts],
    }


def _call_item(call: ToolCall, index: int, ids: ReplyIds) -> dict[str, Any]:
    return {
        "id": ids.tool_call_id("fc_turnlaw_", index),
        "type": "function_call",
        "status": "completed",
        "call_id": call.id or ids.tool_call_id("call_", index),
        "name": call.name,
        "arguments": arguments_text(call.arguments),
    }


def _output(reply: AssistantReply, ids: ReplyIds) -> list[dict[str, Any]]:
    """The output items; the message is omitted only when it is empty and calls exist."""
    status = "incomplete" if reply.stop_reason == "max_tokens" else "completed"
    texts = reply.blocks or (reply.text,)
    items = [_message_item(texts, ids, status)] if reply.text or not reply.tool_calls else []
    items += [_call_item(call, i, ids) for i, call in enumerate(reply.tool_calls)]
    return items


def _echo(raw: dict[str, Any], key: str, kinds: tuple[type, ...], default: Any) -> Any:
    value = raw.get(key)
    return value if isinstance(value, kinds) and not isinstance(value, bool) else default


def _response(
    request: RequestIR,
    ids: ReplyIds,
    status: str,
    output: list[dict[str, Any]],
    usage: dict[str, Any] | None,
) -> dict[str, Any]:
    """A Response object echoing the request settings, as the real API does."""
    raw = request.raw
    tools = raw.get("tools") if isinstance(raw.get("tools"), list) else []
    parallel = raw.get("parallel_tool_calls")
    return {
        "id": ids.response_id("resp_turnlaw_"),
        "object": "response",
        "created_at": ids.created,
        "status": status,
        "background": False,
        "completed_at": ids.created if status == "completed" else None,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "instructions": _echo(raw, "instructions", (str,), None),
        "max_output_tokens": _echo(raw, "max_output_tokens", (int,), None),
        "metadata": _echo(raw, "metadata", (dict,), {}),
        "model": request.model,
        "output": output,
        "parallel_tool_calls": parallel if isinstance(parallel, bool) else True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "service_tier": "default",
        "temperature": _echo(raw, "temperature", (int, float), 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": _echo(raw, "tool_choice", (str, dict), "auto"),
        "tools": [
            {
                "type": "function",
                "name": tool.get("name"),
                "description": tool.get("description"),
                "parameters": tool.get("parameters"),
                "strict": tool.get("strict") if isinstance(tool.get("strict"), bool) else True,
            }
            for tool in tools or []
            if isinstance(tool, dict) and tool.get("type") == "function"
        ],
        "top_p": _echo(raw, "top_p", (int, float), 1.0),
        "truncation": "disabled",
        "usage": usage,
        "user": None,
    }


class OpenAIResponsesCodec:
    """The Responses API dialect: `client.responses.create(...)` and `.stream(...)`."""

    dialect = Dialect.OPENAI_RESPONSES
    path = "/v1/responses"

    def parse_request(self, body: Any) -> RequestIR:
        body = request_object(body)
        model = non_empty(body.get("model"), "model", "expected a non-empty model name string")
        for field in ("previous_response_id", "conversation"):
            if body.get(field) is not None:
                raise WireFormatError(field, f"refused: {_HIDDEN_HISTORY}")
        instructions = optional_str(body.get("instructions"), "instructions")
        stream = flag(body.get("stream"), "stream")
        transcript = _Transcript()
        if instructions:
            transcript.system.append(instructions)
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            transcript.messages.append(Message(role="user", text=raw_input))
        elif isinstance(raw_input, list):
            for i, item in enumerate(raw_input):
                transcript.add(item, f"input.{i}")
        else:
            raise WireFormatError("input", "expected a string or a list of input items")
        return RequestIR(
            dialect=self.dialect,
            model=model,
            system="\n\n".join(transcript.system),
            messages=tuple(transcript.messages),
            tools=_tools(body.get("tools")),
            stream=stream,
            include_usage=stream,
            raw=body,
        )

    def check_roles(self, request: RequestIR) -> list[str]:
        """Raw-item problems the IR cannot show: chat-style tool roles, misplaced part types."""
        items = request.raw.get("input")
        problems: list[str] = []
        for i, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, dict) or item.get("type") not in (None, "message"):
                continue
            role = item.get("role")
            if role == "tool":
                problems.append(
                    f"input.{i}: role 'tool' does not exist in the Responses API;"
                    " a tool result is a function_call_output item"
                )
                continue
            content = item.get("content")
            allowed = _OUTPUT_PARTS if role == "assistant" else _INPUT_PARTS
            for j, part in enumerate(content if isinstance(content, list) else []):
                kind = part.get("type") if isinstance(part, dict) else None
                if kind in _INPUT_PARTS | _OUTPUT_PARTS and kind not in allowed:
                    problems.append(
                        f"input.{i}: {role} message carries a {kind} part at content.{j};"
                        f" {role} content takes {', '.join(sorted(allowed))}"
                    )
        return problems

    def render_json(self, reply: AssistantReply, request: RequestIR, ids: ReplyIds) -> Any:
        status = "incomplete" if reply.stop_reason == "max_tokens" else "completed"
        return _response(request, ids, status, _output(reply, ids), _usage(reply.usage))

    def render_sse(
        self, reply: AssistantReply, request: RequestIR, ids: ReplyIds
    ) -> list[SseEvent]:
        log = EventLog()
        pending = _response(request, ids, "in_progress", [], None)
        log.emit("response.created", response=pending)
        log.emit("response.in_progress", response=pending)
        output = _output(reply, ids)
        for index, item in enumerate(output):
            if item["type"] == "message":
                log.message(index, item)
            else:
                log.call(index, item)
        final = self.render_json(reply, request, ids)
        kind = "response.incomplete" if final["status"] == "incomplete" else "response.completed"
        log.emit(kind, response=final)
        return log.events

    def render_error(self, status: int, message: str) -> Any:
        return error_body(status, message)

    def render_stream_error(self, message: str, ids: ReplyIds) -> list[SseEvent]:
        """An `error` event with the documented flat fields plus the nested `error` object
        the live API sends: the SDKs raise only on the nested one."""
        error = {"type": "server_error", "code": "server_error", "message": message, "param": None}
        flat = {"code": "server_error", "message": message, "param": None}
        payload = {"type": "error", "sequence_number": 0, **flat, "error": error}
        return [SseEvent.of(payload, event="error")]


CODEC = OpenAIResponsesCodec()
