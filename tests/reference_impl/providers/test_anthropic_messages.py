"""AnthropicMessagesProvider: tool results folded into user messages, alternation kept."""

from __future__ import annotations

import anthropic
from anthropic.types import Message

from conformance.wire import ScriptedProvider, text
from reference_impl.providers import AnthropicMessagesProvider
from reference_impl.providers.anthropic_messages import anthropic_reply
from tests.conftest import API_KEY

from ._support import ECHO, HISTORY, SYSTEM, build


async def test_history_body(fake: ScriptedProvider, stream: bool) -> None:
    fake.script([text("Heard you.")])
    llm = build("anthropic-messages", fake, stream=stream)
    await llm.complete(model="claude-test", system=SYSTEM, turns=HISTORY, tools=[ECHO])
    body = fake.wire.last.raw
    assert body["system"] == SYSTEM
    assert body["max_tokens"] == 1024
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Echo hi, then a and b."}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_1", "name": "echo", "input": {"text": "hi"}}
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "hi"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Now both."},
                {"type": "tool_use", "id": "call_2", "name": "echo", "input": {"text": "a"}},
                {"type": "tool_use", "id": "call_3", "name": "echo", "input": {"text": "b"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_2", "content": "a"},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_3",
                    "content": "echo is tired",
                    "is_error": True,
                },
                {"type": "text", "text": "Thanks. What did you hear?"},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "echo",
            "description": "Echo text back.",
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
        }
    ]
    assert bool(body.get("stream")) is stream
    errors = [(m.tool_call_id, m.is_error) for m in fake.wire.last.messages if m.role == "tool"]
    assert errors == [("call_1", False), ("call_2", False), ("call_3", True)]


async def test_results_without_a_following_user_turn(fake: ScriptedProvider, stream: bool) -> None:
    fake.script([text("Done.")])
    llm = build("anthropic-messages", fake, stream=stream)
    await llm.complete(model="claude-test", system=SYSTEM, turns=HISTORY[:-1], tools=[ECHO])
    last = fake.wire.last.raw["messages"][-1]
    assert last["role"] == "user"
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result"]
    assert [m.role for m in fake.wire.last.messages][-3:] == ["assistant", "tool", "tool"]


async def test_no_system_no_tools_and_max_tokens_configurable(
    fake: ScriptedProvider, stream: bool
) -> None:
    fake.script([text("Hi.")])
    llm = build("anthropic-messages", fake, stream=stream, max_tokens=77)
    await llm.complete(model="claude-test", system="", turns=HISTORY[:1], tools=[])
    body = fake.wire.last.raw
    assert "system" not in body and "tools" not in body
    assert body["max_tokens"] == 77


async def test_injected_client_streams_by_default(fake: ScriptedProvider) -> None:
    fake.script([text("Through your client.")])
    assert fake.base_url
    client = anthropic.AsyncAnthropic(base_url=fake.base_url, api_key=API_KEY, max_retries=0)
    llm = AnthropicMessagesProvider(client=client)
    reply = await llm.complete(model="claude-test", system="", turns=HISTORY[:1], tools=[])
    assert reply.text == "Through your client."
    assert fake.wire.last.stream is True


def test_reply_skips_blocks_it_does_not_model() -> None:
    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}},
            ],
        }
    )
    reply = anthropic_reply(message)
    assert reply.text == "Let me check."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [("toolu_1", "f", {"x": 1})]
