"""OpenAIChatProvider: the exact Chat Completions body, and how replies are read."""

from __future__ import annotations

import openai
from openai.types.chat import ChatCompletionMessage

from conformance.wire import ScriptedProvider, text
from reference_impl.providers import OpenAIChatProvider
from reference_impl.providers.openai_chat import chat_reply
from tests.conftest import API_KEY

from ._support import ECHO, HISTORY, SYSTEM, build


async def test_history_body(fake: ScriptedProvider, stream: bool) -> None:
    fake.script([text("Heard you.")])
    llm = build("openai-chat", fake, stream=stream)
    await llm.complete(model="gpt-test", system=SYSTEM, turns=HISTORY, tools=[ECHO])
    body = fake.wire.last.raw
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Echo hi, then a and b."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"text": "hi"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
        {
            "role": "assistant",
            "content": "Now both.",
            "tool_calls": [
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"text": "a"}'},
                },
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"text": "b"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": "a"},
        {"role": "tool", "tool_call_id": "call_3", "content": "echo is tired"},
        {"role": "user", "content": "Thanks. What did you hear?"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": "Echo text back.",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
        }
    ]
    assert bool(body.get("stream")) is stream


async def test_no_system_message_and_no_tools_when_empty(
    fake: ScriptedProvider, stream: bool
) -> None:
    fake.script([text("Hi.")])
    llm = build("openai-chat", fake, stream=stream)
    await llm.complete(model="gpt-test", system="", turns=HISTORY[:1], tools=[])
    body = fake.wire.last.raw
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert "tools" not in body


async def test_injected_client_streams_by_default(fake: ScriptedProvider) -> None:
    fake.script([text("Through your client.")])
    assert fake.base_url
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key=API_KEY, max_retries=0)
    llm = OpenAIChatProvider(client=client)
    reply = await llm.complete(model="gpt-test", system="", turns=HISTORY[:1], tools=[])
    assert reply.text == "Through your client."
    assert llm.client is client
    assert fake.wire.last.stream is True


def test_arguments_that_are_not_a_json_object_are_kept_raw() -> None:
    message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}},
                {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "[1]"}},
                {"id": "c3", "type": "function", "function": {"name": "f", "arguments": ""}},
            ],
        }
    )
    reply = chat_reply(message)
    assert reply.text == ""
    assert [c.arguments for c in reply.tool_calls] == [{"_raw": "{oops"}, {"_raw": "[1]"}, {}]
