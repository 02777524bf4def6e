"""Anthropic Messages over the official `anthropic` SDK (async client).

Messages has no tool role: results travel as `tool_result` blocks in a user message that
must come right after the call, results first. So consecutive tool turns fold into ONE
user message, and a user turn that directly follows them joins it as a trailing text
block — the alternation the API demands, without losing or reordering a word.
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence
from typing import Literal

import anthropic
from anthropic.types import (
    Message,
    MessageParam,
    TextBlock,
    TextBlockParam,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlock,
    ToolUseBlockParam,
)

from ..conversation import ToolCall, ToolSpec, Turn
from ._base import ModelReply

DEFAULT_MAX_TOKENS = 1024

_Block = TextBlockParam | ToolUseBlockParam | ToolResultBlockParam


def _text(text: str) -> TextBlockParam:
    return {"type": "text", "text": text}


def _result(turn: Turn) -> ToolResultBlockParam:
    block: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": turn.tool_call_id or "",
        "content": turn.text,
    }
    if turn.is_error:
        block["is_error"] = True
    return block


def _assistant_blocks(turn: Turn) -> list[_Block]:
    blocks: list[_Block] = [_text(turn.text)] if turn.text else []
    blocks.extend(
        ToolUseBlockParam(type="tool_use", id=call.id, name=call.name, input=call.arguments)
        for call in turn.tool_calls
    )
    # An empty assistant turn is still a turn; send it as it is rather than drop it.
    return blocks or [_text("")]


def anthropic_messages(turns: Sequence[Turn]) -> list[MessageParam]:
    """Turns as Messages messages, folding tool results (and a following user turn)."""
    grouped: list[tuple[Literal["user", "assistant"], list[_Block]]] = []
    results_open = False  # the last message holds tool results a turn may join
    for turn in turns:
        if turn.role == "assistant":
            grouped.append(("assistant", _assistant_blocks(turn)))
            results_open = False
        elif turn.role == "tool":
            if results_open:
                grouped[-1][1].append(_result(turn))
            else:
                grouped.append(("user", [_result(turn)]))
                results_open = True
        else:
            if results_open:
                if turn.text:
                    grouped[-1][1].append(_text(turn.text))
            else:
                grouped.append(("user", [_text(turn.text)]))
            results_open = False
    return [_message(role, blocks) for role, blocks in grouped]


def _message(role: Literal["user", "assistant"], blocks: list[_Block]) -> MessageParam:
    if role == "user":
        return {"role": "user", "content": blocks}
    return {"role": "assistant", "content": blocks}


def anthropic_tools(tools: Sequence[ToolSpec]) -> list[ToolParam]:
    """Tools with their JSON Schema as `input_schema`."""
    return [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in tools
    ]


def anthropic_reply(message: Message) -> ModelReply:
    """Text blocks joined, and tool_use blocks as calls; thinking and the like are skipped."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolUseBlock):
            calls.append(ToolCall(id=block.id, name=block.name, arguments=dict(block.input)))
    return ModelReply(text="".join(texts), tool_calls=tuple(calls))


class AnthropicMessagesProvider:
    """A `ModelProvider` for `POST /v1/messages`.

    Streams through `messages.stream` by default; `get_final_message()` assembles the
    same `Message` the non-streaming call returns.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        stream: bool = True,
        max_retries: int = 2,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        client: anthropic.AsyncAnthropic | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """`client` is a ready SDK client (its own settings win); otherwise one is built
        for `base_url`, verifying TLS with `tls` (None: the SDK's default context)."""
        self.stream = stream
        self.max_tokens = max_tokens
        self.client = client or anthropic.AsyncAnthropic(
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            http_client=None if tls is None else anthropic.DefaultAsyncHttpxClient(verify=tls),
        )

    async def complete(
        self,
        *,
        model: str,
        system: str,
        turns: Sequence[Turn],
        tools: Sequence[ToolSpec],
    ) -> ModelReply:
        messages = anthropic_messages(turns)
        instructions = system or anthropic.omit
        offered = anthropic_tools(tools) if tools else anthropic.omit
        api = self.client.messages
        if self.stream:
            async with api.stream(
                model=model,
                max_tokens=self.max_tokens,
                system=instructions,
                messages=messages,
                tools=offered,
            ) as stream:
                final = await stream.get_final_message()
            return anthropic_reply(final)
        message = await api.create(
            model=model,
            max_tokens=self.max_tokens,
            system=instructions,
            messages=messages,
            tools=offered,
        )
        return anthropic_reply(message)
