"""OpenAI Chat Completions over the official `openai` SDK (async client).

The runtime's neutral turns become Chat messages: the system prompt leads as a `system`
message, assistant tool calls carry JSON-encoded arguments, and every tool result is its
own `tool` message naming the call it answers.
"""

from __future__ import annotations

from collections.abc import Sequence

import openai
from openai.types.chat import (
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
)

from ..conversation import ToolCall, ToolSpec, Turn
from ._base import ModelReply
from ._chat_messages import chat_messages, chat_tools
from ._common import OpenAIBackedProvider, parse_arguments


def chat_reply(message: ChatCompletionMessage) -> ModelReply:
    """Text and function tool calls of the first choice; custom tool calls are not ours."""
    calls = tuple(
        ToolCall(
            id=call.id,
            name=call.function.name,
            arguments=parse_arguments(call.function.arguments),
        )
        for call in message.tool_calls or ()
        if isinstance(call, ChatCompletionMessageFunctionToolCall)
    )
    return ModelReply(text=message.content or "", tool_calls=calls)


class OpenAIChatProvider(OpenAIBackedProvider):
    """A `ModelProvider` for `POST /v1/chat/completions`.

    Streams through `chat.completions.stream` by default, as real runtimes do; the SDK
    accumulates the deltas, so both modes yield the same `ModelReply`.
    """

    async def complete(
        self,
        *,
        model: str,
        system: str,
        turns: Sequence[Turn],
        tools: Sequence[ToolSpec],
    ) -> ModelReply:
        messages = chat_messages(system, turns)
        offered = chat_tools(tools) if tools else openai.omit
        completions = self.client.chat.completions
        if self.stream:
            async with completions.stream(model=model, messages=messages, tools=offered) as s:
                final = await s.get_final_completion()
            return chat_reply(final.choices[0].message)
        completion = await completions.create(model=model, messages=messages, tools=offered)
        return chat_reply(completion.choices[0].message)
