"""AnthropicMessagesProvider: tool results folded into user messages, alternation kept."""

from __future__ import annotations

from anthropic.types import Message

from conformance.wire import ScriptedProvider
from reference_impl.providers.anthropic_messages import anthropic_reply

from ._support import HISTORY, SYSTEM, sent_body


async def test_history_body(fake: ScriptedProvider, stream: bool) -> None:
    body = await sent_body("anthropic-messages", fake, stream=stream)
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
    errors = [(m.tool_call_id, m.is_error) for m in fake.wire.last.messages if m.role == "tool"]
    assert errors == [("call_1", False), ("call_2", False), ("call_3", True)]


async def test_results_without_a_following_user_turn(fake: ScriptedProvider, stream: bool) -> None:
    body = await sent_body("anthropic-messages", fake, stream=stream, turns=HISTORY[:-1])
    last = body["messages"][-1]
    assert last["role"] == "user"
    assert [b["type"] for b in last["content"]] == ["tool_result", "tool_result"]
    assert [m.role for m in fake.wire.last.messages][-3:] == ["assistant", "tool", "tool"]


async def test_max_tokens_is_configurable(fake: ScriptedProvider, stream: bool) -> None:
    body = await sent_body("anthropic-messages", fake, stream=stream, max_tokens=77)
    assert body["max_tokens"] == 77


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
