"""What the SDK makes of the CLI's lines, as the suite's session values.

`session_event` is `Session.transformMessage` of `@letta-ai/letta-code-sdk` 0.1.14 with
the suite's types: the same lines become events, the same fields fill them, and the
lines the SDK drops (usage statistics, stop reasons, `stream_event`, `recovery`) are
dropped. Two kinds of line the SDK does not yield are kept because the contract has a
place for them and the runtime emitted them: the queue lines (`QueueEvent`, the seed's
`queue_update`) and the CLI's `can_use_tool` request (`ApprovalRequestEvent`: where the
SDK calls its `canUseTool` callback, the suite's person answers with `decide`).

`stored_message` reads one message of a `list_messages` answer (the local backend's
message records) into a `StoredMessage`.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.adapter import (
    ApprovalRequestEvent,
    AssistantEvent,
    ErrorEvent,
    QueueEvent,
    ReasoningEvent,
    ResultEvent,
    RetryEvent,
    SessionEvent,
    StoredMessage,
    ToolCallEvent,
    ToolResultEvent,
)

from ._letta_lines import (
    CanUseTool,
    CliLine,
    ControlRequestLine,
    ErrorLine,
    MessageLine,
    QueueLine,
    ResultLine,
    RetryLine,
)


def content_text(content: Any) -> str | None:
    """The SDK's `extractTextFromContent`: a string as is, text parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = [part if isinstance(part, str) else _part_text(part) for part in content]
        return "".join(pieces) or None
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return None


def _part_text(part: Any) -> str:
    text = part.get("text") if isinstance(part, dict) else None
    return text if isinstance(text, str) else ""


def _arguments(raw: Any) -> Any:
    """The SDK parses a call's argument string, keeping what does not parse as `raw`."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return {"raw": raw}


def _tool_call(extra: dict[str, Any]) -> dict[str, Any] | None:
    calls = extra.get("tool_calls")
    call = calls[0] if isinstance(calls, list) and calls else extra.get("tool_call")
    return call if isinstance(call, dict) else None


def _message_event(line: MessageLine) -> SessionEvent | None:
    fields = line.model_extra or {}
    run_id = line.run_id or None
    kind = line.message_type
    if kind == "assistant_message" and fields.get("content"):
        return AssistantEvent(text=content_text(fields["content"]) or "", run_id=run_id)
    if kind in ("tool_call_message", "approval_request_message"):
        call = _tool_call(fields)
        if call is None:
            return None
        nested = call.get("function")
        function: dict[str, Any] = nested if isinstance(nested, dict) else {}
        call_id = call.get("tool_call_id") or call.get("id")
        if not call_id:  # the SDK turns this into a protocol_error event
            return ErrorEvent(
                message=f"Missing tool_call_id in {kind} (uuid={fields.get('uuid', 'unknown')})",
                run_id=run_id,
            )
        return ToolCallEvent(
            tool_call_id=str(call_id),
            tool_name=str(call.get("name") or function.get("name") or "?"),
            arguments=_arguments(call.get("arguments") or function.get("arguments") or ""),
            run_id=run_id,
        )
    if kind == "tool_return_message" and fields.get("tool_call_id"):
        return ToolResultEvent(
            tool_call_id=str(fields["tool_call_id"]),
            content=str(fields.get("tool_return") or ""),
            is_error=fields.get("status") == "error",
            run_id=run_id,
        )
    if kind == "reasoning_message" and fields.get("reasoning"):
        return ReasoningEvent(text=str(fields["reasoning"]), run_id=run_id)
    return None


_QUEUE_ACTIONS = {
    "queue_item_enqueued": "enqueued",
    "queue_batch_dequeued": "dequeued",
    "queue_cleared": "cleared",
    "queue_blocked": "blocked",
}


def session_event(line: CliLine) -> SessionEvent | None:
    """The event the SDK yields for `line` (plus queue and permission lines), or None."""
    if isinstance(line, MessageLine):
        return _message_event(line)
    if isinstance(line, ResultLine):
        run_ids = line.run_ids
        return ResultEvent(
            success=line.subtype == "success",
            text=line.result,
            stop_reason=line.stop_reason,
            duration_ms=line.duration_ms,
            run_ids=(
                tuple(run for run in run_ids if isinstance(run, str))
                if isinstance(run_ids, list)
                else None
            ),
        )
    if isinstance(line, ErrorLine):
        return ErrorEvent(message=line.message, run_id=line.run_id or None)
    if isinstance(line, RetryLine):
        return RetryEvent(message=line.reason or "", run_id=line.run_id or None)
    if isinstance(line, QueueLine):
        items = tuple(line.item_ids) or ((line.item_id,) if line.item_id else ())
        action = _QUEUE_ACTIONS.get(line.type, line.type.removeprefix("queue_"))
        return QueueEvent(action=action, item_ids=items)
    if isinstance(line, ControlRequestLine) and isinstance(line.request, CanUseTool):
        request = line.request
        return ApprovalRequestEvent(
            tool_call_id=request.tool_call_id,
            tool_name=request.tool_name,
            arguments=request.input,
        )
    return None


_ROLES = {
    "user_message": "user",
    "assistant_message": "assistant",
    "tool_call_message": "tool_call",
    "approval_request_message": "tool_call",
    "tool_return_message": "tool_result",
}


def stored_message(record: dict[str, Any]) -> StoredMessage:
    """One listed message: its role in the suite's words, its text, its ids."""
    kind = record.get("message_type")
    role = _ROLES.get(kind, "other") if isinstance(kind, str) else "other"
    call = _tool_call(record)
    if role == "tool_call" and call is not None:
        arguments = call.get("arguments")
        return StoredMessage(
            role="tool_call",
            text=arguments if isinstance(arguments, str) else json.dumps(arguments),
            id=_text_or_none(record.get("id")),
            tool_call_id=_text_or_none(call.get("tool_call_id") or call.get("id")),
            tool_name=_text_or_none(call.get("name")),
        )
    if role == "tool_result":
        return StoredMessage(
            role="tool_result",
            text=str(record.get("tool_return") or ""),
            id=_text_or_none(record.get("id")),
            tool_call_id=_text_or_none(record.get("tool_call_id")),
        )
    text = content_text(record.get("content"))
    if text is None and isinstance(record.get("reasoning"), str):
        text = record["reasoning"]
    return StoredMessage(
        role=role if role in ("user", "assistant") else "other",  # type: ignore[arg-type]
        text=text or "",
        id=_text_or_none(record.get("id")),
    )


def _text_or_none(value: Any) -> str | None:
    return str(value) if isinstance(value, str | int) and value != "" else None


__all__ = ["content_text", "session_event", "stored_message"]
