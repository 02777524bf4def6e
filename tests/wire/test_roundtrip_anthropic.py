"""The real anthropic SDK against the fake, Messages API, over both transports."""

from __future__ import annotations

from typing import Any

from conformance.wire import Dialect, ScriptedProvider, parallel_calls, text, tool_call
from tests.wire.clients import anthropic_client, ask

ECHO_TOOL: Any = {
    "name": "echo",
    "description": "Echo text back.",
    "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
}


async def test_create_text(provider: ScriptedProvider) -> None:
    provider.script([text("Booked.")])
    client = anthropic_client(provider)
    message = await client.messages.create(
        model="claude-test",
        max_tokens=100,
        system="You take bookings.",
        messages=ask("Book a table."),
    )
    assert message.content[0].type == "text" and message.content[0].text == "Booked."
    assert message.stop_reason == "end_turn"
    request = provider.wire.last
    assert request.dialect is Dialect.ANTHROPIC_MESSAGES
    assert request.system == "You take bookings."
    assert request.user_texts() == ["Book a table."]
    assert provider.wire.exchanges[-1].path.endswith("/v1/messages")


async def test_stream_text(provider: ScriptedProvider) -> None:
    answer = "Streamed through content_block_delta events, more than one of them."
    provider.script([text(answer)])
    client = anthropic_client(provider)
    async with client.messages.stream(
        model="claude-test", max_tokens=100, messages=ask("Talk.")
    ) as stream:
        pieces = [piece async for piece in stream.text_stream]
        final = await stream.get_final_message()
    assert "".join(pieces) == answer and len(pieces) > 1
    assert final.usage.output_tokens > 0
    assert provider.wire.last.stream is True


async def test_tool_use_round_trip(provider: ScriptedProvider) -> None:
    provider.script([tool_call("echo", {"text": "hi"}), text("It said hi.")])
    client = anthropic_client(provider)
    messages: list[Any] = [{"role": "user", "content": "Echo hi."}]
    first = await client.messages.create(
        model="claude-test", max_tokens=100, messages=messages, tools=[ECHO_TOOL]
    )
    assert first.stop_reason == "tool_use"
    (use,) = [block for block in first.content if block.type == "tool_use"]
    assert (use.name, use.input) == ("echo", {"text": "hi"})
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "hi"}],
        },
    ]
    second = await client.messages.create(
        model="claude-test", max_tokens=100, messages=messages, tools=[ECHO_TOOL]
    )
    assert second.content[0].type == "text" and second.content[0].text == "It said hi."
    request = provider.wire.last
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"]
    assert request.messages[2].tool_call_id == use.id
    assert request.tools[0].parameters["type"] == "object"


async def test_parallel_tool_use_streamed(provider: ScriptedProvider) -> None:
    provider.script([parallel_calls(("echo", {"text": "a"}), ("echo", {"text": "b"}))])
    client = anthropic_client(provider)
    async with client.messages.stream(
        model="claude-test",
        max_tokens=100,
        messages=ask("Both."),
        tools=[ECHO_TOOL],
    ) as stream:
        final = await stream.get_final_message()
    uses = [block for block in final.content if block.type == "tool_use"]
    assert [u.input for u in uses] == [{"text": "a"}, {"text": "b"}]
    assert final.stop_reason == "tool_use"
