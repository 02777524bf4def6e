"""The runtime core through its client, judged on the fake's wire and the store: the
conversation's FIFO queue, abort as a cancelled model request, approvals, a turn that
outlives its socket, failures told as an error and a failed result."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.wire import Fault, Hold, ScriptedProvider, text, tool_call
from reference_impl import make_provider
from reference_impl.conversation import ToolSpec, Turn
from reference_impl.providers import ModelReply
from reference_impl.sessions import QueueEvent, ResultEvent
from reference_impl.sessions.client import ClientTool
from reference_impl.store import damage_session, sqlite_runtime_store
from tests.conftest import API_KEY

from .conftest import Runtime, echo_tool, one_pass, open_session, receipt_states


class CancelProbe:
    """The runtime's provider, counting model calls that were cancelled mid-request."""

    def __init__(self, wire: ScriptedProvider) -> None:
        self.inner = make_provider("openai-chat", base_url=wire.base_url, api_key=API_KEY)
        self.cancelled = 0

    async def complete(
        self, *, model: str, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        try:
            return await self.inner.complete(model=model, system=system, turns=turns, tools=tools)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


async def test_messages_sent_during_a_turn_each_get_a_turn_in_order(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="a", then=text("A.")), text("B."), text("C.")])
    async with runtime() as (_, client):
        _, session = await open_session(client)
        await session.send("a")
        await wire.hold("a").arrived()
        b = await session.send("b")
        c = await session.send("c")
        wire.hold("a").release()
        passes = [await one_pass(session) for _ in range(3)]
    queue = [(e.action, e.item_ids) for p in passes for e in p if isinstance(e, QueueEvent)]
    assert queue == [
        ("enqueued", (b,)),
        ("enqueued", (c,)),
        ("dequeued", (b,)),
        ("dequeued", (c,)),
    ]
    assert [e.type for e in passes[1]] == ["queue", "assistant", "result"]
    assert [p[-1].text for p in passes if isinstance(p[-1], ResultEvent)] == ["A.", "B.", "C."]
    assert [r.user_texts() for r in wire.wire.requests] == [["a"], ["a", "b"], ["a", "b", "c"]]


async def test_abort_cancels_the_model_request_and_settles_the_receipt(
    runtime: Runtime, loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="slow", then=text("too late")), text("Fine.")])
    probe = CancelProbe(wire)
    async with runtime(provider=probe) as (_, client):
        agent, session = await open_session(client)
        await session.send("slow")
        await wire.hold("slow").arrived()
        assert await session.abort()
        aborted = await one_pass(session)
        cancelled_before_release = probe.cancelled
        wire.hold("slow").release()
        await session.send("again")
        after = await one_pass(session)
        assert not await session.abort()  # nothing plays now
    result = aborted[-1]
    assert isinstance(result, ResultEvent) and result.stop_reason == "cancelled"
    assert not result.success and result.run_ids is not None  # the run had started
    assert cancelled_before_release == 1
    assert isinstance(after[-1], ResultEvent) and after[-1].text == "Fine."
    assert wire.wire.last.user_texts() == ["again"]  # the aborted message is not history
    states = receipt_states(tmp_path / "sessions.db", agent.default_conversation_id)
    assert states == ["aborted", "completed"]


async def test_a_turn_whose_socket_dropped_runs_on_and_persists(
    runtime: Runtime, loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="held", then=text("Booked."))])
    async with runtime() as (served, client):
        agent, session = await open_session(client)
        await session.send("Book.")
        await wire.hold("held").arrived()
        await session.drop()
        wire.hold("held").release()
        worker = served.runtime.lanes[agent.default_conversation_id].worker
        assert worker is not None
        await worker
        listed = await client.conversations.list_messages(agent.default_conversation_id)
    assert [(m.role, m.text) for m in listed] == [("user", "Book."), ("assistant", "Booked.")]
    states = receipt_states(tmp_path / "sessions.db", agent.default_conversation_id)
    assert states == ["completed"]


async def test_a_denied_call_never_runs_and_the_model_is_shown_the_denial(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    calls: list[dict[str, Any]] = []
    wire.script([tool_call("echo", {"text": "refund"}), text("Not refunded.")])
    async with runtime() as (_, client):
        _, session = await open_session(client, tools=[echo_tool(calls)], needs_approval=["echo"])
        await session.send("Refund.")
        called, asked = await session.next_event(), await session.next_event()
        assert called.type == "tool_call" and asked.type == "approval_request"
        pending = (await session.state()).pending_approvals
        assert len(wire.wire) == 1
        assert await session.decide(asked.tool_call_id, False)
        rest = await one_pass(session)
        assert (await session.state()).pending_approvals == ()
    assert [p.tool_call_id for p in pending] == [asked.tool_call_id]
    assert calls == []
    shown = wire.wire.last.messages[-1]
    assert shown.role == "tool" and "denied" in shown.text
    assert [e.type for e in rest] == ["tool_result", "assistant", "result"]


async def test_the_approval_policy_is_the_sending_sessions_own(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    calls: list[dict[str, Any]] = []
    wire.script([tool_call("echo", {"text": "x"}), text("Done.")])
    async with runtime() as (_, client):
        agent = await client.create_agent()
        careful = await client.resume_session(
            agent.id, tools=[echo_tool(calls)], needs_approval=["echo"]
        )
        await careful.close()
        trusting = await client.resume_session(agent.id, tools=[echo_tool(calls)])
        await trusting.send("Echo x.")
        events = await one_pass(trusting)
    assert "approval_request" not in [e.type for e in events]
    assert calls == [{"text": "x"}]


async def test_a_failed_turn_is_an_error_then_a_failed_result_with_its_run(
    runtime: Runtime, loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([Fault(status=400, message="bad request")])
    async with runtime() as (_, client):
        agent, session = await open_session(client)
        await session.send("Hi.")
        events = await one_pass(session)
        listed = await session.list_messages()
    error, result = events
    assert error.type == "error" and error.run_id is not None
    assert isinstance(result, ResultEvent) and not result.success
    assert result.stop_reason == "error" and result.run_ids == (error.run_id,)
    assert [(m.role, m.text) for m in listed] == [("user", "Hi.")]  # it reached the runtime
    store = sqlite_runtime_store(tmp_path / "sessions.db")
    assert [r.state for r in store.receipts(agent.default_conversation_id)] == ["failed"]
    assert store.load(agent.default_conversation_id) is None
    store.close()


async def test_an_unreadable_conversation_fails_before_any_run(
    runtime: Runtime, loopback_provider: ScriptedProvider, tmp_path: Path
) -> None:
    wire = loopback_provider
    wire.script([text("Hello.")])
    path = tmp_path / "sessions.db"
    async with runtime() as (_, client):
        agent, session = await open_session(client)
        await session.send("Hi.")
        await one_pass(session)
        await session.close()
    damage_session(path, agent.default_conversation_id)
    async with runtime() as (_, client):
        session = await client.resume_session(agent.id)
        await session.send("Again.")
        events = await one_pass(session)
    error, result = events
    assert error.type == "error" and "cannot be read" in error.message
    assert isinstance(result, ResultEvent) and not result.success and result.run_ids is None
    assert len(wire.wire) == 1


async def test_a_client_tool_that_fails_is_shown_to_the_model_as_an_error(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([tool_call("boom", {}), text("Sorry.")])

    def boom(arguments: dict[str, Any]) -> str:
        raise RuntimeError("the service is down")

    async with runtime() as (_, client):
        _, session = await open_session(client, tools=[ClientTool("boom", boom)])
        await session.send("Go.")
        events = await one_pass(session)
    results = [e for e in events if e.type == "tool_result"]
    assert len(results) == 1 and results[0].is_error
    shown = wire.wire.last.messages[-1]
    assert shown.role == "tool" and shown.text == results[0].content
    assert "the service is down" in shown.text


async def test_only_a_waiting_message_can_be_removed(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="a", then=text("A."))])
    async with runtime() as (_, client):
        _, session = await open_session(client)
        playing = await session.send("a")
        await wire.hold("a").arrived()
        assert not await session.remove_queued(playing)
        assert not await session.remove_queued("message-unknown")
        waiting = await session.send("b")
        assert await session.remove_queued(waiting)
        assert not await session.remove_queued(waiting)
        wire.hold("a").release()
        events = await one_pass(session)
    assert [e.type for e in events][-1] == "result"
    assert ("removed", (waiting,)) in [
        (e.action, e.item_ids) for e in events if isinstance(e, QueueEvent)
    ]
    assert len(wire.wire) == 1


async def test_listed_messages_keep_arrival_order_with_an_aborted_message_among_turns(
    runtime: Runtime, loopback_provider: ScriptedProvider
) -> None:
    """A client reconciling its history reads what it sent in the order it sent it: an
    aborted message is listed where it arrived, before the turn that came after it."""
    wire = loopback_provider
    wire.script([text("One."), Hold(label="slow", then=text("never")), text("Two.")])
    async with runtime() as (_, client):
        _, session = await open_session(client)
        await session.send("first")
        await one_pass(session)
        await session.send("aborted")
        await wire.hold("slow").arrived()
        assert await session.abort()
        await one_pass(session)
        wire.hold("slow").release()
        await session.send("second")
        await one_pass(session)
        listed = [(m.role, m.text) for m in await session.list_messages()]
    assert listed == [
        ("user", "first"),
        ("assistant", "One."),
        ("user", "aborted"),
        ("user", "second"),
        ("assistant", "Two."),
    ]
