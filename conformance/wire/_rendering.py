"""Render a reply step into a Plan: the bytes a dialect would send for it.

Kept apart from the provider, which only decides *which* step answers; this module
decides *what that step looks like* on the wire, for JSON and SSE alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ._plan import Plan, json_plan
from .dialects._base import DialectCodec, ReplyIds
from .ir import AssistantReply, RequestIR, Usage
from .script import RETRY_HINT_MS, Fault, StreamError, Text, ToolCalls

_CACHED_TEXT = 1024
"""Replies with texts up to this long are cached (`_text_reply`); longer ones would let the
cache keep megabytes of old scripts alive."""


def render_step(
    step: Text | ToolCalls | Fault | StreamError,
    request: RequestIR,
    codec: DialectCodec,
    seq: int,
) -> Plan:
    ids = ReplyIds(seq=seq, created=int(time.time()))
    if isinstance(step, Fault):
        body = step.body if step.body is not None else codec.render_error(step.status, step.message)
        plan = json_plan(step.status, body)
        if step.retry_after_ms is not None:
            plan.headers.append(("retry-after-ms", str(step.retry_after_ms)))
        plan.headers.extend(step.headers.items())
    elif isinstance(step, StreamError):
        if not request.stream:
            plan = json_plan(500, codec.render_error(500, step.message))
            # the same hint a Fault sends by default: the SDKs retry a 500 after their own
            # backoff (~1.4 s over two retries) unless the reply says how long to wait
            plan.headers.append(("retry-after-ms", str(RETRY_HINT_MS)))
        else:
            reply = AssistantReply(text=step.text, usage=estimate_usage(request, step.text))
            events = codec.render_sse(reply, request, ids)
            # never the whole stream: the failure must come before its normal end
            events = events[: min(step.after_events, len(events) - 1)]
            if step.mode == "event":
                events += codec.render_stream_error(step.message, ids)
            plan = Plan.sse(events, disconnect=step.mode == "disconnect")
    else:
        if isinstance(step, Text):
            usage = step.usage or estimate_usage(request, step.text)
            blocks = tuple(step.blocks)
            if len(step.text) <= _CACHED_TEXT:
                reply = _text_reply(step.text, blocks, usage, step.stop_reason)
            else:
                reply = AssistantReply(
                    text=step.text, blocks=blocks, usage=usage, stop_reason=step.stop_reason
                )
        else:
            calls = step.tool_calls()
            reply = AssistantReply(
                text=step.text,
                tool_calls=calls,
                usage=step.usage or estimate_usage(request, step.text, calls),
                stop_reason="tool_use",
            )
        if request.stream:
            plan = Plan.sse(codec.render_sse(reply, request, ids))
        else:
            plan = json_plan(200, codec.render_json(reply, request, ids))
    plan.delay = step.delay
    plan.headers.append(("x-request-id", f"req_turnlaw_{seq:06d}"))
    return plan


def estimate_usage(request: RequestIR, text: str, calls: Sequence[Any] = ()) -> Usage:
    """Deterministic token counts: whitespace-separated words, never zero. Plain loops:
    this runs for every reply that scripts no usage."""
    shown = len(request.system.split())
    for message in request.messages:
        shown += len(message.text.split())
    produced = len(text.split())
    for call in calls:
        produced += len(json.dumps(call.arguments).split())
    return _usage(max(1, shown), max(1, produced))


@lru_cache(maxsize=1024)
def _usage(input_tokens: int, output_tokens: int) -> Usage:
    """Usage is frozen, so equal counts can share one validated instance (a pydantic
    model costs microseconds to build, on every reply)."""
    return Usage(input_tokens=input_tokens, output_tokens=output_tokens)


@lru_cache(maxsize=1024)
def _text_reply(
    text: str, blocks: tuple[str, ...], usage: Usage, stop_reason: Any
) -> AssistantReply:
    """A text reply; frozen like Usage, so a step answered again with the same counts
    reuses it."""
    return AssistantReply(text=text, blocks=blocks, usage=usage, stop_reason=stop_reason)
