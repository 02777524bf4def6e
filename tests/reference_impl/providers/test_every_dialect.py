"""Every provider, both call modes, both transports: what the fake saw and what came back.

These assertions are on the neutral IR (or on body keys the three dialects share), so they
read the same for all three; the dialect-specific wire shapes are checked in each
provider's own module.
"""

from __future__ import annotations

import pytest

from conformance.wire import Fault, ScriptedProvider, parallel_calls, text, tool_call
from conformance.wire import ToolSpec as WireToolSpec
from reference_impl.conversation import Turn
from reference_impl.providers import ModelReply
from tests.conftest import API_KEY

from ._support import (
    API_ERRORS,
    DIALECTS,
    ECHO,
    HISTORY,
    HISTORY_ROLES,
    PROVIDERS,
    SDK_CLIENTS,
    SYSTEM,
    build,
    model_for,
    sent_body,
)

pytestmark = pytest.mark.parametrize("dialect", DIALECTS)

ASK = (Turn(role="user", text="Book a table for two."),)


async def test_text_reply(dialect: str, fake: ScriptedProvider, stream: bool) -> None:
    fake.script([text("Booked for two.")])
    llm = build(dialect, fake, stream=stream)
    reply = await llm.complete(model=model_for(dialect), system=SYSTEM, turns=ASK, tools=[])
    assert reply == ModelReply(text="Booked for two.")
    request = fake.wire.last
    assert request.dialect == dialect
    assert request.model == model_for(dialect)
    assert request.system == SYSTEM
    assert [(m.role, m.text) for m in request.messages] == [("user", "Book a table for two.")]
    assert request.tools == ()
    assert request.stream is stream


async def test_tool_call_reply(dialect: str, fake: ScriptedProvider, stream: bool) -> None:
    fake.script([tool_call("echo", {"text": "hi"})])
    llm = build(dialect, fake, stream=stream)
    reply = await llm.complete(model=model_for(dialect), system=SYSTEM, turns=ASK, tools=[ECHO])
    assert reply.text == ""
    (call,) = reply.tool_calls
    assert (call.name, call.arguments) == ("echo", {"text": "hi"})
    assert call.id
    request = fake.wire.last
    assert request.tools == (WireToolSpec(**ECHO.model_dump()),)
    assert request.stream is stream


async def test_parallel_tool_calls(dialect: str, fake: ScriptedProvider, stream: bool) -> None:
    fake.script([parallel_calls(("echo", {"text": "a"}), ("echo", {"text": "b"}), text="Both.")])
    llm = build(dialect, fake, stream=stream)
    reply = await llm.complete(model=model_for(dialect), system="", turns=ASK, tools=[ECHO])
    assert reply.text == "Both."
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("echo", {"text": "a"}),
        ("echo", {"text": "b"}),
    ]
    assert len({c.id for c in reply.tool_calls}) == 2
    assert fake.wire.last.system == ""


async def test_history_is_sent_whole_and_in_order(
    dialect: str, fake: ScriptedProvider, stream: bool
) -> None:
    fake.script([text("hi, a, and an error for b.")])
    llm = build(dialect, fake, stream=stream)
    reply = await llm.complete(model=model_for(dialect), system=SYSTEM, turns=HISTORY, tools=[ECHO])
    assert reply == ModelReply(text="hi, a, and an error for b.")
    request = fake.wire.last
    assert [m.role for m in request.messages] == HISTORY_ROLES
    assert request.turns() == [
        ("user", "Echo hi, then a and b."),
        ("assistant", ""),
        ("assistant", "Now both."),
        ("user", "Thanks. What did you hear?"),
    ]
    calls = [c for m in request.messages for c in m.tool_calls]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_1", "echo", {"text": "hi"}),
        ("call_2", "echo", {"text": "a"}),
        ("call_3", "echo", {"text": "b"}),
    ]
    results = [(m.tool_call_id, m.text) for m in request.messages if m.role == "tool"]
    assert results == [("call_1", "hi"), ("call_2", "a"), ("call_3", "echo is tired")]


async def test_a_reply_continues_the_conversation(
    dialect: str, fake: ScriptedProvider, stream: bool
) -> None:
    """The ids the provider minted come back verbatim when the runtime answers the call."""
    fake.script([tool_call("echo", {"text": "hi"}), text("It said hi.")])
    llm = build(dialect, fake, stream=stream)
    model = model_for(dialect)
    first = await llm.complete(model=model, system=SYSTEM, turns=ASK, tools=[ECHO])
    (call,) = first.tool_calls
    turns = [
        *ASK,
        Turn(role="assistant", text=first.text, tool_calls=first.tool_calls),
        Turn(role="tool", text="hi", tool_call_id=call.id),
    ]
    second = await llm.complete(model=model, system=SYSTEM, turns=turns, tools=[ECHO])
    assert second.text == "It said hi."
    request = fake.wire.last
    assert [m.role for m in request.messages] == ["user", "assistant", "tool"]
    assert request.messages[1].tool_calls[0].id == call.id
    assert request.messages[2].tool_call_id == call.id
    assert len(fake.wire.requests) == 2


async def test_api_error_surfaces_as_the_sdk_exception(
    dialect: str, fake: ScriptedProvider, stream: bool
) -> None:
    fake.script([Fault(status=400, message="bad turn order")])
    llm = build(dialect, fake, stream=stream)
    with pytest.raises(API_ERRORS[dialect], match="bad turn order"):
        await llm.complete(model=model_for(dialect), system=SYSTEM, turns=ASK, tools=[])
    assert fake.wire.last.stream is stream


async def test_an_empty_system_and_no_tools_are_left_out(
    dialect: str, fake: ScriptedProvider, stream: bool
) -> None:
    body = await sent_body(dialect, fake, stream=stream, system="", turns=HISTORY[:1], tools=())
    assert not {"system", "instructions", "tools"} & body.keys()
    sent = body["input" if dialect == "openai-responses" else "messages"]
    assert [m["role"] for m in sent] == ["user"]  # Chat: no system message either


async def test_an_injected_client_is_the_one_used_and_streams_by_default(
    dialect: str, fake: ScriptedProvider
) -> None:
    fake.script([text("Through your client.")])
    client = SDK_CLIENTS[dialect](base_url=fake.base_url, api_key=API_KEY, max_retries=0)
    llm = PROVIDERS[dialect](client=client)
    reply = await llm.complete(model=model_for(dialect), system="", turns=ASK, tools=[])
    assert reply.text == "Through your client."
    assert llm.client is client
    assert fake.wire.last.stream is True
