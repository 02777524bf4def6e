"""The real openai SDK against the fake, Chat Completions, over both transports."""

from __future__ import annotations

from typing import Any

from conformance.wire import Dialect, ScriptedProvider, parallel_calls, text, tool_call
from tests.wire.clients import ask, openai_client

ECHO_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Echo text back.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
}


async def test_create_text(provider: ScriptedProvider) -> None:
    provider.script([text("Booked for two on Friday.")])
    client = openai_client(provider)
    completion = await client.chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You take bookings."},
            {"role": "user", "content": "Book me a table for two on Friday."},
        ],
    )
    assert completion.choices[0].message.content == "Booked for two on Friday."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.completion_tokens > 0
    request = provider.wire.last
    assert request.dialect is Dialect.OPENAI_CHAT
    assert request.model == "gpt-test"
    assert request.system == "You take bookings."
    assert request.user_texts() == ["Book me a table for two on Friday."]
    assert request.stream is False
    exchange = provider.wire.exchanges[-1]
    assert (exchange.method, exchange.path, exchange.status) == (
        "POST",
        "/v1/chat/completions",
        200,
    )
    assert exchange.step is not None and exchange.step.kind == "text"


async def test_stream_text_with_usage(provider: ScriptedProvider) -> None:
    answer = "A longer answer that the fake has to split into several stream deltas."
    provider.script([text(answer)])
    client = openai_client(provider)
    stream = await client.chat.completions.create(
        model="gpt-test",
        messages=ask("Talk to me."),
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces, usage = [], None
    async for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        usage = chunk.usage or usage
    assert "".join(pieces) == answer
    assert len(pieces) > 1
    assert usage is not None and usage.total_tokens > 0
    assert provider.wire.last.stream is True
    assert provider.wire.last.include_usage is True


async def test_tool_call_round_trip(provider: ScriptedProvider) -> None:
    provider.script([tool_call("echo", {"text": "hi"}), text("It said hi.")])
    client = openai_client(provider)
    messages: list[Any] = [{"role": "user", "content": "Echo hi."}]
    first = await client.chat.completions.create(
        model="gpt-test", messages=messages, tools=[ECHO_TOOL]
    )
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls is not None and len(message.tool_calls) == 1
    call = message.tool_calls[0]
    assert call.type == "function"
    assert call.function.name == "echo"
    assert call.function.arguments == '{"text":"hi"}'
    messages += [
        message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "hi"},
    ]
    second = await client.chat.completions.create(
        model="gpt-test", messages=messages, tools=[ECHO_TOOL]
    )
    assert second.choices[0].message.content == "It said hi."
    first_request, second_request = provider.wire.requests
    assert [t.name for t in first_request.tools] == ["echo"]
    assert first_request.tools[0].parameters["type"] == "object"
    assistant, result = second_request.messages[1:]
    assert assistant.tool_calls[0].id == call.id
    assert assistant.tool_calls[0].arguments == {"text": "hi"}
    assert (result.role, result.tool_call_id, result.text) == ("tool", call.id, "hi")


async def test_parallel_tool_calls_streamed(provider: ScriptedProvider) -> None:
    provider.script([parallel_calls(("echo", {"text": "a"}), ("echo", {"text": "b"}))])
    client = openai_client(provider)
    async with client.chat.completions.stream(
        model="gpt-test", messages=ask("Both."), tools=[ECHO_TOOL]
    ) as stream:
        final = await stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert calls is not None
    assert [c.function.arguments for c in calls] == ['{"text":"a"}', '{"text":"b"}']
    assert len({c.id for c in calls}) == 2
    assert final.choices[0].finish_reason == "tool_calls"
