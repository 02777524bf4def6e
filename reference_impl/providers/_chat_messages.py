"""The runtime's turns as Chat Completions messages and tools: plain dicts, no SDK.

Apart from the provider so that a runtime speaking Chat without the official client (the
benchmarks' trivial runtime, a host's own code) builds the same bodies without importing
`openai`, a slow import; the SDK's types are for the type checker only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..conversation import ToolSpec, Turn
from ._arguments import encode_arguments

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageFunctionToolCallParam,
        ChatCompletionMessageParam,
    )


def chat_messages(system: str, turns: Sequence[Turn]) -> list[ChatCompletionMessageParam]:
    """The whole conversation as Chat messages; nothing is left to server-side state."""
    messages: list[ChatCompletionMessageParam] = []
    if system:
        messages.append({"role": "system", "content": system})
    for turn in turns:
        if turn.role == "user":
            messages.append({"role": "user", "content": turn.text})
        elif turn.role == "tool":
            messages.append(
                {"role": "tool", "tool_call_id": turn.tool_call_id or "", "content": turn.text}
            )
        else:
            messages.append(_assistant(turn))
    return messages


def _assistant(turn: Turn) -> ChatCompletionAssistantMessageParam:
    # The API wants `content: null`, not "", beside tool calls.
    message: ChatCompletionAssistantMessageParam = {
        "role": "assistant",
        "content": turn.text if turn.text or not turn.tool_calls else None,
    }
    if turn.tool_calls:
        calls: list[ChatCompletionMessageFunctionToolCallParam] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": encode_arguments(call.arguments)},
            }
            for call in turn.tool_calls
        ]
        message["tool_calls"] = calls
    return message


def chat_tools(tools: Sequence[ToolSpec]) -> list[ChatCompletionFunctionToolParam]:
    """Tools as Chat function tools (non-strict: arguments are parsed by the runtime)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]
