"""The Responses dialect against the real openai SDK, through an httpx2 mock transport.

Every rendering test goes through the SDK's own parsers and stream accumulator, so a
shape the SDK would reject (or silently mis-read) fails here rather than in a runtime.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import openai
import pydantic
import pytest
from openai.types.responses import (
    Response,
    ResponseErrorEvent,
    ResponseIncompleteEvent,
    ResponseStreamEvent,
)

from conformance.wire import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from conformance.wire.dialects import OPENAI_CHAT, DialectCodec, SseEvent, WireFormatError
from conformance.wire.dialects.openai_responses import CODEC
from tests.wire.dialects.codec_harness import (
    IDS,
    OPENAI_ERROR_CASES,
    CodecServer,
    openai_client,
    payloads,
)

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


class FakeServer(CodecServer):
    codec = CODEC

    def client(self) -> openai.AsyncOpenAI:
        return openai_client(self.handler)


def parse(body: dict[str, Any]) -> RequestIR:
    return CODEC.parse_request(body)


def wire_events(reply: AssistantReply, **request: Any) -> list[dict[str, Any]]:
    body = {"model": "gpt-test", "input": "hi", "stream": True, **request}
    return payloads(CODEC.render_sse(reply, parse(body), IDS))


# --- parsing -------------------------------------------------------------------------


async def test_parse_multi_turn_request_built_by_the_sdk() -> None:
    server = FakeServer()
    conversation: list[Any] = [
        {"role": "developer", "content": "Use tools when useful."},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Weather in Paris"},
                {"type": "input_text", "text": "and Rome?"},
                {"type": "input_image", "image_url": "https://example.test/map.png"},
            ],
        },
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
        },
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        },
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "get_weather",
            "arguments": '{"city":"Rome"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": "18C"},
        {
            "type": "function_call_output",
            "call_id": "call_b",
            "output": [
                {"type": "input_text", "text": "21C"},
                {"type": "input_image", "image_url": "https://example.test/sun.png"},
            ],
        },
        {"role": "system", "content": "Answer in French."},
        {"role": "user", "content": "Thanks"},
    ]
    await server.client().responses.create(
        model="gpt-test",
        instructions="Be brief.",
        input=conversation,
        tools=[WEATHER_TOOL, {"type": "web_search"}],  # type: ignore[list-item]
        temperature=0.2,
    )
    (got,) = server.requests
    assert got == RequestIR(
        dialect=Dialect.OPENAI_RESPONSES,
        model="gpt-test",
        system="Be brief.\n\nUse tools when useful.\n\nAnswer in French.",
        messages=(
            Message(
                role="user", text="Weather in Paris\nand Rome?", omitted_parts=("input_image",)
            ),
            Message(
                role="assistant",
                text="Checking.",
                tool_calls=(
                    ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris"}),
                    ToolCall(id="call_b", name="get_weather", arguments={"city": "Rome"}),
                ),
                omitted_parts=("reasoning",),
            ),
            Message(role="tool", text="18C", tool_call_id="call_a"),
            Message(role="tool", text="21C", tool_call_id="call_b", omitted_parts=("input_image",)),
            Message(role="user", text="Thanks"),
        ),
        tools=(
            ToolSpec(
                name="get_weather",
                description="Current weather for a city.",
                parameters=WEATHER_TOOL["parameters"],
            ),
        ),
        raw=server.bodies[0],
    )
    assert got.raw == server.bodies[0]
    assert CODEC.check_roles(got) == []


def test_parse_string_input_is_one_user_message() -> None:
    got = parse({"model": "m", "input": "hello", "stream": True})
    assert got.messages == (Message(role="user", text="hello"),)
    assert got.system == ""
    assert got.stream is True
    assert got.include_usage is True


def test_function_calls_on_their_own_form_one_assistant_turn() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "input": [
            {"role": "user", "content": "go"},
            {"type": "reasoning", "id": "rs", "summary": []},
            {"type": "function_call", "call_id": "c1", "name": "a", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "b", "arguments": "not json"},
            {"type": "function_call_output", "call_id": "c1", "output": "1"},
            {"type": "function_call_output", "call_id": "c2", "output": "2"},
            {"type": "function_call", "call_id": "c3", "name": "a", "arguments": "[1]"},
        ],
    }
    snapshot = copy.deepcopy(body)
    got = parse(body)
    assert body == snapshot
    assert got.raw == body
    assert [m.role for m in got.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    first = got.messages[1]
    assert first.text == ""
    assert first.omitted_parts == ("reasoning",)
    assert first.tool_calls == (
        ToolCall(id="c1", name="a", arguments={}),
        ToolCall(id="c2", name="b", arguments="not json"),
    )
    assert got.messages[4].tool_calls == (ToolCall(id="c3", name="a", arguments=[1]),)


def test_trailing_reasoning_without_an_assistant_turn_is_dropped() -> None:
    got = parse(
        {
            "model": "m",
            "input": [
                {"role": "user", "content": "go"},
                {"type": "reasoning", "id": "rs", "summary": []},
            ],
        }
    )
    assert got.messages == (Message(role="user", text="go"),)


def test_unmodelled_fields_and_null_history_are_accepted() -> None:
    got = parse(
        {
            "model": "m",
            "input": "hi",
            "previous_response_id": None,
            "conversation": None,
            "temperature": "weird",
            "metadata": {"k": "v"},
            "store": False,
            "reasoning": {"effort": "low"},
            "brand_new_field": [1, 2],
            "tools": [{"type": "file_search", "vector_store_ids": ["vs"]}],
        }
    )
    assert got.messages == (Message(role="user", text="hi"),)
    assert got.tools == ()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (["not", "an", "object"], ""),
        ({"input": "hi"}, "model"),
        ({"model": 3, "input": "hi"}, "model"),
        ({"model": "m"}, "input"),
        ({"model": "m", "input": {"role": "user"}}, "input"),
        ({"model": "m", "input": "hi", "stream": "yes"}, "stream"),
        ({"model": "m", "input": "hi", "instructions": ["x"]}, "instructions"),
        ({"model": "m", "input": ["hi"]}, "input.0"),
        ({"model": "m", "input": [{"role": "tool", "content": "x"}]}, "input.0.role"),
        ({"model": "m", "input": [{"type": "message", "content": "x"}]}, "input.0.role"),
        ({"model": "m", "input": [{"role": "user"}]}, "input.0.content"),
        ({"model": "m", "input": [{"role": "user", "content": 5}]}, "input.0.content"),
        (
            {"model": "m", "input": [{"role": "user", "content": [{"type": "input_text"}]}]},
            "input.0.content.0.text",
        ),
        ({"model": "m", "input": [{"type": 7}]}, "input.0.type"),
        ({"model": "m", "input": [{"type": "item_reference", "id": "msg_1"}]}, "input.0.type"),
        (
            {
                "model": "m",
                "input": [
                    {"role": "user", "content": "x"},
                    {"type": "function_call", "name": "f", "arguments": "{}"},
                ],
            },
            "input.1.call_id",
        ),
        (
            {"model": "m", "input": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]},
            "input.0.name",
        ),
        (
            {
                "model": "m",
                "input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}],
            },
            "input.0.arguments",
        ),
        (
            {"model": "m", "input": [{"type": "function_call_output", "output": "x"}]},
            "input.0.call_id",
        ),
        (
            {"model": "m", "input": [{"type": "function_call_output", "call_id": "c"}]},
            "input.0.output",
        ),
        ({"model": "m", "input": "hi", "tools": {"type": "function"}}, "tools"),
        ({"model": "m", "input": "hi", "tools": [{"name": "f"}]}, "tools.0.type"),
        ({"model": "m", "input": "hi", "tools": [{"type": "function"}]}, "tools.0.name"),
        (
            {
                "model": "m",
                "input": "hi",
                "tools": [{"type": "function", "name": "f", "parameters": []}],
            },
            "tools.0.parameters",
        ),
    ],
)
def test_malformed_bodies_name_the_field(body: Any, field: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        parse(body)
    assert caught.value.field == field
    assert caught.value.problem


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("previous_response_id", "resp_123"),
        ("conversation", "conv_123"),
        ("conversation", {"id": "c"}),
    ],
)
def test_server_side_history_is_refused(field: str, value: Any) -> None:
    with pytest.raises(WireFormatError) as caught:
        parse({"model": "m", "input": "next", field: value})
    assert caught.value.field == field
    assert "invisible on the wire" in caught.value.problem
    assert "full conversation" in caught.value.problem


# --- check_roles ---------------------------------------------------------------------


def test_check_roles_flags_part_types_that_do_not_belong_to_the_role() -> None:
    request = parse(
        {
            "model": "m",
            "input": [
                {"role": "user", "content": [{"type": "output_text", "text": "echo"}]},
                {"role": "assistant", "content": [{"type": "input_text", "text": "hm"}]},
                {"role": "developer", "content": [{"type": "refusal", "refusal": "no"}]},
                {"role": "assistant", "content": [{"type": "output_text", "text": "fine"}]},
                {"role": "user", "content": [{"type": "input_file", "file_id": "f"}]},
            ],
        }
    )
    problems = CODEC.check_roles(request)
    assert len(problems) == 3
    assert problems[0].startswith("input.0: user message carries a output_text part")
    assert problems[1].startswith("input.1: assistant message carries a input_text part")
    assert problems[2].startswith("input.2: developer message carries a refusal part")


def test_check_roles_flags_a_chat_style_tool_role() -> None:
    raw = {"model": "m", "input": [{"role": "tool", "tool_call_id": "c", "content": "1"}]}
    request = RequestIR(dialect=Dialect.OPENAI_RESPONSES, model="m", raw=raw)
    (problem,) = CODEC.check_roles(request)
    assert problem.startswith("input.0: role 'tool'")
    assert "function_call_output" in problem


def test_check_roles_accepts_string_input_and_well_formed_items() -> None:
    assert CODEC.check_roles(parse({"model": "m", "input": "hi"})) == []
    request = parse(
        {
            "model": "m",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "q"}]},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "a", "annotations": []},
                        {"type": "refusal", "refusal": "no"},
                    ],
                },
                {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c", "output": "r"},
            ],
        }
    )
    assert request.messages[1].text == "a\nno"
    assert CODEC.check_roles(request) == []


# --- JSON replies --------------------------------------------------------------------


async def test_text_reply_json() -> None:
    reply = AssistantReply(text="Hello there.", usage=Usage(input_tokens=11, output_tokens=3))
    server = FakeServer(reply)
    response = await server.client().responses.create(
        model="gpt-test",
        input="hi",
        instructions="sys",
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    )
    assert response.id == "resp_turnlaw_000007"
    assert response.object == "response"
    assert response.status == "completed"
    assert response.created_at == IDS.created
    assert response.model == "gpt-test"
    assert response.instructions == "sys"
    assert response.output_text == "Hello there."
    (item,) = response.output
    assert item.type == "message"
    assert item.id == "msg_turnlaw_000007"
    assert item.content[0].type == "output_text"
    assert item.content[0].annotations == []
    assert response.tools[0].type == "function"
    assert response.tools[0].name == "get_weather"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (11, 3)
    assert response.usage.total_tokens == 14
    assert response.usage.input_tokens_details.cached_tokens == 0
    assert response.usage.output_tokens_details.reasoning_tokens == 0
    assert response.incomplete_details is None


async def test_one_tool_call_json_keeps_given_id_and_drops_empty_text() -> None:
    reply = AssistantReply(
        tool_calls=(ToolCall(id="call_given", name="get_weather", arguments={"city": "Oslo"}),),
        stop_reason="tool_use",
    )
    response = await FakeServer(reply).client().responses.create(model="gpt-test", input="hi")
    assert response.status == "completed"
    assert response.output_text == ""
    (call,) = response.output
    assert call.type == "function_call"
    assert call.call_id == "call_given"
    assert call.id == "fc_turnlaw_0007_0"
    assert call.name == "get_weather"
    assert call.arguments == '{"city":"Oslo"}'
    assert call.status == "completed"


async def test_text_and_two_parallel_tool_calls_json() -> None:
    reply = AssistantReply(
        text="Looking.",
        tool_calls=(
            ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),
            ToolCall(id="", name="get_time", arguments={}),
        ),
        stop_reason="tool_use",
    )
    response = await FakeServer(reply).client().responses.create(model="gpt-test", input="hi")
    assert [item.type for item in response.output] == ["message", "function_call", "function_call"]
    calls = response.output[1:]
    assert [c.call_id for c in calls] == ["call_0007_0", "call_0007_1"]  # type: ignore[union-attr]
    assert [c.arguments for c in calls] == ['{"city":"Paris"}', "{}"]  # type: ignore[union-attr]
    assert response.output_text == "Looking."


async def test_max_tokens_is_an_incomplete_response() -> None:
    reply = AssistantReply(text="Cut sh", stop_reason="max_tokens")
    response = await FakeServer(reply).client().responses.create(model="gpt-test", input="hi")
    assert response.status == "incomplete"
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.output[0].status == "incomplete"  # type: ignore[union-attr]
    assert response.output_text == "Cut sh"


# --- SSE replies ---------------------------------------------------------------------


async def test_text_reply_sse_raw_iteration() -> None:
    text = "x" * 70 + " end"
    reply = AssistantReply(text=text, usage=Usage(input_tokens=5, output_tokens=9))
    stream = (
        await FakeServer(reply).client().responses.create(model="gpt-test", input="hi", stream=True)
    )
    events = [event async for event in stream]
    assert [e.type for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert [len(d) for d in deltas] == [32, 32, 10]
    assert "".join(deltas) == text
    final = events[-1]
    assert final.type == "response.completed"
    assert final.response.output_text == text
    assert final.response.usage is not None
    assert final.response.usage.total_tokens == 14
    assert events[0].type == "response.created"
    assert events[0].response.status == "in_progress"


@pytest.mark.parametrize(
    "reply",
    [
        AssistantReply(text="hi"),
        AssistantReply(text="", tool_calls=(ToolCall(id="", name="f", arguments={"a": 1}),)),
        AssistantReply(text="a", tool_calls=(ToolCall(id="c", name="f"),), stop_reason="tool_use"),
        AssistantReply(text="cut", stop_reason="max_tokens"),
    ],
)
def test_renderings_pass_strict_sdk_model_validation(reply: AssistantReply) -> None:
    """The SDK parses leniently (construct); strict validation catches a missing field."""
    body = {
        "model": "m",
        "input": "x",
        "stream": True,
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "temperature": 0.5,
        "metadata": {"k": "v"},
    }
    request = parse(body)
    Response.model_validate(CODEC.render_json(reply, request, IDS))
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
    for event in CODEC.render_sse(reply, request, IDS):
        adapter.validate_python(json.loads(event.data))


def test_sse_event_names_match_payload_types() -> None:
    reply = AssistantReply(text="hi", tool_calls=(ToolCall(id="", name="f", arguments={"a": 1}),))
    request = parse({"model": "m", "input": "x", "stream": True})
    for event in CODEC.render_sse(reply, request, IDS):
        assert event.event == json.loads(event.data)["type"]


async def test_stream_helper_final_response_with_text() -> None:
    reply = AssistantReply(
        text="Streaming helper works.", usage=Usage(input_tokens=2, output_tokens=4)
    )
    client = FakeServer(reply).client()
    async with client.responses.stream(model="gpt-test", input="hi") as stream:
        snapshots = [e.snapshot async for e in stream if e.type == "response.output_text.delta"]
        final = await stream.get_final_response()
    assert snapshots[-1] == "Streaming helper works."
    assert final.output_text == "Streaming helper works."
    assert final.id == "resp_turnlaw_000007"
    assert final.usage is not None
    assert final.usage.output_tokens == 4


async def test_stream_helper_two_parallel_tool_calls() -> None:
    reply = AssistantReply(
        tool_calls=(
            ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),
            ToolCall(id="call_kept", name="get_weather", arguments={"city": "Rome"}),
        ),
        stop_reason="tool_use",
    )
    client = FakeServer(reply).client()
    async with client.responses.stream(
        model="gpt-test",
        input="hi",
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
    ) as stream:
        events = [e async for e in stream]
        final = await stream.get_final_response()
    arg_deltas = [e for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(arg_deltas) == 4  # at most two per call
    assert arg_deltas[1].snapshot == '{"city":"Paris"}'
    assert all(e.type != "response.output_text.delta" for e in events)
    calls = final.output
    assert [c.type for c in calls] == ["function_call", "function_call"]
    assert [c.call_id for c in calls] == ["call_0007_0", "call_kept"]  # type: ignore[union-attr]
    assert [c.id for c in calls] == ["fc_turnlaw_0007_0", "fc_turnlaw_0007_1"]  # type: ignore[union-attr]
    # strict tool offered through the helper: the SDK parses the arguments itself
    assert [c.parsed_arguments for c in calls] == [  # type: ignore[union-attr]
        {"city": "Paris"},
        {"city": "Rome"},
    ]
    assert final.output_text == ""


def test_sse_tool_call_argument_deltas_split_in_two() -> None:
    reply = AssistantReply(tool_calls=(ToolCall(id="c", name="f", arguments={"k": "abcdef"}),))
    events = wire_events(reply)
    deltas = [e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert deltas == ['{"k":"a', 'bcdef"}']
    (done,) = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert done["arguments"] == '{"k":"abcdef"}'


def test_sse_empty_text_without_calls_keeps_an_empty_message() -> None:
    events = wire_events(AssistantReply(text=""))
    kinds = [e["type"] for e in events]
    assert "response.output_text.delta" not in kinds
    assert kinds.count("response.output_item.added") == 1
    assert events[-1]["response"]["output"][0]["content"][0]["text"] == ""


async def test_sse_max_tokens_ends_with_response_incomplete() -> None:
    reply = AssistantReply(text="Cut", stop_reason="max_tokens")
    client = FakeServer(reply).client()
    stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
    events = [event async for event in stream]
    final = events[-1]
    assert isinstance(final, ResponseIncompleteEvent)
    assert final.response.status == "incomplete"
    assert final.response.output_text == "Cut"
    # As with the live API, the SDK's stream helper only finalizes on response.completed.
    async with client.responses.stream(model="gpt-test", input="hi") as helper:
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            await helper.get_final_response()


# --- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "exc", "kind"), OPENAI_ERROR_CASES)
async def test_error_body_raises_the_sdk_exception(
    status: int, exc: type[openai.APIStatusError], kind: str
) -> None:
    client = FakeServer(error=(status, "boom here")).client()
    with pytest.raises(exc) as caught:
        await client.responses.create(model="gpt-test", input="hi")
    assert caught.value.status_code == status
    assert "boom here" in caught.value.message
    assert caught.value.type == kind
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["message"] == "boom here"


def _partial_stream_then_error() -> list[SseEvent]:
    request = parse({"model": "gpt-test", "input": "hi", "stream": True})
    started = CODEC.render_sse(AssistantReply(text="partial answer"), request, IDS)[:5]
    return [*started, *CODEC.render_stream_error("upstream exploded", IDS)]


async def test_mid_stream_error_raises_in_raw_iteration() -> None:
    client = FakeServer(events=_partial_stream_then_error()).client()
    stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
    seen = [(await stream.__anext__()).type for _ in range(5)]
    assert seen[-1] == "response.output_text.delta"
    with pytest.raises(openai.APIError, match="upstream exploded") as caught:
        await stream.__anext__()
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["code"] == "server_error"


async def test_mid_stream_error_raises_in_stream_helper() -> None:
    client = FakeServer(events=_partial_stream_then_error()).client()
    async with client.responses.stream(model="gpt-test", input="hi") as stream:
        with pytest.raises(openai.APIError, match="upstream exploded"):
            await stream.get_final_response()


def test_stream_error_event_keeps_the_documented_flat_fields() -> None:
    (event,) = CODEC.render_stream_error("bad", IDS)
    payload = json.loads(event.data)
    assert event.event == "error"
    assert ResponseErrorEvent.model_validate(payload).message == "bad"
    assert payload["error"]["message"] == "bad"


async def test_sdk_does_not_raise_on_a_flat_only_error_event() -> None:
    """Why the nested `error` object is there: the SDK yields a flat event silently."""
    flat = SseEvent.of(
        {"type": "error", "sequence_number": 0, "code": "x", "message": "m", "param": None},
        event="error",
    )
    client = FakeServer(events=[flat]).client()
    stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
    events = [event async for event in stream]
    assert isinstance(events[0], ResponseErrorEvent)


@pytest.mark.parametrize("codec", [OPENAI_CHAT, CODEC], ids=["chat", "responses"])
def test_both_openai_dialects_type_errors_like_the_real_api(codec: DialectCodec) -> None:
    assert codec.render_error(400, "bad input") == {
        "error": {
            "message": "bad input",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    assert codec.render_error(401, "k")["error"]["code"] == "invalid_api_key"
    assert codec.render_error(429, "k")["error"]["code"] == "rate_limit_exceeded"
    assert codec.render_error(502, "k")["error"]["type"] == "server_error"
    assert codec.render_error(422, "k")["error"]["type"] == "invalid_request_error"


def test_items_the_ir_does_not_model_are_kept_as_omitted_parts() -> None:
    ir = CODEC.parse_request(
        {
            "model": "m",
            "input": [
                {"role": "user", "content": "search and patch"},
                {"type": "web_search_call", "id": "ws_1", "status": "completed"},
                {"type": "custom_tool_call", "call_id": "c1", "name": "apply", "input": "*** diff"},
                {"type": "custom_tool_call_output", "call_id": "c1", "output": "applied"},
            ],
        }
    )
    assistant, result = ir.messages[1:]
    assert assistant.omitted_parts == ("web_search_call",)
    assert assistant.tool_calls == (ToolCall(id="c1", name="apply", arguments="*** diff"),)
    assert (result.role, result.tool_call_id, result.text) == ("tool", "c1", "applied")
