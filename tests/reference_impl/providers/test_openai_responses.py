"""OpenAIResponsesProvider: the whole conversation in `input`, never server-side history."""

from __future__ import annotations

from openai.types.responses import Response

from conformance.wire import ScriptedProvider, text, tool_call
from reference_impl.conversation import Turn
from reference_impl.providers.openai_responses import responses_reply

from ._support import ECHO, SYSTEM, build, sent_body

SERVER_HISTORY = ("previous_response_id", "conversation")


def _call(call_id: str, arguments: str) -> dict[str, str]:
    return {"type": "function_call", "call_id": call_id, "name": "echo", "arguments": arguments}


async def test_history_body(fake: ScriptedProvider, stream: bool) -> None:
    body = await sent_body("openai-responses", fake, stream=stream)
    assert body["instructions"] == SYSTEM
    assert body["store"] is False
    assert body["input"] == [
        {"role": "user", "content": "Echo hi, then a and b."},
        _call("call_1", '{"text": "hi"}'),
        {"type": "function_call_output", "call_id": "call_1", "output": "hi"},
        {"role": "assistant", "content": "Now both."},
        _call("call_2", '{"text": "a"}'),
        _call("call_3", '{"text": "b"}'),
        {"type": "function_call_output", "call_id": "call_2", "output": "a"},
        {"type": "function_call_output", "call_id": "call_3", "output": "echo is tired"},
        {"role": "user", "content": "Thanks. What did you hear?"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "echo",
            "description": "Echo text back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            "strict": False,
        }
    ]


async def test_never_server_side_history(fake: ScriptedProvider, stream: bool) -> None:
    """Three calls of one conversation: each carries it all, none points at a stored one."""
    fake.script([tool_call("echo", {"text": "hi"}), text("It said hi."), text("Bye.")])
    llm = build("openai-responses", fake, stream=stream)
    turns: list[Turn] = [Turn(role="user", text="Echo hi.")]
    first = await llm.complete(model="gpt-test", system=SYSTEM, turns=turns, tools=[ECHO])
    turns += [
        Turn(role="assistant", tool_calls=first.tool_calls),
        Turn(role="tool", text="hi", tool_call_id=first.tool_calls[0].id),
    ]
    second = await llm.complete(model="gpt-test", system=SYSTEM, turns=turns, tools=[ECHO])
    turns += [Turn(role="assistant", text=second.text), Turn(role="user", text="Bye.")]
    await llm.complete(model="gpt-test", system=SYSTEM, turns=turns, tools=[ECHO])
    bodies = [exchange.body for exchange in fake.wire.exchanges]
    assert len(bodies) == 3
    for body in bodies:
        assert isinstance(body, dict)
        assert not set(SERVER_HISTORY) & body.keys()
        assert body["store"] is False
    assert [len(body["input"]) for body in bodies] == [1, 3, 5]
    assert fake.wire.last.turns() == [
        ("user", "Echo hi."),
        ("assistant", ""),
        ("assistant", "It said hi."),
        ("user", "Bye."),
    ]


def test_reply_reads_output_items_in_order() -> None:
    response = Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-test",
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {"type": "output_text", "text": "Calling ", "annotations": []},
                        {"type": "output_text", "text": "now.", "annotations": []},
                    ],
                },
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "nope"},
            ],
        }
    )
    reply = responses_reply(response)
    assert reply.text == "Calling now."
    assert [(c.id, c.arguments) for c in reply.tool_calls] == [("c1", {"_raw": "nope"})]
