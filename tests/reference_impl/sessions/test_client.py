"""The client over real sockets: the seed's SDK shape, a turn's events ending at its
result, client tools run by the client, a broken socket as the seed says, and the seams a
derived client (a session rogue) changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import BackendSpec, SessionAgentSpec
from conformance.wire import ScriptedProvider, text, text_blocks, tool_call
from reference_impl.adapter import ReferenceImplementation
from reference_impl.sessions import ResultEvent, SessionEvent
from reference_impl.sessions.client import (
    Session,
    SessionClient,
    SessionRefusedError,
    SessionUnusableError,
)
from tests.conftest import API_KEY

from .conftest import Runtime, echo_tool, one_pass, open_session


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
    assert {e.run_id for e in events[:-1]} == set(result.run_ids)
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
        _, session = await open_session(client)
        await session.send("Book.")
        await wire.hold("turn").arrived()
        await session.drop()
        events = await one_pass(session)
        with pytest.raises(SessionUnusableError):
            await session.send("Again.")
        with pytest.raises(SessionUnusableError):
            await session.next_event()
        wire.hold("turn").release()
    assert [e.type for e in events] == ["error", "result"]
    assert isinstance(events[-1], ResultEvent) and not events[-1].success


class SilentAtBreak(Session):
    """A session told nothing when its socket breaks (one client seam)."""

    def told_at_break(self) -> tuple[SessionEvent, ...]:
        return ()


class SilentClient(SessionClient):
    session_class = SilentAtBreak


async def test_a_derived_client_opens_its_own_sessions_and_the_adapter_drives_it(
    runtime: Runtime, loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    """The client seams a session rogue overrides: `SessionClient.session_class` is the
    session it opens, `Session.told_at_break` what a broken pass is told, and
    `ReferenceImplementation(session_client_class=...)` the client the door drives."""
    from conformance.wire import Hold

    wire = loopback_provider
    wire.script([Hold(label="turn", then=text("Booked."))])
    async with runtime() as (served, _), SilentClient(served.url) as client:
        _, session = await open_session(client)
        assert isinstance(session, SilentAtBreak)
        await session.send("Book.")
        await wire.hold("turn").arrived()
        await session.drop()
        with pytest.raises(SessionUnusableError):
            await session.next_event()  # no error, no failed result: nothing at all
        wire.hold("turn").release()
    spec = BackendSpec(base_url=wire.base_url or "", api_key=API_KEY, store=str(tmp_path / "b"))
    backend = await ReferenceImplementation(session_client_class=SilentClient).open_backend(spec)
    try:
        opened = await backend.resume_session(await backend.create_agent(SessionAgentSpec()))
        assert isinstance(opened.session, SilentAtBreak)
    finally:
        await backend.close()
