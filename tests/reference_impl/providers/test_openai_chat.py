"""OpenAIChatProvider: the exact Chat Completions body, and how replies are read."""

from __future__ import annotations

from openai.types.chat import ChatCompletionMessage

from conformance.wire import ScriptedProvider
from reference_impl.providers.openai_chat import chat_reply

from ._support import SYSTEM, sent_body


def _echo_call(call_id: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": "echo", "arguments": arguments}}


async def test_history_body(fake: ScriptedProvider, stream: bool) -> None:
    body = await sent_body("openai-chat", fake, stream=stream)
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Echo hi, then a and b."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_echo_call("call_1", '{"text": "hi"}')],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hi"},
        {
            "role": "assistant",
            "content": "Now both.",
            "tool_calls": [
                _echo_call("call_2", '{"text": "a"}'),
                _echo_call("call_3", '{"text": "b"}'),
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
