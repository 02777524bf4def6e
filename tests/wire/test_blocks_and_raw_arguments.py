"""The fake's answers in several text blocks, and calls whose arguments are not JSON,
as the official SDKs read them (what conversation.verbatim scripts)."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import Response

from conformance.wire import Call, ScriptedProvider, Text, ToolCalls, text_blocks
from tests.wire.clients import anthropic_client, ask, openai_client

BLOCKS = ("Booked: a table for ", "two", " on Friday.")
CUT_OFF = '{"text": "table for 2", "note": "by the wind'
ECHO: Any = {"type": "function", "name": "echo", "parameters": {"type": "object"}}


def test_blocks_must_make_the_text() -> None:
    with pytest.raises(ValueError, match="concatenate"):
        Text(text="a b", blocks=["a", "b"])
    assert text_blocks("a", "b") == Text(text="ab", blocks=["a", "b"])


@pytest.mark.parametrize("stream", [False, True])
async def test_messages_answers_in_text_blocks(provider: ScriptedProvider, stream: bool) -> None:
    provider.script([text_blocks(*BLOCKS)])
    client = anthropic_client(provider)
    request: Any = {
        "model": "claude-test",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "Book."}],
    }
    if stream:
        async with client.messages.stream(**request) as events:
            message = await events.get_final_message()
    else:
        message = await client.messages.create(**request)
    assert [b.text for b in message.content if b.type == "text"] == list(BLOCKS)


@pytest.mark.parametrize("stream", [False, True])
async def test_responses_answers_in_output_text_parts(
    provider: ScriptedProvider, stream: bool
) -> None:
    provider.script([text_blocks(*BLOCKS)])
    client = openai_client(provider)
    response: Response
    if stream:
        async with client.responses.stream(model="gpt-test", input="Book.") as events:
            response = await events.get_final_response()
    else:
        response = await client.responses.create(model="gpt-test", input="Book.")
    (item,) = response.output
    assert item.type == "message"
    assert [part.text for part in item.content if part.type == "output_text"] == list(BLOCKS)
    assert response.output_text == "".join(BLOCKS)


async def test_chat_sends_the_blocks_as_one_content_string(provider: ScriptedProvider) -> None:
    provider.script([text_blocks(*BLOCKS)])
    reply = await openai_client(provider).chat.completions.create(
        model="gpt-test", messages=ask("Book.")
    )
    assert reply.choices[0].message.content == "".join(BLOCKS)


@pytest.mark.parametrize("stream", [False, True])
async def test_chat_sends_arguments_that_are_not_json_as_they_are(
    provider: ScriptedProvider, stream: bool
) -> None:
    provider.script([ToolCalls(calls=[Call(name="echo", arguments=CUT_OFF)])])
    client = openai_client(provider)
    messages: Any = [{"role": "user", "content": "Echo."}]
    tools: Any = [{"type": "function", "function": {"name": "echo", "parameters": {}}}]
    if stream:
        chunks = await client.chat.completions.create(
            model="gpt-test", messages=messages, tools=tools, stream=True
        )
        arguments = "".join(
            [
                call.function.arguments or ""
                async for chunk in chunks
                for call in (chunk.choices[0].delta.tool_calls or [] if chunk.choices else [])
                if call.function is not None
            ]
        )
    else:
        reply = await client.chat.completions.create(
            model="gpt-test", messages=messages, tools=tools
        )
        (call,) = reply.choices[0].message.tool_calls or []
        assert call.type == "function"
        arguments = call.function.arguments
    assert arguments == CUT_OFF


async def test_responses_sends_arguments_that_are_not_json_as_they_are(
    provider: ScriptedProvider,
) -> None:
    provider.script([ToolCalls(calls=[Call(name="echo", arguments=CUT_OFF)])])
    response = await openai_client(provider).responses.create(
        model="gpt-test", input="Echo.", tools=[ECHO]
    )
    (call,) = response.output
    assert call.type == "function_call" and call.arguments == CUT_OFF
