"""The real openai SDK against the fake, Responses API, over both transports."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from conformance.wire import Dialect, ScriptedProvider, parallel_calls, text, tool_call
from tests.wire.clients import openai_client

ECHO_TOOL: Any = {
    "type": "function",
    "name": "echo",
    "description": "Echo text back.",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
    "strict": False,
}


async def test_create_text(provider: ScriptedProvider) -> None:
    provider.script([text("Booked.")])
    client = openai_client(provider)
    response = await client.responses.create(
        model="gpt-test", instructions="You take bookings.", input="Book a table."
    )
    assert response.output_text == "Booked."
    request = provider.wire.last
    assert request.dialect is Dialect.OPENAI_RESPONSES
    assert request.system == "You take bookings."
    assert request.user_texts() == ["Book a table."]


async def test_stream_text(provider: ScriptedProvider) -> None:
    answer = "Streamed through response.output_text.delta events, several of them."
    provider.script([text(answer)])
    client = openai_client(provider)
    async with client.responses.stream(model="gpt-test", input="Talk.") as stream:
        deltas = [e.delta async for e in stream if e.type == "response.output_text.delta"]
        final = await stream.get_final_response()
    assert "".join(deltas) == answer
    assert final.output_text == answer
    assert provider.wire.last.stream is True


async def test_tool_calls_and_results(provider: ScriptedProvider) -> None:
    provider.script(
        [parallel_calls(("echo", {"text": "a"}), ("echo", {"text": "b"})), text("Done.")]
    )
    client = openai_client(provider)
    first = await client.responses.create(model="gpt-test", input="Both.", tools=[ECHO_TOOL])
    calls = [item for item in first.output if item.type == "function_call"]
    assert [c.arguments for c in calls] == ['{"text":"a"}', '{"text":"b"}']
    follow: list[Any] = [{"role": "user", "content": "Both."}]
    follow += [c.model_dump(exclude_none=True) for c in calls]
    follow += [
        {"type": "function_call_output", "call_id": c.call_id, "output": "ok"} for c in calls
    ]
    second = await client.responses.create(model="gpt-test", input=follow, tools=[ECHO_TOOL])
    assert second.output_text == "Done."
    request = provider.wire.last
    assistant = request.messages[1]
    assert [c.id for c in assistant.tool_calls] == [c.call_id for c in calls]
    assert [m.role for m in request.messages] == ["user", "assistant", "tool", "tool"]


async def test_streamed_tool_call(provider: ScriptedProvider) -> None:
    provider.script([tool_call("echo", {"text": "x"})])
    client = openai_client(provider)
    async with client.responses.stream(model="gpt-test", input="Echo.", tools=[ECHO_TOOL]) as s:
        final = await s.get_final_response()
    (call,) = [item for item in final.output if item.type == "function_call"]
    assert (call.name, call.arguments) == ("echo", '{"text":"x"}')


@pytest.mark.parametrize(
    ("field", "value"), [("previous_response_id", "resp_1"), ("conversation", "conv_42")]
)
async def test_server_side_history_is_refused(field: str, value: str) -> None:
    from conformance.wire import InProcess

    provider = ScriptedProvider([text("never sent")])
    with InProcess(provider):
        client = openai_client(provider)
        with pytest.raises(openai.BadRequestError, match="invisible on the wire"):
            await client.responses.create(model="gpt-test", input="hi", **{field: value})
    kinds = [f.kind for f in provider.findings]
    assert kinds == ["malformed", "unused_steps"]
    assert field in provider.findings[0].message
