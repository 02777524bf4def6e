"""OpenAI Responses API (`POST /v1/responses`): input items in, Response objects out.

The Responses API carries a conversation as a flat list of items, so the parser regroups
them into IR turns: an assistant message and the function calls that follow it are one
turn, as the model produced them in one response. Server-side history
(`previous_response_id`, `conversation`, `item_reference`) is refused because turnlaw
can only judge what it can see on the wire.
"""

from __future__ import annotations

import json
from typing import Any

from ..ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from ._base import ReplyIds, SseEvent, WireFormatError
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
# (type, code) as api.openai.com sends them, kept identical to the Chat dialect's table.
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("service_unavailable_error", "server_is_overloaded"),
}


def _content_text(content: Any, where: str) -> tuple[str, tuple[str, ...]]:
    """Text of a message's content (parts joined by newline) and the part types skipped."""
    if isinstance(content, str):
        return content, ()
    if not isinstance(content, list):
        raise WireFormatError(where, "expected a string or a list of content parts")
    texts: list[str] = []
    omitted: list[str] = []
    for j, part in enumerate(content):
        if not isinstance(part, dict):
            raise WireFormatError(f"{where}.{j}", "expected a content part object")
        kind = part.get("type")
        if not isinstance(kind, str):
            raise WireFormatError(f"{where}.{j}.type", "expected a content part type string")
        key = _TEXT_KEYS.get(kind)
        if key is None:
            omitted.append(kind)
            continue
        text = part.get(key)
        if not isinstance(text, str):
            raise WireFormatError(f"{where}.{j}.{key}", f"expected a string in a {kind} part")
        texts.append(text)
    return "\n".join(texts), tuple(omitted)


def _required_str(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise WireFormatError(f"{where}.{key}", "expected a non-empty string")
    return value


def _arguments(item: dict[str, Any], where: str) -> Any:
    raw = item.get("arguments")
    if not isinstance(raw, str):
        raise WireFormatError(f"{where}.arguments", "expected the arguments as a JSON string")
    try:
        return json.loads(raw)
    except ValueError:
        return raw


class _Transcript:
    """Folds input items into IR messages; the grouping state lives here."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.system: list[str] = []
        self._pending: list[str] = []  # reasoning items waiting for their assistant turn
        self._open = False  # the last IR message is an assistant turn calls may join

    def add(self, item: Any, where: str) -> None:
        if not isinstance(item, dict):
            raise WireFormatError(where, "expected an input item object")
        kind = item.get("type")
        if kind == "message" or (kind is None and "role" in item):
            self._message(item, where)
        elif kind == "function_call":
            self._call(item, where)
        elif kind == "function_call_output":
            self._output(item, where)
        elif kind == "reasoning":
            self._pending.append("reasoning")
        elif kind == "item_reference":
            raise WireFormatError(f"{where}.type", f"item_reference refused: {_HIDDEN_HISTORY}")
        else:
            raise WireFormatError(
                f"{where}.type",
                "expected message, function_call, function_call_output or reasoning"
                f" (got {kind!r})",
            )

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
        call = ToolCall(
            id=_required_str(item, "call_id", where),
            name=_required_str(item, "name", where),
            arguments=_arguments(item, where),
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
        call_id = _required_str(item, "call_id", where)
        if "output" not in item:
            raise WireFormatError(f"{where}.output", "expected a string or a list of parts")
        text, omitted = _content_text(item["output"], f"{where}.output")
        self.messages.append(
            Message(role="tool", text=text, tool_call_id=call_id, omitted_parts=omitted)
        )
        self._open = False


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    """Function tools offered; built-in tools (web_search, ...) are not ours to model."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise WireFormatError("tools", "expected a list of tools")
    specs: list[ToolSpec] = []
    for j, tool in enumerate(raw):
        if not isinstance(tool, dict):
            raise WireFormatError(f"tools.{j}", "expected a tool object")
        kind = tool.get("type")
        if not isinstance(kind, str):
            raise WireFormatError(f"tools.{j}.type", "expected a tool type string")
        if kind != "function":
            continue
        description = tool.get("description")
        if description is not None and not isinstance(description, str):
            raise WireFormatError(f"tools.{j}.description", "expected a string")
        parameters = tool.get("parameters")
        if parameters is not None and not isinstance(parameters, dict):
            raise WireFormatError(f"tools.{j}.parameters", "expected a JSON Schema object")
        specs.append(
            ToolSpec(
                name=_required_str(tool, "name", f"tools.{j}"),
                description=description or "",
                parameters=parameters or {},
            )
        )
    return tuple(specs)


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _message_item(text: str, ids: ReplyIds, status: str) -> dict[str, Any]:
    return {
        "id": ids.response_id("msg_turnlaw_"),
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": [text_part(text)],
    }


def _call_item(call: ToolCall, index: int, ids: ReplyIds) -> dict[str, Any]:
    return {
        "id": ids.tool_call_id("fc_turnlaw_", index),
        "type": "function_call",
        "status": "completed",
        "call_id": call.id or ids.tool_call_id("call_", index),
        "name": call.name,
        "arguments": json.dumps(call.arguments, separators=(",", ":")),
    }


def _output(reply: AssistantReply, ids: ReplyIds) -> list[dict[str, Any]]:
    """The output items; the message is omitted only when it is empty and calls exist."""
    status = "incomplete" if reply.stop_reason == "max_tokens" else "completed"
    items = [_message_item(reply.text, ids, status)] if reply.text or not reply.tool_calls else []
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
        if not isinstance(body, dict):
            raise WireFormatError("", "expected a JSON object as the request body")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise WireFormatError("model", "expected a non-empty model name string")
        for field in ("previous_response_id", "conversation"):
            if body.get(field) is not None:
                raise WireFormatError(field, f"refused: {_HIDDEN_HISTORY}")
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, str):
            raise WireFormatError("instructions", "expected a string")
        stream = body.get("stream")
        if stream is not None and not isinstance(stream, bool):
            raise WireFormatError("stream", "expected a boolean")
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
            stream=bool(stream),
            include_usage=bool(stream),
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
        default = ("server_error", None) if status >= 500 else ("invalid_request_error", None)
        kind, code = _ERROR_KINDS.get(status, default)
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def render_stream_error(self, message: str, ids: ReplyIds) -> list[SseEvent]:
        """An `error` event with the documented flat fields plus the nested `error` object
        the live API sends: the SDKs raise only on the nested one."""
        error = {"type": "server_error", "code": "server_error", "message": message, "param": None}
        flat = {"code": "server_error", "message": message, "param": None}
        payload = {"type": "error", "sequence_number": 0, **flat, "error": error}
        return [SseEvent.of(payload, event="error")]


CODEC = OpenAIResponsesCodec()
