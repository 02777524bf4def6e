"""The Chat Completions dialect, proven against the real openai SDK over a mock transport.

Every reply is rendered by the codec and parsed by openai-python itself (plain create,
raw stream iteration and the `.stream()` accumulator), so "the SDK accepts it" is tested,
not assumed.
"""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from conformance.wire import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from conformance.wire.dialects._base import SseEvent, WireFormatError
from conformance.wire.dialects.openai_chat import CODEC
from conformance.wire.ir import StopReason
from tests.wire.dialects.codec_harness import (
    IDS,
    OPENAI_ERROR_CASES,
    CodecServer,
    openai_client,
    openai_sync_client,
    payloads,
)

WEATHER_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_PARAMS,
            "strict": True,
        },
    },
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}},
]
USER_ONLY: list[Any] = [{"role": "user", "content": "hi"}]
LONG_TEXT = "The weather in Paris is 18C and cloudy; it is 14:05 there right now."
WEATHER_CALL = ToolCall(id="", name="get_weather", arguments={"city": "Paris"})
TIME_CALL = ToolCall(id="call_given", name="get_time", arguments={})
USAGE = Usage(input_tokens=42, output_tokens=7)


class FakeChat(CodecServer):
    codec = CODEC

    def client(self) -> openai.AsyncOpenAI:
        return openai_client(self.handler)

    def sync_client(self) -> openai.OpenAI:
        return openai_sync_client(self.handler)

    async def final_text(self) -> str | None:
        """The text of the `.stream()` helper's final completion (which may raise)."""
        async with self.client().chat.completions.stream(
            model="gpt-test", messages=USER_ONLY
        ) as stream:
            return (await stream.get_final_completion()).choices[0].message.content


def ir_of(**body: Any) -> RequestIR:
    return CODEC.parse_request({"model": "gpt-test", "messages": USER_ONLY, **body})


# --- parse_request -------------------------------------------------------------------------


async def test_parse_multi_turn_request_built_by_the_sdk() -> None:
    fake = FakeChat()
    await fake.client().chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You are terse."},
            {
                "role": "developer",
                "content": [
                    {"type": "text", "text": "Prefer metric."},
                    {"type": "text", "text": "Cite sources."},
                ],
            },
            {"role": "user", "content": "Weather in Paris, and the time?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": "{}"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "18C, cloudy"},
            {
                "role": "tool",
                "tool_call_id": "call_b",
                "content": [{"type": "text", "text": "14:05"}, {"type": "text", "text": "CET"}],
            },
            {"role": "assistant", "content": "18C and cloudy; 14:05."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "And in this photo?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ],
            },
        ],
        tools=TOOLS,
        temperature=0.2,
        parallel_tool_calls=True,
        max_completion_tokens=64,
    )
    body = fake.bodies[0]
    assert fake.requests[0] == RequestIR(
        dialect=Dialect.OPENAI_CHAT,
        model="gpt-test",
        system="You are terse.\n\nPrefer metric.\nCite sources.",
        messages=(
            Message(role="user", text="Weather in Paris, and the time?"),
            Message(
                role="assistant",
                tool_calls=(
                    ToolCall(id="call_a", name="get_weather", arguments={"city": "Paris"}),
                    ToolCall(id="call_b", name="get_time", arguments={}),
                ),
            ),
            Message(role="tool", text="18C, cloudy", tool_call_id="call_a"),
            Message(role="tool", text="14:05\nCET", tool_call_id="call_b"),
            Message(role="assistant", text="18C and cloudy; 14:05."),
            Message(role="user", text="And in this photo?", omitted_parts=("image_url",)),
        ),
        tools=(
            ToolSpec(
                name="get_weather",
                description="Current weather for a city.",
                parameters=WEATHER_PARAMS,
            ),
            ToolSpec(name="get_time", parameters={"type": "object"}),
        ),
        raw=body,
    )
    assert body["messages"][3]["content"] is None  # raw is the body as sent, untouched
    assert CODEC.check_roles(fake.requests[0]) == []


async def test_parse_streaming_request_records_include_usage() -> None:
    fake = FakeChat()
    stream = await fake.client().chat.completions.create(
        model="gpt-test", messages=USER_ONLY, stream=True, stream_options={"include_usage": True}
    )
    async for _ in stream:
        pass
    assert fake.requests[0].stream is True
    assert fake.requests[0].include_usage is True


@pytest.mark.parametrize(
    ("extra", "include_usage"),
    [
        ({}, False),
        ({"stream": True}, False),
        ({"stream": True, "stream_options": {"include_usage": False}}, False),
        ({"stream": False, "stream_options": {"include_usage": True}}, False),
        ({"stream": True, "stream_options": {"include_usage": True}}, True),
    ],
)
def test_include_usage_only_when_streaming_and_asked(
    extra: dict[str, Any], include_usage: bool
) -> None:
    assert ir_of(**extra).include_usage is include_usage


def test_parse_keeps_unparseable_arguments_raw_and_ignores_unused_fields() -> None:
    ir = ir_of(
        messages=[
            {"role": "user", "content": "go", "name": "alice"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{oops"},
                    },
                    {"id": "c2", "type": "function", "function": {"name": "g", "arguments": ""}},
                ],
            },
        ],
        temperature=1.5,
        metadata={"k": "v"},
        response_format={"type": "text"},
        some_future_field=[1, 2],
    )
    assert ir.messages[1].tool_calls == (
        ToolCall(id="c1", name="f", arguments="{oops"),
        ToolCall(id="c2", name="g", arguments=""),
    )


def test_parse_lists_parts_it_does_not_model() -> None:
    ir = ir_of(
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
                    {"type": "text", "text": "listen"},
                    {"type": "file", "file": {"file_id": "file-1"}},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "no"}],
                "audio": {"id": "audio_1"},
            },
        ]
    )
    assert ir.messages == (
        Message(role="user", text="listen", omitted_parts=("input_audio", "file")),
        Message(role="assistant", omitted_parts=("refusal", "audio")),
    )


def test_parse_custom_and_legacy_function_tools() -> None:
    ir = ir_of(
        messages=[
            {"role": "user", "content": "patch it"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "custom", "custom": {"name": "apply", "input": "*** diff"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "applied"},
        ],
        tools=[{"type": "custom", "custom": {"name": "apply", "description": "Apply a patch."}}],
        functions=[{"name": "legacy", "parameters": {"type": "object"}}],
    )
    assert ir.messages[1].tool_calls == (ToolCall(id="c1", name="apply", arguments="*** diff"),)
    assert ir.tools == (
        ToolSpec(name="apply", description="Apply a patch."),
        ToolSpec(name="legacy", parameters={"type": "object"}),
    )


def test_legacy_function_role_is_refused_clearly() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "x"},
            {"role": "assistant", "function_call": {"name": "legacy", "arguments": "{}"}},
            {"role": "function", "name": "legacy", "content": "done"},
        ],
    }
    with pytest.raises(WireFormatError) as raised:
        CODEC.parse_request(body)
    assert raised.value.field == "messages.2.role"
    assert "send tool calls and 'tool' messages instead" in raised.value.problem


def _with(*messages: Any) -> dict[str, Any]:
    return {"model": "m", "messages": list(messages)}


_CALLER = {"role": "user", "content": "go"}


def _calls(*calls: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


_FN = {"name": "f", "arguments": "{}"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([], ""),
        ("text", ""),
        ({"messages": USER_ONLY}, "model"),
        ({"model": 3, "messages": USER_ONLY}, "model"),
        ({"model": ""}, "model"),
        ({"model": "m"}, "messages"),
        ({"model": "m", "messages": {"role": "user"}}, "messages"),
        ({"model": "m", "messages": []}, "messages"),
        (_with("hi"), "messages.0"),
        (_with({"role": "robot", "content": "x"}), "messages.0.role"),
        (_with({"content": "x"}), "messages.0.role"),
        (_with({"role": "user"}), "messages.0.content"),
        (_with({"role": "user", "content": 5}), "messages.0.content"),
        (_with({"role": "user", "content": [{"text": "x"}]}), "messages.0.content.0.type"),
        (_with({"role": "user", "content": ["x"]}), "messages.0.content.0"),
        (_with({"role": "user", "content": [{"type": "text"}]}), "messages.0.content.0.text"),
        (
            _with({"role": "system", "content": [{"type": "image_url", "image_url": {}}]}),
            "messages.0.content.0.type",
        ),
        (
            _with(_CALLER, _calls({"type": "function", "function": _FN})),
            "messages.1.tool_calls.0.id",
        ),
        (
            _with(_CALLER, _calls({"id": "", "type": "function", "function": _FN})),
            "messages.1.tool_calls.0.id",
        ),
        (
            _with(
                _CALLER, _calls({"id": "c", "type": "function", "function": {"arguments": "{}"}})
            ),
            "messages.1.tool_calls.0.function.name",
        ),
        (
            _with(_CALLER, _calls({"id": "c", "function": {"name": "f", "arguments": {}}})),
            "messages.1.tool_calls.0.function.arguments",
        ),
        (
            _with(_CALLER, _calls({"id": "c", "type": "function"})),
            "messages.1.tool_calls.0.function",
        ),
        (_with(_CALLER, _calls({"id": "c", "type": "magic"})), "messages.1.tool_calls.0.type"),
        (
            _with(_CALLER, {"role": "assistant", "tool_calls": {"id": "c"}}),
            "messages.1.tool_calls",
        ),
        (
            _with(_CALLER, _calls({"id": "c", "function": _FN}), {"role": "tool", "content": "r"}),
            "messages.2.tool_call_id",
        ),
        ({**_with(_CALLER), "tools": {"type": "function"}}, "tools"),
        ({**_with(_CALLER), "tools": [{"type": "retrieval"}]}, "tools.0.type"),
        (
            {**_with(_CALLER), "tools": [{"type": "function", "function": {}}]},
            "tools.0.function.name",
        ),
        (
            {
                **_with(_CALLER),
                "tools": [{"type": "function", "function": {"name": "f", "parameters": "x"}}],
            },
            "tools.0.function.parameters",
        ),
        ({**_with(_CALLER), "stream": "yes"}, "stream"),
        ({**_with(_CALLER), "stream": True, "stream_options": "usage"}, "stream_options"),
    ],
)
def test_malformed_bodies_name_the_field(body: Any, field: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        CODEC.parse_request(body)
    assert caught.value.field == field
    assert caught.value.problem


# --- check_roles ---------------------------------------------------------------------------


def _roles(*messages: Any) -> list[str]:
    return CODEC.check_roles(CODEC.parse_request(_with(*messages)))


_CALL_A = {"id": "a", "type": "function", "function": _FN}
_CALL_B = {"id": "b", "type": "function", "function": _FN}


@pytest.mark.parametrize(
    "messages",
    [
        [_CALLER],
        [_CALLER, _calls(_CALL_A), {"role": "tool", "tool_call_id": "a", "content": "r"}],
        [
            _CALLER,
            _calls(_CALL_A, _CALL_B),
            {"role": "tool", "tool_call_id": "a", "content": "r"},
            {"role": "tool", "tool_call_id": "b", "content": "r"},
            {"role": "assistant", "content": "done"},
        ],
        [_CALLER, {"role": "assistant", "content": ""}],
        [_CALLER, {"role": "assistant", "refusal": "I can't."}],
        [_CALLER, {"role": "assistant", "content": "hm", "tool_calls": [_CALL_A]}],
    ],
)
def test_check_roles_accepts_well_formed_orders(messages: list[Any]) -> None:
    assert _roles(*messages) == []


@pytest.mark.parametrize(
    ("messages", "index"),
    [
        ([{"role": "tool", "tool_call_id": "a", "content": "r"}], 0),
        ([_CALLER, {"role": "tool", "tool_call_id": "a", "content": "r"}], 1),
        (
            [
                _CALLER,
                {"role": "assistant", "content": "no calls"},
                {"role": "tool", "tool_call_id": "a", "content": "r"},
            ],
            2,
        ),
        (
            [
                _CALLER,
                _calls(_CALL_A),
                {"role": "system", "content": "interjection"},
                {"role": "tool", "tool_call_id": "a", "content": "r"},
            ],
            3,
        ),
        ([_CALLER, {"role": "assistant", "content": None}], 1),
        ([_CALLER, {"role": "assistant"}], 1),
        ([_CALLER, {"role": "assistant", "content": None, "tool_calls": []}], 1),
    ],
)
def test_check_roles_names_the_offending_message(messages: list[Any], index: int) -> None:
    problems = _roles(*messages)
    assert len(problems) == 1
    assert problems[0].startswith(f"messages.{index}:")


def test_check_roles_reports_every_problem() -> None:
    problems = _roles(
        {"role": "tool", "tool_call_id": "a", "content": "r"},
        _CALLER,
        {"role": "assistant"},
    )
    assert [p.split(":")[0] for p in problems] == ["messages.0", "messages.2"]


def test_check_roles_tolerates_a_raw_body_without_messages() -> None:
    assert CODEC.check_roles(RequestIR(dialect=Dialect.OPENAI_CHAT, model="m")) == []


# --- render_json ---------------------------------------------------------------------------


async def test_text_reply_json() -> None:
    fake = FakeChat(AssistantReply(text="Hello!", usage=USAGE))
    completion = await fake.client().chat.completions.create(model="gpt-test", messages=USER_ONLY)
    assert completion.id == "chatcmpl-turnlaw-000007"
    assert completion.object == "chat.completion"
    assert completion.created == IDS.created
    assert completion.model == "gpt-test"
    (choice,) = completion.choices
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == "Hello!"
    assert choice.message.tool_calls is None
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (42, 7)
    assert completion.usage.total_tokens == 49


async def test_one_tool_call_json() -> None:
    fake = FakeChat(AssistantReply(tool_calls=(WEATHER_CALL,), stop_reason="tool_use"))
    completion = await fake.client().chat.completions.create(
        model="gpt-test", messages=USER_ONLY, tools=TOOLS
    )
    message = completion.choices[0].message
    assert completion.choices[0].finish_reason == "tool_calls"
    assert message.content is None
    assert message.tool_calls is not None
    (call,) = message.tool_calls
    assert call.type == "function"
    assert call.id == "call_0007_0"
    assert call.function.name == "get_weather"
    assert call.function.arguments == '{"city":"Paris"}'


async def test_parallel_tool_calls_json_keep_given_ids_and_order() -> None:
    reply = AssistantReply(
        text="Checking both.", tool_calls=(WEATHER_CALL, TIME_CALL), stop_reason="tool_use"
    )
    completion = (
        await FakeChat(reply)
        .client()
        .chat.completions.create(model="gpt-test", messages=USER_ONLY, tools=TOOLS)
    )
    message = completion.choices[0].message
    assert message.content == "Checking both."
    assert message.tool_calls is not None
    assert [(c.id, c.type) for c in message.tool_calls] == [
        ("call_0007_0", "function"),
        ("call_given", "function"),
    ]
    assert [c.function.arguments for c in message.tool_calls if c.type == "function"] == [
        '{"city":"Paris"}',
        "{}",
    ]


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [("end_turn", "stop"), ("tool_use", "tool_calls"), ("max_tokens", "length")],
)
async def test_stop_reasons_json_and_sse(stop_reason: StopReason, finish_reason: str) -> None:
    calls = (WEATHER_CALL,) if stop_reason == "tool_use" else ()
    fake = FakeChat(AssistantReply(text="x", tool_calls=calls, stop_reason=stop_reason))
    client = fake.client()
    completion = await client.chat.completions.create(model="gpt-test", messages=USER_ONLY)
    assert completion.choices[0].finish_reason == finish_reason
    stream = await client.chat.completions.create(model="gpt-test", messages=USER_ONLY, stream=True)
    finishes = [c.choices[0].finish_reason async for c in stream if c.choices]
    assert finishes[-1] == finish_reason
    assert set(finishes[:-1]) == {None}


async def test_empty_text_reply_keeps_an_empty_string() -> None:
    fake = FakeChat(AssistantReply())
    client = fake.client()
    completion = await client.chat.completions.create(model="gpt-test", messages=USER_ONLY)
    assert completion.choices[0].message.content == ""
    async with client.chat.completions.stream(model="gpt-test", messages=USER_ONLY) as stream:
        final = await stream.get_final_completion()
    assert final.choices[0].message.content == ""


# --- render_sse ----------------------------------------------------------------------------


async def test_text_stream_iterated_with_usage_chunk() -> None:
    fake = FakeChat(AssistantReply(text=LONG_TEXT, usage=USAGE))
    stream = await fake.client().chat.completions.create(
        model="gpt-test", messages=USER_ONLY, stream=True, stream_options={"include_usage": True}
    )
    chunks = [c async for c in stream]
    assert {c.id for c in chunks} == {"chatcmpl-turnlaw-000007"}
    assert {c.object for c in chunks} == {"chat.completion.chunk"}
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[0].choices[0].delta.content == ""
    pieces = [c.choices[0].delta.content for c in chunks[1:] if c.choices]
    texts = [p for p in pieces if p]
    assert "".join(texts) == LONG_TEXT
    assert all(len(p) <= 32 for p in texts)
    assert len(texts) == 3
    *body, last = chunks
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (42, 7)
    assert all(c.usage is None for c in body)


async def test_text_stream_without_usage_chunk() -> None:
    fake = FakeChat(AssistantReply(text="short", usage=USAGE))
    stream = await fake.client().chat.completions.create(
        model="gpt-test", messages=USER_ONLY, stream=True
    )
    chunks = [c async for c in stream]
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "short"


async def test_stream_helper_final_completion_with_parallel_tool_calls() -> None:
    reply = AssistantReply(
        text=LONG_TEXT, tool_calls=(WEATHER_CALL, TIME_CALL), usage=USAGE, stop_reason="tool_use"
    )
    fake = FakeChat(reply)
    async with fake.client().chat.completions.stream(
        model="gpt-test", messages=USER_ONLY, tools=TOOLS, stream_options={"include_usage": True}
    ) as stream:
        kinds = [event.type async for event in stream]
        final = await stream.get_final_completion()
    assert kinds.count("content.done") == 1
    assert kinds.count("tool_calls.function.arguments.done") == 2
    assert final.id == "chatcmpl-turnlaw-000007"
    (choice,) = final.choices
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == LONG_TEXT
    assert choice.message.tool_calls is not None
    weather, clock = choice.message.tool_calls
    assert (weather.id, weather.function.name) == ("call_0007_0", "get_weather")
    assert weather.function.arguments == '{"city":"Paris"}'
    assert weather.function.parsed_arguments == {"city": "Paris"}  # strict tool: SDK parses
    assert (clock.id, clock.function.name, clock.function.arguments) == (
        "call_given",
        "get_time",
        "{}",
    )
    assert clock.function.parsed_arguments is None  # non-strict tool: SDK leaves it
    assert final.usage is not None
    assert (final.usage.prompt_tokens, final.usage.total_tokens) == (42, 49)


async def test_stream_helper_tool_only_reply_has_null_content() -> None:
    fake = FakeChat(AssistantReply(tool_calls=(WEATHER_CALL,), stop_reason="tool_use"))
    async with fake.client().chat.completions.stream(
        model="gpt-test", messages=USER_ONLY, tools=TOOLS
    ) as stream:
        final = await stream.get_final_completion()
    message = final.choices[0].message
    assert message.content is None
    assert message.tool_calls is not None
    assert message.tool_calls[0].function.parsed_arguments == {"city": "Paris"}
    assert final.usage is None  # not asked for


def test_sync_stream_helper_final_completion() -> None:
    fake = FakeChat(AssistantReply(text="sync works", usage=USAGE))
    with fake.sync_client().chat.completions.stream(
        model="gpt-test", messages=USER_ONLY, stream_options={"include_usage": True}
    ) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == "sync works"
    assert final.choices[0].finish_reason == "stop"
    assert final.usage is not None
    assert final.usage.completion_tokens == 7


def test_sse_event_shape() -> None:
    reply = AssistantReply(
        text="a" * 70, tool_calls=(WEATHER_CALL, TIME_CALL), usage=USAGE, stop_reason="tool_use"
    )
    request = ir_of(stream=True, stream_options={"include_usage": True})
    events = CODEC.render_sse(reply, request, IDS)
    assert events == CODEC.render_sse(reply, request, IDS)
    assert all(e.event is None for e in events)
    assert events[-1] == SseEvent(data="[DONE]")
    bodies = payloads(events)
    deltas = [b["choices"][0]["delta"] for b in bodies if b["choices"]]
    assert deltas[0] == {"role": "assistant", "content": "", "refusal": None}
    assert [d["content"] for d in deltas if d.get("content")] == ["a" * 32, "a" * 32, "a" * 6]
    call_deltas = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert call_deltas[0] == {
        "index": 0,
        "id": "call_0007_0",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    for index in (0, 1):
        pieces = [
            d["function"]["arguments"]
            for d in call_deltas[1:]
            if d["index"] == index and "id" not in d
        ]
        assert 1 <= len(pieces) <= 2
    assert deltas[-1] == {}
    assert bodies[-1]["choices"] == []
    assert bodies[-1]["usage"]["total_tokens"] == 49
    assert all(b["usage"] is None for b in bodies[:-1])


def test_sse_without_text_or_usage_request() -> None:
    reply = AssistantReply(tool_calls=(WEATHER_CALL,), stop_reason="tool_use")
    events = CODEC.render_sse(reply, ir_of(stream=True), IDS)
    bodies = payloads(events)
    assert all("usage" not in b for b in bodies)
    assert bodies[0]["choices"][0]["delta"]["content"] is None
    assert not any(b["choices"][0]["delta"].get("content") for b in bodies)


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "exception", "kind"), OPENAI_ERROR_CASES)
async def test_error_body_raises_the_right_sdk_exception(
    status: int, exception: type[openai.APIStatusError], kind: str
) -> None:
    fake = FakeChat(error=(status, "scripted failure"))
    with pytest.raises(exception) as caught:
        await fake.client().chat.completions.create(model="gpt-test", messages=USER_ONLY)
    assert caught.value.status_code == status
    assert caught.value.message == f"Error code: {status} - scripted failure"
    assert caught.value.type == kind
    assert caught.value.body == CODEC.render_error(status, "scripted failure")["error"]


async def test_mid_stream_error_raises_during_iteration() -> None:
    fake = FakeChat(AssistantReply(text=LONG_TEXT), stream_error="upstream exploded")
    stream = await fake.client().chat.completions.create(
        model="gpt-test", messages=USER_ONLY, stream=True
    )
    seen: list[str] = []

    async def drain() -> None:
        async for chunk in stream:
            seen.append(chunk.choices[0].delta.content or "")

    with pytest.raises(openai.APIError, match="upstream exploded") as caught:
        await drain()
    assert not isinstance(caught.value, openai.APIStatusError)
    assert caught.value.type == "server_error"
    assert seen == ["", LONG_TEXT[:32]]


async def test_mid_stream_error_raises_from_the_stream_helper() -> None:
    fake = FakeChat(AssistantReply(text=LONG_TEXT), stream_error="upstream exploded")
    with pytest.raises(openai.APIError, match="upstream exploded"):
        await fake.final_text()


def test_stream_error_event_shape() -> None:
    (event,) = CODEC.render_stream_error("boom", IDS)
    assert event.event is None
    assert json.loads(event.data) == {
        "error": {"message": "boom", "type": "server_error", "param": None, "code": None}
    }


async def test_stream_helper_refuses_a_length_finish_like_the_real_api() -> None:
    """get_final_completion() raises on finish_reason "length" whatever was asked."""
    fake = FakeChat(AssistantReply(text="cut", stop_reason="max_tokens"))
    with pytest.raises(openai.LengthFinishReasonError):
        await fake.final_text()
