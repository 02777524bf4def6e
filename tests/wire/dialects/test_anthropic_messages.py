"""The Messages codec against the real `anthropic` SDK, over an httpx2 mock transport."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx2
import pytest

from conformance.wire import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from conformance.wire.dialects._base import WireFormatError
from conformance.wire.dialects.anthropic_messages import CODEC
from tests.wire.dialects.codec_harness import IDS, CodecServer, anthropic_client

WEATHER: Any = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
LONG_TEXT = "The weather in Paris is sunny with a light breeze, 21 degrees. " * 3


class Fake(CodecServer):
    codec = CODEC
    kept_before_error = 3  # message_start, ping, content_block_start

    def client(self) -> anthropic.AsyncAnthropic:
        return anthropic_client(self.handler)


def _ask(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        **extra,
    }


PARALLEL = AssistantReply(
    text="Let me check both.",
    tool_calls=(
        ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="toolu_given", name="get_weather", arguments={"city": "Oslo", "days": [1, 2]}),
    ),
    usage=Usage(input_tokens=40, output_tokens=12),
    stop_reason="tool_use",
)


# --- parsing ---------------------------------------------------------------------------------


async def test_parse_multi_turn_request_built_by_sdk() -> None:
    fake = Fake(PARALLEL, AssistantReply(text="Sunny in both."))
    client = fake.client()
    history: list[Any] = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    system: Any = [
        {"type": "text", "text": "You are terse."},
        {"type": "text", "text": "Use tools."},
    ]
    first = await client.messages.create(
        model="claude-test", max_tokens=256, system=system, messages=history, tools=[WEATHER]
    )
    history.append({"role": "assistant", "content": first.content})
    history.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_0007_0", "content": "21C sunny"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_given",
                    "content": [
                        {"type": "text", "text": "4C"},
                        {"type": "text", "text": "snow"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "AA=="},
                        },
                    ],
                    "is_error": True,
                },
                {"type": "text", "text": "Summarize."},
            ],
        }
    )
    await client.messages.create(
        model="claude-test",
        max_tokens=256,
        system=system,
        messages=history,
        tools=[WEATHER],
        tool_choice={"type": "auto"},
        stop_sequences=["END"],
        metadata={"user_id": "u1"},
    )

    body = fake.bodies[1]
    assert fake.requests[1] == RequestIR(
        dialect=Dialect.ANTHROPIC_MESSAGES,
        model="claude-test",
        system="You are terse.\nUse tools.",
        messages=(
            Message(role="user", text="Weather in Paris and Oslo?"),
            Message(
                role="assistant",
                text="Let me check both.",
                tool_calls=(
                    ToolCall(id="toolu_0007_0", name="get_weather", arguments={"city": "Paris"}),
                    ToolCall(
                        id="toolu_given",
                        name="get_weather",
                        arguments={"city": "Oslo", "days": [1, 2]},
                    ),
                ),
            ),
            Message(role="tool", text="21C sunny", tool_call_id="toolu_0007_0"),
            Message(
                role="tool",
                text="4C\nsnow",
                tool_call_id="toolu_given",
                is_error=True,
                omitted_parts=("image",),
            ),
            Message(role="user", text="Summarize."),
        ),
        tools=(
            ToolSpec(
                name="get_weather",
                description="Current weather for a city",
                parameters=WEATHER["input_schema"],
            ),
        ),
        raw=body,
    )
    assert fake.requests[1].raw == body
    assert CODEC.check_roles(fake.requests[1]) == []


async def test_parse_stream_flag_sets_include_usage() -> None:
    fake = Fake(AssistantReply(text="hi"))
    stream = await fake.client().messages.create(**_ask(), stream=True)
    async for _ in stream:
        pass
    assert fake.requests[0].stream is True
    assert fake.requests[0].include_usage is True


def test_parse_omits_unmodelled_parts_and_folds_system_messages() -> None:
    body = _ask(
        system="top",
        messages=[
            {"role": "system", "content": [{"type": "text", "text": "mid"}]},
            {
                "role": "user",
                "content": [
                    {"type": "document", "source": {"type": "text", "data": "x"}},
                    {"type": "text", "text": "a"},
                    {"type": "text", "text": "b"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "s"},
                    {"type": "redacted_thinking", "data": "zz"},
                    {"type": "text", "text": "ok"},
                ],
            },
            {"role": "user", "content": [{"type": "image", "source": {}}]},
        ],
        tools=[
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
            {"type": "custom", "name": "noop", "input_schema": {"type": "object"}},
        ],
        thinking={"type": "enabled", "budget_tokens": 1024},
        cache_control={"type": "ephemeral"},
    )
    ir = CODEC.parse_request(body)
    assert ir.system == "top\n\nmid"
    assert ir.messages == (
        Message(role="user", text="a\nb", omitted_parts=("document",)),
        Message(role="assistant", text="ok", omitted_parts=("thinking", "redacted_thinking")),
        Message(role="user", omitted_parts=("image",)),
    )
    assert ir.tools == (ToolSpec(name="noop", parameters={"type": "object"}),)
    assert ir.stream is False


def test_parse_tool_result_without_content_or_text() -> None:
    body = _ask(
        messages=[
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "noop", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
        ]
    )
    ir = CODEC.parse_request(body)
    assert ir.messages[1] == Message(
        role="assistant", tool_calls=(ToolCall(id="t1", name="noop", arguments={}),)
    )
    assert ir.messages[2:] == (Message(role="tool", tool_call_id="t1"),)


_USER = {"role": "user", "content": "hi"}


def _after_user(*assistant_blocks: Any) -> dict[str, Any]:
    return _ask(messages=[_USER, {"role": "assistant", "content": list(assistant_blocks)}])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param([1, 2], "", id="not-an-object"),
        pytest.param({"max_tokens": 5, "messages": [_USER]}, "model", id="model-missing"),
        pytest.param({"model": 3, "max_tokens": 5, "messages": [_USER]}, "model", id="model-int"),
        pytest.param({"model": "m", "messages": [_USER]}, "max_tokens", id="max-tokens-missing"),
        pytest.param(
            {"model": "m", "max_tokens": "5", "messages": [_USER]},
            "max_tokens",
            id="max-tokens-str",
        ),
        pytest.param({"model": "m", "max_tokens": 5}, "messages", id="messages-missing"),
        pytest.param(
            {"model": "m", "max_tokens": 5, "messages": {}}, "messages", id="messages-obj"
        ),
        pytest.param(_ask(messages=[]), "messages", id="messages-empty"),
        pytest.param(_ask(stream="yes"), "stream", id="stream-str"),
        pytest.param(_ask(messages=["hi"]), "messages.0", id="message-not-object"),
        pytest.param(
            _ask(messages=[{"role": "tool", "content": "x"}]), "messages.0.role", id="bad-role"
        ),
        pytest.param(_ask(messages=[{"role": "user"}]), "messages.0.content", id="no-content"),
        pytest.param(
            _ask(messages=[{"role": "user", "content": 5}]), "messages.0.content", id="content-int"
        ),
        pytest.param(
            _ask(messages=[{"role": "user", "content": []}]), "messages.0.content", id="empty"
        ),
        pytest.param(
            _ask(messages=[{"role": "user", "content": [{"text": "x"}]}]),
            "messages.0.content.0.type",
            id="block-without-type",
        ),
        pytest.param(
            _ask(messages=[{"role": "user", "content": [{"type": "text", "text": 1}]}]),
            "messages.0.content.0.text",
            id="text-not-str",
        ),
        pytest.param(
            _after_user({"type": "tool_use", "name": "f", "input": {}}),
            "messages.1.content.0.id",
            id="tool-use-no-id",
        ),
        pytest.param(
            _after_user({"type": "tool_use", "id": "a", "input": {}}),
            "messages.1.content.0.name",
            id="tool-use-no-name",
        ),
        pytest.param(
            _after_user({"type": "tool_use", "id": "a", "name": "f", "input": "{}"}),
            "messages.1.content.0.input",
            id="tool-use-input-string",
        ),
        pytest.param(
            _ask(messages=[{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]),
            "messages.0.content.0.tool_use_id",
            id="tool-result-no-id",
        ),
        pytest.param(
            _ask(
                messages=[
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": "no"}],
                    }
                ]
            ),
            "messages.0.content.0.is_error",
            id="tool-result-is-error-str",
        ),
        pytest.param(
            _ask(messages=[{"role": "user", "content": [{"type": "tool_use", "id": "a"}]}]),
            "messages.0.content.0.type",
            id="tool-use-in-user",
        ),
        pytest.param(_ask(system=[{"type": "image"}]), "system.0.type", id="system-image"),
        pytest.param(_ask(system=7), "system", id="system-int"),
        pytest.param(_ask(tools={"name": "f"}), "tools", id="tools-object"),
        pytest.param(_ask(tools=[{"input_schema": {}}]), "tools.0.name", id="tool-no-name"),
        pytest.param(_ask(tools=[{"name": "f"}]), "tools.0.input_schema", id="tool-no-schema"),
        pytest.param(
            _ask(tools=[{"name": "f", "input_schema": []}]),
            "tools.0.input_schema",
            id="schema-list",
        ),
    ],
)
def test_parse_refuses_malformed_bodies(body: Any, field: str) -> None:
    with pytest.raises(WireFormatError) as info:
        CODEC.parse_request(body)
    assert info.value.field == field
    assert info.value.problem


async def test_malformed_request_reaches_sdk_as_bad_request() -> None:
    fake = Fake()
    messages: Any = [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]
    with pytest.raises(anthropic.BadRequestError) as info:
        await fake.client().messages.create(model="claude-test", max_tokens=16, messages=messages)
    assert info.value.type == "invalid_request_error"
    assert "messages.0.content.0.tool_use_id" in str(info.value.api_message)


# --- JSON replies ----------------------------------------------------------------------------


async def test_json_text_reply_with_usage() -> None:
    reply = AssistantReply(text="Sunny.", usage=Usage(input_tokens=11, output_tokens=3))
    fake = Fake(reply)
    msg = await fake.client().messages.create(**_ask())
    assert msg.id == "msg_turnlaw_000007"
    assert msg.type == "message"
    assert msg.role == "assistant"
    assert msg.model == "claude-test"
    assert [b.type for b in msg.content] == ["text"]
    assert msg.content[0].type == "text"
    assert msg.content[0].text == "Sunny."
    assert msg.stop_reason == "end_turn"
    assert msg.stop_sequence is None
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (11, 3)


async def test_json_one_tool_call_without_text() -> None:
    reply = AssistantReply(
        tool_calls=(ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),),
        stop_reason="tool_use",
    )
    msg = await Fake(reply).client().messages.create(**_ask(tools=[WEATHER]))
    assert msg.stop_reason == "tool_use"
    assert len(msg.content) == 1
    block = msg.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert (block.id, block.name, block.input) == ("toolu_0007_0", "get_weather", {"city": "Paris"})


async def test_json_two_parallel_tool_calls_after_text() -> None:
    msg = await Fake(PARALLEL).client().messages.create(**_ask(tools=[WEATHER]))
    assert [b.type for b in msg.content] == ["text", "tool_use", "tool_use"]
    calls = [b for b in msg.content if isinstance(b, anthropic.types.ToolUseBlock)]
    assert [(c.id, c.input) for c in calls] == [
        ("toolu_0007_0", {"city": "Paris"}),
        ("toolu_given", {"city": "Oslo", "days": [1, 2]}),
    ]
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (40, 12)


@pytest.mark.parametrize("stop", ["end_turn", "tool_use", "max_tokens"])
async def test_stop_reasons_json_and_sse(stop: Any) -> None:
    client = Fake(AssistantReply(text="x", stop_reason=stop)).client()
    assert (await client.messages.create(**_ask())).stop_reason == stop
    async with client.messages.stream(**_ask()) as stream:
        assert (await stream.get_final_message()).stop_reason == stop


def test_json_empty_text_keeps_one_text_block_without_tool_calls() -> None:
    ir = CODEC.parse_request(_ask())
    body = CODEC.render_json(AssistantReply(), ir, IDS)
    assert body["content"] == [{"type": "text", "text": ""}]


# --- SSE replies -----------------------------------------------------------------------------


async def test_sse_text_raw_events() -> None:
    reply = AssistantReply(text=LONG_TEXT, usage=Usage(input_tokens=9, output_tokens=30))
    fake = Fake(reply)
    stream = await fake.client().messages.create(**_ask(), stream=True)
    events = [e async for e in stream]
    types = [e.type for e in events]
    n_deltas = -(-len(LONG_TEXT) // 32)
    assert types == [
        "message_start",
        "content_block_start",
        *["content_block_delta"] * n_deltas,
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert fake.streams[0][1].event == "ping"
    start = events[0]
    assert isinstance(start, anthropic.types.RawMessageStartEvent)
    assert start.message.id == "msg_turnlaw_000007"
    assert start.message.usage.input_tokens == 9
    deltas = [e for e in events if isinstance(e, anthropic.types.RawContentBlockDeltaEvent)]
    pieces = [d.delta.text for d in deltas if isinstance(d.delta, anthropic.types.TextDelta)]
    assert "".join(pieces) == LONG_TEXT
    assert all(0 < len(p) <= 32 for p in pieces)
    end = events[-2]
    assert isinstance(end, anthropic.types.RawMessageDeltaEvent)
    assert end.delta.stop_reason == "end_turn"
    assert end.usage.output_tokens == 30


async def test_sse_stream_helper_text_and_final_message() -> None:
    reply = AssistantReply(text=LONG_TEXT, usage=Usage(input_tokens=9, output_tokens=30))
    fake = Fake(reply)
    client = fake.client()
    async with client.messages.stream(**_ask()) as stream:
        streamed = "".join([t async for t in stream.text_stream])
        final = await stream.get_final_message()
    assert streamed == LONG_TEXT
    assert final.id == "msg_turnlaw_000007"
    assert final.content[0].type == "text"
    assert final.content[0].text == LONG_TEXT
    assert final.stop_reason == "end_turn"
    assert (final.usage.input_tokens, final.usage.output_tokens) == (9, 30)
    async with client.messages.stream(**_ask()) as again:
        assert await again.get_final_text() == LONG_TEXT


async def test_sse_stream_helper_parallel_tool_calls() -> None:
    fake = Fake(PARALLEL)
    async with fake.client().messages.stream(**_ask(tools=[WEATHER])) as stream:
        final = await stream.get_final_message()
    assert final.stop_reason == "tool_use"
    assert [b.type for b in final.content] == ["text", "tool_use", "tool_use"]
    calls = [b for b in final.content if isinstance(b, anthropic.types.ToolUseBlock)]
    assert [(c.id, c.name, c.input) for c in calls] == [
        ("toolu_0007_0", "get_weather", {"city": "Paris"}),
        ("toolu_given", "get_weather", {"city": "Oslo", "days": [1, 2]}),
    ]
    assert (final.usage.input_tokens, final.usage.output_tokens) == (40, 12)


async def test_sse_tool_call_only_raw_events_split_arguments() -> None:
    reply = AssistantReply(
        tool_calls=(ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),),
        stop_reason="tool_use",
    )
    stream = await Fake(reply).client().messages.create(**_ask(tools=[WEATHER]), stream=True)
    events = [e async for e in stream]
    starts = [e for e in events if isinstance(e, anthropic.types.RawContentBlockStartEvent)]
    assert len(starts) == 1
    assert starts[0].index == 0
    block = starts[0].content_block
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert (block.id, block.name, block.input) == ("toolu_0007_0", "get_weather", {})
    parts = [
        e.delta.partial_json
        for e in events
        if isinstance(e, anthropic.types.RawContentBlockDeltaEvent)
        and isinstance(e.delta, anthropic.types.InputJSONDelta)
    ]
    assert len(parts) == 2
    assert json.loads("".join(parts)) == {"city": "Paris"}


async def test_sse_tool_call_with_empty_arguments() -> None:
    reply = AssistantReply(tool_calls=(ToolCall(id="t9", name="noop"),), stop_reason="tool_use")
    async with Fake(reply).client().messages.stream(**_ask()) as stream:
        final = await stream.get_final_message()
    assert len(final.content) == 1
    assert isinstance(final.content[0], anthropic.types.ToolUseBlock)
    assert (final.content[0].id, final.content[0].input) == ("t9", {})


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind", "exc"),
    [
        (400, "invalid_request_error", anthropic.BadRequestError),
        (401, "authentication_error", anthropic.AuthenticationError),
        (403, "permission_error", anthropic.PermissionDeniedError),
        (404, "not_found_error", anthropic.NotFoundError),
        (429, "rate_limit_error", anthropic.RateLimitError),
        (500, "api_error", anthropic.InternalServerError),
        (503, "overloaded_error", anthropic.ServiceUnavailableError),
        (529, "overloaded_error", anthropic.OverloadedError),
    ],
)
async def test_error_body_raises_sdk_exception(
    status: int, kind: str, exc: type[anthropic.APIStatusError]
) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, json=CODEC.render_error(status, "scripted failure"))

    client = anthropic_client(handler)
    with pytest.raises(exc) as info:
        await client.messages.create(**_ask())
    assert info.value.status_code == status
    assert info.value.type == kind
    assert info.value.api_message == "scripted failure"


async def test_mid_stream_error_raises_on_raw_iteration() -> None:
    fake = Fake(AssistantReply(text=LONG_TEXT), stream_error="Overloaded mid-stream")
    stream = await fake.client().messages.create(**_ask(), stream=True)
    seen: list[str] = []

    async def drain() -> None:
        async for event in stream:
            seen.append(event.type)

    with pytest.raises(anthropic.APIStatusError) as info:
        await drain()
    assert seen == ["message_start", "content_block_start"]
    assert info.value.api_message == "Overloaded mid-stream"
    assert info.value.type == "api_error"
    assert fake.streams[0][-1].event == "error"


async def test_mid_stream_error_raises_in_stream_helper() -> None:
    fake = Fake(AssistantReply(text=LONG_TEXT), stream_error="boom")
    with pytest.raises(anthropic.APIStatusError, match="boom"):
        async with fake.client().messages.stream(**_ask()) as stream:
            await stream.get_final_message()


# --- role order ------------------------------------------------------------------------------


def _roles(*messages: dict[str, Any]) -> list[str]:
    return CODEC.check_roles(CODEC.parse_request(_ask(messages=list(messages))))


def _use(*ids: str) -> dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": "f", "input": {}} for i in ids]
    return {"role": "assistant", "content": blocks}


def _results(*ids: str, text_first: bool = False) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids
    ]
    text = {"type": "text", "text": "and then?"}
    return {"role": "user", "content": [text, *blocks] if text_first else [*blocks, text]}


def test_check_roles_accepts_well_formed_conversations() -> None:
    assert _roles(_USER) == []
    assert _roles(_USER, _use("a", "b"), _results("b", "a"), _use("c"), _results("c")) == []
    system = {"role": "system", "content": "be nice"}
    assert _roles(system, _USER, {"role": "assistant", "content": "hello"}) == []


def test_check_roles_first_message_must_be_user() -> None:
    problems = _roles({"role": "assistant", "content": "hi"}, _USER)
    assert len(problems) == 1
    assert problems[0].startswith("messages.0:")
    assert "'user'" in problems[0]


def test_check_roles_result_must_follow_its_call_immediately() -> None:
    problems = _roles(_USER, _use("a"), _USER, _results("a"))
    assert len(problems) == 1
    assert problems[0].startswith("messages.3.content.0:")
    assert "messages.1" in problems[0]


def test_check_roles_result_after_a_later_assistant_turn() -> None:
    problems = _roles(
        _USER, _use("a"), _results("a"), _use("b"), _results("b", "a"), _use("c"), _results("c")
    )
    assert problems == [
        "messages.4.content.1: tool_result for 'a' must be in the user message right after"
        " messages.1, which called it"
    ]


def test_check_roles_results_must_precede_text() -> None:
    problems = _roles(_USER, _use("a", "b"), _results("a", "b", text_first=True))
    assert len(problems) == 2
    assert all(p.startswith("messages.2.content.") for p in problems)
    assert all("must come first" in p for p in problems)


def test_check_roles_leaves_unknown_results_to_generic_checks() -> None:
    assert _roles(_USER, _use("a"), _results("a", "zzz")) == []
