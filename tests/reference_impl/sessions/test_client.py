"""The client over real sockets: the seed's SDK shape, a turn's events ending at its
result, client tools run by the client, and a broken socket as the seed says."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.wire import ScriptedProvider, text, text_blocks, tool_call
from reference_impl.sessions import ResultEvent
from reference_impl.sessions.client import SessionRefusedError, SessionUnusableError

from .conftest import Runtime, echo_tool


async def test_a_new_agent_is_usable_at_once_and_a_turn_ends_at_its_result(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    calls: list[dict[str, Any]] = []
    wire.script([tool_call("echo", {"text": "two"}), text_blocks("Booked ", "for two.")])
    async with runtime() as (_, client):
        agent = await client.create_agent(system="You book.", memory={"human": "Ann"})
        session = await client.resume_session(agent.id, tools=[echo_tool(calls)])
        assert session.agent_id == agent.id
        assert session.conversation_id == agent.default_conversation_id
        assert session.session_id == f"{agent.id}:{agent.default_conversation_id}"
        item = await session.send("Book for two.")
        events = [event async for event in session.stream()]
        await session.close()
    kinds = [event.type for event in events]
    assert kinds == ["tool_call", "tool_result", "assistant", "result"]
    result = events[-1]
    assert isinstance(result, ResultEvent)
    assert result.success and result.text == "Booked for two." and result.stop_reason == "end_turn"
    assert result.duration_ms is not None and result.run_ids is not None
    assert {e.run_id for e in events[:-1]} == set(result.run_ids)  # type: ignore[union-attr]
    assert item.startswith("message-") and agent.id.startswith("agent-")
    assert calls == [{"text": "two"}]
    first, second = wire.wire.exchanges
    assert first.ir is not None and second.ir is not None
    assert first.ir.user_texts() == ["Book for two."]
    assert "You book." in first.ir.system and "Ann" in first.ir.system
    assert [t.name for t in first.ir.tools] == ["echo"]
    assert second.ir.messages[-1].role == "tool"


async def test_an_unknown_id_is_refused_typed(runtime: Runtime) -> None:
    async with runtime() as (_, client):
        for unknown in ("agent-nobody", "conv-nothing", "neither"):
            with pytest.raises(SessionRefusedError) as raised:
                await client.resume_session(unknown)
            assert raised.value.code == "ERR_UNKNOWN_ID"
        with pytest.raises(SessionRefusedError):
            await client.create_session("agent-nobody")
        with pytest.raises(SessionRefusedError):
            await client.conversations.list_messages("conv-nothing")


async def test_a_dropped_socket_ends_the_open_pass_and_refuses_reuse(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    from conformance.wire import Hold

    wire = loopback_provider
    wire.script([Hold(label="turn", then=text("Booked."))])
    async with runtime() as (_, client):
        agent = await client.create_agent()
        session = await client.resume_session(agent.id)
        await session.send("Book.")
        await wire.hold("turn").arrived()
        await session.drop()
        events = [event async for event in session.stream()]
        with pytest.raises(SessionUnusableError):
            await session.send("Again.")
        with pytest.raises(SessionUnusableError):
            await session.next_event()
        wire.hold("turn").release()
    assert [e.type for e in events] == ["error", "result"]
    assert isinstance(events[-1], ResultEvent) and not events[-1].success
