"""OpenAI Responses over the official `openai` SDK (async client).

The whole conversation goes in `input` on every request, with `store=False`: the runtime
never leans on `previous_response_id` or a server-side `conversation`, because history the
provider keeps is history nobody can see on the wire, and a checkpoint must continue
through any provider.
"""

from __future__ import annotations

from collections.abc import Sequence

import openai
from openai.types.responses import (
    FunctionToolParam,
    Response,
    ResponseFunctionToolCall,
    ResponseInputParam,
    ResponseOutputMessage,
)

from ..conversation import ToolCall, ToolSpec, Turn
from ._base import ModelReply
from ._common import OpenAIBackedProvider, encode_arguments, parse_arguments


def responses_input(turns: Sequence[Turn]) -> ResponseInputParam:
    """Turns as input items: messages, `function_call`s and `function_call_output`s."""
    items: ResponseInputParam = []
    for turn in turns:
        if turn.role == "user":
            items.append({"role": "user", "content": turn.text})
        elif turn.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": turn.tool_call_id or "",
                    "output": turn.text,
                }
            )
        else:
            # An assistant turn is its message (if it said anything) then its calls,
            # which is how the API itself lays out one response's output.
            if turn.text or not turn.tool_calls:
                items.append({"role": "assistant", "content": turn.text})
            items.extend(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": encode_arguments(call.arguments),
                }
                for call in turn.tool_calls
            )
    return items


def responses_tools(tools: Sequence[ToolSpec]) -> list[FunctionToolParam]:
    """Tools as non-strict function tools: strict mode would rewrite the schemas we offer."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
        for tool in tools
    ]


def responses_reply(response: Response) -> ModelReply:
    """Output text (joined as `output_text` joins it) and function calls, in output order."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in response.output:
        if isinstance(item, ResponseOutputMessage):
            texts.extend(part.text for part in item.content if part.type == "output_text")
        elif isinstance(item, ResponseFunctionToolCall):
            calls.append(
                ToolCall(id=item.call_id, name=item.name, arguments=parse_arguments(item.arguments))
            )
    return ModelReply(text="".join(texts), tool_calls=tuple(calls))


class OpenAIResponsesProvider(OpenAIBackedProvider):
    """A `ModelProvider` for `POST /v1/responses`.

    Streams through `responses.stream` by default; `get_final_response()` assembles the
    same `Response` the non-streaming call returns.
    """

    async def complete(
        self,
        *,
        model: str,
        system: str,
        turns: Sequence[Turn],
        tools: Sequence[ToolSpec],
    ) -> ModelReply:
        items = responses_input(turns)
        instructions = system or openai.omit
        offered = responses_tools(tools) if tools else openai.omit
        responses = self.client.responses
        if self.stream:
            async with responses.stream(
                model=model, instructions=instructions, input=items, tools=offered, store=False
            ) as stream:
                final = await stream.get_final_response()
            return responses_reply(final)
        response = await responses.create(
            model=model, instructions=instructions, input=items, tools=offered, store=False
        )
        return responses_reply(response)
