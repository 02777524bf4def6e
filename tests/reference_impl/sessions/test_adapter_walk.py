"""Each session law's core, walked through the adapter Protocols (BackendUnderTest,
SessionUnderTest) against the reference runtime and the loopback fake. The law tests
themselves live in conformance/laws; this is the reference's own check that its adapter
and runtime give each law what it asks for, judged on the wire first."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import (
    BackendSpec,
    BackendUnderTest,
    RefusalKind,
    Refused,
    SessionAgentSpec,
    SessionOptions,
    SessionUnderTest,
)
from conformance.wire import Dialect, Hold, ScriptedProvider, text, text_blocks, tool_call
from reference_impl.adapter import ReferenceImplementation, implementation
from tests.conftest import API_KEY

Open = Callable[..., "AsyncIterator[BackendUnderTest]"]


@pytest.fixture
def spec(loopback_provider: ScriptedProvider, tmp_path: Path) -> Callable[..., BackendSpec]:
    def make(killable: bool = False, **options: Any) -> BackendSpec:
        return BackendSpec(
            base_url=loopback_provider.base_url or "",
            api_key=API_KEY,
            store=str(tmp_path / "store"),
            killable=killable,
            **options,
        )

    return make


@pytest.fixture
async def backend(spec: Callable[..., BackendSpec]) -> AsyncIterator[BackendUnderTest]:
    opened = await implementation.open_backend(spec())
    assert isinstance(opened, BackendUnderTest)
    yield opened
    await opened.close()


async def _new_session(
    backend: BackendUnderTest, options: SessionOptions | None = None, **agent: Any
) -> tuple[str, SessionUnderTest]:
    """A new agent (`agent` for its spec) and a session on its default conversation."""
    agent_id = await backend.create_agent(SessionAgentSpec(**agent))
    return agent_id, await backend.resume_session(agent_id, options=options)


async def _turn(session: SessionUnderTest, message: str) -> list[str]:
    await session.send(message)
    passed = await session.stream()
    assert passed.ended == "result"
    return [event.type for event in passed.events]


def test_the_reference_declares_the_session_door_and_rogues_do_not() -> None:
    words = {c.value for c in implementation.capabilities}
    session_words = {
        "sessions",
        "session_abort",
        "session_state",
        "session_queue_remove",
        "session_approvals",
        "session_memory",
        "session_model",
        "session_client_tools",
        "session_drop",
        "session_kill",
        "conversations_api",
    }
    assert session_words <= words
    rogue = ReferenceImplementation(sessions=False, hosting=False)
    assert not session_words & {c.value for c in rogue.capabilities}


async def test_new_sessions_are_new_conversations_and_resume_continues_exactly_one(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([text("Default."), text("A."), text("B."), text("A again.")])
    agent_id, default = await _new_session(backend)
    await _turn(default, "to default")
    a = await backend.create_session(agent_id)
    await _turn(a, "to a")
    b = await backend.create_session(agent_id)
    await _turn(b, "to b")
    conversations = [(await s.ids()).conversation_id for s in (default, a, b)]
    await a.close()
    resumed = await backend.resume_session(conversations[1])
    await _turn(resumed, "to a again")
    assert len(set(conversations)) == 3
    assert [r.user_texts() for r in wire.wire.requests] == [
        ["to default"],
        ["to a"],
        ["to b"],
        ["to a", "to a again"],
    ]
    assert (await resumed.ids()).conversation_id == conversations[1]
    assert await backend.list_conversations(agent_id) == conversations
    listed = await backend.list_messages(conversations[1])
    assert [(m.role, m.text) for m in listed] == [
        ("user", "to a"),
        ("assistant", "A."),
        ("user", "to a again"),
        ("assistant", "A again."),
    ]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("dialect", list(Dialect), ids=lambda d: d.value)
async def test_one_result_per_turn_with_its_full_text_tool_call_and_run_ids(
    spec: Callable[..., BackendSpec],
    loopback_provider: ScriptedProvider,
    dialect: Dialect,
    stream: bool,
) -> None:
    wire = loopback_provider
    wire.dialect = dialect
    wire.script([tool_call("echo", {"text": "x"}), text_blocks("Done ", "twice."), text("Next.")])
    backend = await implementation.open_backend(spec(dialect=dialect, stream=stream))
    _, session = await _new_session(backend, SessionOptions(tools=("echo",)))
    await session.send("Echo x.")
    first = await session.stream()
    second_types = await _turn(session, "Next?")
    result = first.result
    assert result is not None and result.success and result.text == "Done twice."
    assert [e.type for e in first.events] == ["tool_call", "tool_result", "assistant", "result"]
    assert result.stop_reason and result.duration_ms is not None
    assert result.run_ids and all(
        getattr(e, "run_id", None) in result.run_ids for e in first.events[:-1]
    )
    await backend.close()
    assert second_types == ["assistant", "result"]
    assert wire.wire.requests[1].messages[-1].text == "x"  # the tool ran, the model saw it
    assert all(r.dialect is dialect and r.stream is stream for r in wire.wire.requests)


async def test_queued_messages_each_run_in_order_and_one_can_be_removed(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="first", then=text("One.")), text("Three.")])
    _, session = await _new_session(backend)
    await session.send("one")
    await wire.hold("first").arrived()
    second = await session.send("two")
    await session.send("three")
    assert second is not None and await session.remove_queued(second)
    wire.hold("first").release()
    passes = [await session.stream(), await session.stream()]
    assert all(p.ended == "result" for p in passes)
    assert [r.user_texts() for r in wire.wire.requests] == [["one"], ["one", "three"]]
    assert wire.wire.last.assistant_texts() == ["One."]


async def test_abort_cancels_the_held_turn_and_the_session_goes_on(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="slow", then=text("never shown")), text("Fresh.")])
    _, session = await _new_session(backend)
    await session.send("slow one")
    await wire.hold("slow").arrived()
    await session.abort()
    aborted = await session.stream()
    assert not wire.hold("slow").is_released  # the result came before the provider answered
    wire.hold("slow").release()
    await _turn(session, "fresh one")
    assert aborted.result is not None and not aborted.result.success
    assert aborted.result.stop_reason == "cancelled"
    assert wire.wire.last.user_texts() == ["fresh one"]


async def test_a_dropped_session_is_unusable_and_its_turn_finishes_in_the_runtime(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([Hold(label="held", then=text("Booked.")), text("Yes, booked.")])
    _, session = await _new_session(backend)
    conversation = (await session.ids()).conversation_id
    await session.send("Book.")
    await wire.hold("held").arrived()
    await session.break_connection("drop")
    ended = await session.stream()
    with pytest.raises(Refused) as refused:
        await session.send("Again.")
    wire.hold("held").release()
    again = await backend.resume_session(conversation)
    await again.send("Did it work?")
    fresh = await again.stream()
    listed = await again.list_messages()
    assert [e.type for e in ended.events] == ["error", "result"]
    assert ended.result is not None and not ended.result.success
    assert refused.value.kind is RefusalKind.SESSION_UNUSABLE
    # nothing replayed: only the new turn's events (queued behind the dropped turn, if
    # that was still playing when it arrived)
    assert [e.type for e in fresh.events if e.type != "queue"] == ["assistant", "result"]
    assert wire.wire.last.turns() == [
        ("user", "Book."),
        ("assistant", "Booked."),
        ("user", "Did it work?"),
    ]
    assert [(m.role, m.text) for m in listed][:2] == [("user", "Book."), ("assistant", "Booked.")]


async def test_memory_model_update_and_session_scoped_tools(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([text("a"), text("b"), text("c")])
    options = SessionOptions(tools=("echo",), model="turnlaw-model-2")
    agent_id, first = await _new_session(
        backend, options, system="Book tables.", memory={"human": "Ann, vegetarian"}
    )
    await _turn(first, "one")
    await first.close()
    later = await backend.resume_session(agent_id)
    await _turn(later, "two")
    other = await backend.create_session(agent_id)
    await _turn(other, "three")
    requests = wire.wire.requests
    assert all("Ann, vegetarian" in r.system and "Book tables." in r.system for r in requests)
    assert [r.model for r in requests] == ["turnlaw-model-2"] * 3
    assert [[t.name for t in r.tools] for r in requests] == [["echo"], [], []]


@pytest.mark.parametrize("allow", [True, False])
async def test_a_pending_approval_survives_a_drop_and_is_decided_from_a_resumed_session(
    backend: BackendUnderTest, loopback_provider: ScriptedProvider, allow: bool
) -> None:
    wire = loopback_provider
    wire.script([tool_call("echo", {"text": "refund"}), text("Handled.")])
    options = SessionOptions(tools=("echo",), needs_approval=("echo",))
    _, session = await _new_session(backend, options)
    await session.send("Refund it.")
    asked = await session.stream()
    assert asked.ended == "approval"
    await session.break_connection("drop")
    assert len(wire.wire) == 1  # nothing sent to the model while it waits
    resumed = await backend.resume_session((await session.ids()).conversation_id)
    state = await resumed.state()
    (pending,) = state.pending_approvals
    await resumed.decide(pending.tool_call_id, allow)
    finished = await resumed.stream()
    assert finished.result is not None and finished.result.success
    shown = wire.wire.last.messages[-1]
    assert shown.role == "tool"
    if allow:
        assert shown.text == "refund" and not shown.is_error
    else:
        assert "denied" in shown.text and shown.text != "refund"


@pytest.mark.timeout(300)  # two runtime processes: on a busy machine, past 60 s
async def test_a_killed_runtime_keeps_the_message_it_took_and_a_new_process_goes_on(
    spec: Callable[..., BackendSpec], loopback_provider: ScriptedProvider
) -> None:
    wire = loopback_provider
    wire.script([text("Booked."), Hold(label="cut", then=text("never")), text("Still booked.")])
    first = await implementation.open_backend(spec(killable=True))
    agent_id = await first.create_agent(SessionAgentSpec(memory={"human": "Ann"}))
    session = await first.resume_session(agent_id)
    await _turn(session, "Book.")
    await session.send("Cancel?")
    await wire.hold("cut").arrived()
    await session.break_connection("kill")
    ended = await session.stream()  # the open pass ends: an error, then a failed result
    with pytest.raises(Refused) as refused:
        await session.stream()
    await first.kill()
    wire.hold("cut").release()
    again = await implementation.open_backend(spec(killable=True))
    conversation = (await session.ids()).conversation_id
    listed = await again.list_messages(conversation)
    resumed = await again.resume_session(conversation)
    await _turn(resumed, "Is it booked?")
    await again.close()
    assert [e.type for e in ended.events] == ["error", "result"]
    assert refused.value.kind is RefusalKind.SESSION_UNUSABLE
    assert ("user", "Cancel?") in [(m.role, m.text) for m in listed]  # it reached the runtime
    assert wire.wire.last.user_texts() == ["Book.", "Is it booked?"]
    assert "Ann" in wire.wire.last.system
