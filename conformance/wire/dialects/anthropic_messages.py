"""Anthropic Messages (`POST /v1/messages`): parse requests into the IR, render replies back.

Shapes follow what the `anthropic` SDK sends and what its parsers and `MessageStream`
accumulator read, so a runtime on the real SDK cannot tell the fake from the provider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec
from ._base import ReplyIds, SseEvent, WireFormatError, compact_json, halves, text_pieces
from ._fields import boolean, flag, non_empty, obj, optional_array, required_str, string

_Parsed = TypeVar("_Parsed")
_ROLES = ("user", "assistant", "system")
# Status -> `error.type`, as the Messages API names them.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def _block_type(raw: Any, field: str) -> tuple[dict[str, Any], str]:
    block = obj(raw, field)
    kind = non_empty(block.get("type"), f"{field}.type", "expected a content block type string")
    return block, kind


def _text_of(block: dict[str, Any], field: str) -> str:
    return string(block.get("text"), f"{field}.text")


def _blocks(content: Any, field: str) -> list[Any]:
    """Content as a block list: a bare string is shorthand for one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    raise WireFormatError(field, "expected a string or an array of content blocks")


def _texts_only(content: Any, field: str) -> str:
    """System prompts only admit text blocks; the API refuses anything else there."""
    texts = []
    for j, raw in enumerate(_blocks(content, field)):
        block, kind = _block_type(raw, f"{field}.{j}")
        if kind != "text":
            raise WireFormatError(f"{field}.{j}.type", "expected 'text'")
        texts.append(_text_of(block, f"{field}.{j}"))
    return "\n".join(texts)


def _tool_result(block: dict[str, Any], field: str) -> Message:
    call_id = required_str(block, "tool_use_id", field)
    is_error = boolean(block.get("is_error", False), f"{field}.is_error")
    texts: list[str] = []
    omitted: list[str] = []
    content = block.get("content", "")
    for j, raw in enumerate(_blocks(content, f"{field}.content")):
        inner, kind = _block_type(raw, f"{field}.content.{j}")
        if kind == "text":
            texts.append(_text_of(inner, f"{field}.content.{j}"))
        else:
            omitted.append(kind)
    return Message(
        role="tool",
        text="\n".join(texts),
        tool_call_id=call_id,
        is_error=is_error,
        omitted_parts=tuple(omitted),
    )


def _tool_use(block: dict[str, Any], field: str) -> ToolCall:
    call_id = required_str(block, "id", field)
    name = required_str(block, "name", field)
    if "input" not in block:
        raise WireFormatError(f"{field}.input", "required")
    return ToolCall(id=call_id, name=name, arguments=obj(block["input"], f"{field}.input"))


def _sort_blocks(
    content: Any,
    field: str,
    own: tuple[str, Callable[[dict[str, Any], str], _Parsed]],
    foreign: tuple[str, str],
) -> tuple[list[str], list[_Parsed], list[str]]:
    """(texts, parsed `own` blocks, omitted types) of a user or assistant turn, in order.

    `own` is the block kind this role carries and its parser; `foreign` the kind that
    belongs to the other role, with that role's name, and is refused here.
    """
    own_kind, parse = own
    foreign_kind, home = foreign
    texts: list[str] = []
    parsed: list[_Parsed] = []
    omitted: list[str] = []
    for j, raw in enumerate(_blocks(content, field)):
        at = f"{field}.{j}"
        block, kind = _block_type(raw, at)
        if kind == "text":
            texts.append(_text_of(block, at))
        elif kind == own_kind:
            parsed.append(parse(block, at))
        elif kind == foreign_kind:
            raise WireFormatError(f"{at}.type", f"{kind} blocks belong in {home} messages")
        else:
            omitted.append(kind)
    return texts, parsed, omitted


def _user(content: Any, field: str) -> list[Message]:
    """Tool results become `tool` messages in order, then one user message for the rest."""
    texts, results, omitted = _sort_blocks(
        content, field, ("tool_result", _tool_result), ("tool_use", "assistant")
    )
    if results and not texts and not omitted:
        return results
    user = Message(role="user", text="\n".join(texts), omitted_parts=tuple(omitted))
    return [*results, user]


def _assistant(content: Any, field: str) -> Message:
    texts, calls, omitted = _sort_blocks(
        content, field, ("tool_use", _tool_use), ("tool_result", "user")
    )
    return Message(
        role="assistant",
        text="\n".join(texts),
        tool_calls=tuple(calls),
        omitted_parts=tuple(omitted),
    )


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    specs: list[ToolSpec] = []
    for i, item in enumerate(optional_array(raw, "tools")):
        tool = obj(item, f"tools.{i}")
        name = required_str(tool, "name", f"tools.{i}")
        kind = tool.get("type")
        if "input_schema" not in tool:
            if kind not in (None, "custom"):
                continue  # a server tool (web search, bash, ...): the runtime executes nothing
            raise WireFormatError(f"tools.{i}.input_schema", "required for a custom tool")
        schema = obj(tool["input_schema"], f"tools.{i}.input_schema")
        description = string(tool.get("description", ""), f"tools.{i}.description")
        specs.append(ToolSpec(name=name, description=description, parameters=schema))
    return tuple(specs)


class AnthropicMessagesCodec:
    """The Messages API: `system` beside `messages`, tool calls and results as content blocks."""

    dialect: Dialect = Dialect.ANTHROPIC_MESSAGES
    path: str = "/v1/messages"

    def parse_request(self, body: Any) -> RequestIR:
        req = obj(body, "")
        model = non_empty(req.get("model"), "model")
        max_tokens = req.get("max_tokens")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise WireFormatError("max_tokens", "expected an integer >= 1")
        stream = flag(req.get("stream"), "stream")
        raw_messages = req.get("messages")
        if not isinstance(raw_messages, list) or not raw_messages:
            raise WireFormatError("messages", "expected a non-empty array of messages")

        systems: list[str] = []
        if req.get("system") is not None:
            systems.append(_texts_only(req["system"], "system"))
        messages: list[Message] = []
        last = len(raw_messages) - 1
        for i, raw in enumerate(raw_messages):
            msg = obj(raw, f"messages.{i}")
            role = msg.get("role")
            if role not in _ROLES:
                raise WireFormatError(f"messages.{i}.role", "expected user, assistant or system")
            if "content" not in msg:
                raise WireFormatError(f"messages.{i}.content", "required")
            content = msg["content"]
            if content in ("", []) and not (role == "assistant" and i == last):
                raise WireFormatError(f"messages.{i}.content", "must be non-empty")
            if role == "system":
                systems.append(_texts_only(content, f"messages.{i}.content"))
            elif role == "user":
                messages.extend(_user(content, f"messages.{i}.content"))
            else:
                messages.append(_assistant(content, f"messages.{i}.content"))

        return RequestIR(
            dialect=self.dialect,
            model=model,
            system="\n\n".join(systems),
            messages=tuple(messages),
            tools=_tools(req.get("tools")),
            stream=stream,
            include_usage=stream,
            raw=req,
        )

    def check_roles(self, request: RequestIR) -> list[str]:
        """First turn is a user's; results sit, first, in the user turn right after their call."""
        raw = request.raw.get("messages")
        if not isinstance(raw, list):
            return []
        problems: list[str] = []
        turns = [(i, m) for i, m in enumerate(raw) if isinstance(m, dict)]
        convo = [(i, m) for i, m in turns if m.get("role") != "system"]
        if convo and convo[0][1].get("role") != "user":
            i, first = convo[0]
            problems.append(
                f"messages.{i}: the first message must have role 'user', got {first.get('role')!r}"
            )
        called_at: dict[str, int] = {}
        prev: int | None = None
        for i, msg in convo:
            blocks = msg.get("content")
            blocks = blocks if isinstance(blocks, list) else []
            blocks = [b for b in blocks if isinstance(b, dict)]
            if msg.get("role") == "assistant":
                for b in blocks:
                    if b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                        called_at[b["id"]] = i
            elif msg.get("role") == "user":
                problems.extend(self._result_placement(i, blocks, prev, called_at))
            prev = i
        return problems

    @staticmethod
    def _result_placement(
        i: int,
        blocks: list[dict[str, Any]],
        prev: int | None,
        called_at: dict[str, int],
    ) -> list[str]:
        problems: list[str] = []
        before: str | None = None
        for j, b in enumerate(blocks):
            kind = b.get("type")
            if kind != "tool_result":
                before = before or str(kind)
                continue
            if before is not None:
                problems.append(
                    f"messages.{i}.content.{j}: tool_result comes after a {before} block;"
                    " tool_result blocks must come first in the user message"
                )
            call_id = b.get("tool_use_id")
            at = called_at.get(call_id) if isinstance(call_id, str) else None
            # A result naming no call at all is the generic check's to report.
            if at is not None and prev != at:
                problems.append(
                    f"messages.{i}.content.{j}: tool_result for {call_id!r} must be in the user"
                    f" message right after messages.{at}, which called it"
                )
        return problems

    def _blocks_out(self, reply: AssistantReply, ids: ReplyIds) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.blocks:
            blocks += [{"type": "text", "text": block} for block in reply.blocks]
        elif reply.text or not reply.tool_calls:
            blocks.append({"type": "text", "text": reply.text})
        for k, call in enumerate(reply.tool_calls):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id or ids.tool_call_id("toolu_", k),
                    "name": call.name,
                    "input": call.arguments,
                }
            )
        return blocks

    def _message(
        self, reply: AssistantReply, request: RequestIR, ids: ReplyIds, *, done: bool
    ) -> dict[str, Any]:
        return {
            "id": ids.response_id("msg_turnlaw_"),
            "type": "message",
            "role": "assistant",
            "model": request.model,
            "content": self._blocks_out(reply, ids) if done else [],
            "stop_reason": reply.stop_reason if done else None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.usage.input_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": reply.usage.output_tokens if done else 0,
            },
        }

    def render_json(self, reply: AssistantReply, request: RequestIR, ids: ReplyIds) -> Any:
        return self._message(reply, request, ids, done=True)

    def render_sse(
        self, reply: AssistantReply, request: RequestIR, ids: ReplyIds
    ) -> list[SseEvent]:
        start = self._message(reply, request, ids, done=False)
        events = [
            SseEvent.of({"type": "message_start", "message": start}, "message_start"),
            SseEvent.of({"type": "ping"}, "ping"),
        ]
        for index, block in enumerate(self._blocks_out(reply, ids)):
            if block["type"] == "text":
                opening: dict[str, Any] = {"type": "text", "text": ""}
                deltas = [{"type": "text_delta", "text": p} for p in text_pieces(block["text"])]
            else:
                opening = {**block, "input": {}}
                deltas = [
                    {"type": "input_json_delta", "partial_json": p}
                    for p in halves(compact_json(block["input"]), first_longer=False)
                ]
            events.append(
                SseEvent.of(
                    {"type": "content_block_start", "index": index, "content_block": opening},
                    "content_block_start",
                )
            )
            events.extend(
                SseEvent.of(
                    {"type": "content_block_delta", "index": index, "delta": d},
                    "content_block_delta",
                )
                for d in deltas
            )
            events.append(
                SseEvent.of({"type": "content_block_stop", "index": index}, "content_block_stop")
            )
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": reply.usage.output_tokens},
        }
        events.append(SseEvent.of(delta, "message_delta"))
        events.append(SseEvent.of({"type": "message_stop"}, "message_stop"))
        return events

    def render_error(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status) or (
            "api_error" if status >= 500 else "invalid_request_error"
        )
        return {"type": "error", "error": {"type": kind, "message": message}}

    def render_stream_error(self, message: str, ids: ReplyIds) -> list[SseEvent]:
        """An `error` event: the SDK turns it into an APIStatusError while iterating."""
        body = {
            "type": "error",
            "error": {"type": "api_error", "message": message},
            "request_id": ids.response_id("req_turnlaw_"),
        }
        return [SseEvent.of(body, "error")]


CODEC = AnthropicMessagesCodec()
