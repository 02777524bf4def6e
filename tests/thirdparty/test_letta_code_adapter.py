"""Adapter-specific checks for conformance.frameworks.letta_code, against the loopback fake.

The laws judge Letta Code; these drive the real CLI and pin what the adapter itself must
get right, and the facts of Letta Code 0.34.12 that docs/letta-code.md cites: nothing is
made up (run ids, stop reasons and session ids are the CLI's), the session's client tools
are the only tools offered and run here, a permission request ends a pass until
`decide`, the SDK's own `resumeSession` rule is kept, a broken or closed session refuses
reuse. The reading of single lines is test_letta_code_lines.py.

One fake (its own loopback server) and one store serve the whole module: each test tags
its messages and scripts only requests whose last user message carries its tag, so the
tests share the CLI's set-up (connect, create the agent) without sharing a script.
Skipped (not passed) when Letta Code is not installed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from conformance.adapter import (
    AgentSpec,
    ApprovalRequestEvent,
    AssistantEvent,
    BackendSpec,
    ErrorEvent,
    QueueEvent,
    RefusalKind,
    Refused,
    SessionAgentSpec,
    SessionOptions,
    ToolCallEvent,
    ToolResultEvent,
)
from conformance.wire import Hold, LoopbackServer, RequestIR, ScriptedProvider, text, tool_call

pytest.importorskip(
    "letta_code", reason="Letta Code is not installed (pip install 'turnlaw[letta]')"
)

from conformance.frameworks.letta_code import implementation
from conformance.frameworks.letta_code._letta_backend import LettaBackend

pytestmark = pytest.mark.timeout(240)
on_the_cli = pytest.mark.asyncio(loop_scope="module")
"""The tests that drive the CLI share the module's event loop, where its processes live."""

KEY = "sk-turnlaw-letta-SECRET-7"
MODEL = "turnlaw-fake"
SYSTEM = "You are Bookbot. Answer in one line."


@pytest.fixture(scope="module")
def provider() -> Iterator[ScriptedProvider]:
    fake = ScriptedProvider()
    with LoopbackServer(fake):
        yield fake
    fake.verify()  # every request the CLI made was scripted, every step used


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def backend(
    provider: ScriptedProvider, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LettaBackend]:
    provider.script([text("unused")], model=MODEL, when=lambda r: False, allow_unused=True)
    spec = BackendSpec(
        base_url=provider.base_url or "",
        api_key=KEY,
        model=MODEL,
        store=str(tmp_path_factory.mktemp("letta-store")),
    )
    opened = await implementation.open_backend(spec)
    yield opened
    await opened.kill()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent_id(backend: LettaBackend) -> str:
    return await backend.create_agent(SessionAgentSpec(system=SYSTEM))


def last_user(request: RequestIR) -> str:
    texts = request.user_texts()
    return texts[-1] if texts else ""


def tagged(tag: str) -> Callable[[RequestIR], bool]:
    return lambda request: tag in last_user(request)


def script(provider: ScriptedProvider, tag: str, steps: list[Any], model: str = MODEL) -> None:
    provider.script(steps, model=model, when=tagged(tag), name=tag)


def requests(provider: ScriptedProvider, tag: str) -> list[RequestIR]:
    """The requests of the test's turns: its tag is in their last user message."""
    return [r for r in provider.wire.requests if tag in last_user(r)]


@on_the_cli
async def test_a_turn_on_the_default_conversation_reports_the_clis_own_values(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(provider, "[t1]", [text("A table for two is booked.")])
    assert agent_id.startswith("agent-local-")
    session = await backend.resume_session(agent_id)
    ids = await session.ids()
    assert (ids.agent_id, ids.conversation_id) == (agent_id, "default")
    assert ids.session_id == agent_id, "init's session_id is the agent id (not agent:conv)"
    assert await session.send("Book a table for two. [t1]") is None
    passed = await session.stream()
    assert passed.ended == "result"
    result = passed.result
    assert result is not None and result.success and result.text == "A table for two is booked."
    assert result.run_ids == () and result.stop_reason is None, "the CLI's [] and no stop_reason"
    answers = [e for e in passed.events if isinstance(e, AssistantEvent)]
    assert [a.run_id for a in answers] == ["local-run-1"]
    (request,) = requests(provider, "[t1]")
    assert last_user(request).endswith("Book a table for two. [t1]")
    assert request.system.startswith(SYSTEM), "--system-custom is the agent's system prompt"
    assert request.tools == (), "no built-in tool is offered"
    await session.close()
    assert session.process.returncode is not None, "close() ends the CLI"
    with pytest.raises(Refused) as refused:
        await session.send("again [t1]")
    assert refused.value.kind is RefusalKind.SESSION_UNUSABLE
    with pytest.raises(Refused):
        await session.stream()


@on_the_cli
async def test_a_conversation_id_goes_to_the_clis_own_flag_and_default_names_no_conversation(
    backend: LettaBackend, agent_id: str
) -> None:
    """Local conversation ids (`local-conv-N`) are not `conv-` ids, so SDK 0.1.14's rule
    would send one as an agent id ("Agent local-conv-N not found"); the adapter sends any
    id that is not an agent's to `--conversation`, which resumes it. The default
    conversation's id, `default`, names no conversation without its agent."""
    session = await backend.create_session(agent_id)
    conversation = (await session.ids()).conversation_id
    await session.close()
    assert conversation.startswith("local-conv-"), "local ids are not conv- ids"
    resumed = await backend.resume_session(conversation)
    assert (await resumed.ids()).conversation_id == conversation
    await resumed.close()
    with pytest.raises(Refused) as refused:
        await backend.resume_session("default")
    assert refused.value.kind is RefusalKind.UNKNOWN_ID


@on_the_cli
async def test_client_tools_are_the_only_tools_offered_and_run_in_the_adapter(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(
        provider,
        "[t3]",
        [
            tool_call("echo", {"text": "ping"}, text="Let me run them. "),
            tool_call("whoami"),
            text("Both ran."),
        ],
    )
    session = await backend.create_session(agent_id, SessionOptions(tools=("echo", "whoami")))
    await session.send("Run the tools. [t3]")
    passed = await session.stream()
    await session.close()
    results = [e for e in passed.events if isinstance(e, ToolResultEvent)]
    assert [r.content for r in results] == ["ping", '{"identity": null, "session_id": null}']
    calls = [e for e in passed.events if isinstance(e, ToolCallEvent)]
    assert [c.tool_name for c in calls] == ["echo", "whoami"]
    said = [e.text for e in passed.events if isinstance(e, AssistantEvent)]
    assert said == ["Let me run them. ", "Both ran."]
    assert passed.result is not None and passed.result.text == "Both ran.", "the last one only"
    shown = requests(provider, "[t3]")
    assert {tool.name for tool in shown[0].tools} == {"echo", "whoami"}
    assert [m.text for m in shown[-1].messages if m.role == "tool"][-2:] == [
        r.content for r in results
    ]


@on_the_cli
async def test_a_permission_request_ends_the_pass_until_the_person_decides(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(
        provider,
        "[t4]",
        [
            tool_call("echo", {"text": "no"}),
            text("Not sent."),
            tool_call("echo", {"text": "yes"}),
            text("Sent."),
        ],
    )
    options = SessionOptions(tools=("echo",), needs_approval=("echo",))
    session = await backend.create_session(agent_id, options)
    await session.send("Echo something. [t4]")
    paused = await session.stream()
    assert paused.ended == "approval"
    asked = paused.events[-1]
    assert isinstance(asked, ApprovalRequestEvent) and asked.arguments == {"text": "no"}
    assert len(requests(provider, "[t4]")) == 1, "nothing more is sent while it waits"
    await session.decide(asked.tool_call_id, allow=False)
    denied = await session.stream()
    assert denied.ended == "result"
    (shown,) = [m for m in requests(provider, "[t4]")[-1].messages if m.role == "tool"]
    assert "Denied by canUseTool callback" in shown.text, "the model is shown the denial"
    await session.send("Echo again. [t4]")
    again = await session.stream()
    await session.decide(again.events[-1].tool_call_id, allow=True)  # type: ignore[union-attr]
    allowed = await session.stream()
    await session.close()
    ran = [e for e in allowed.events if isinstance(e, ToolResultEvent)]
    assert [(r.content, r.is_error) for r in ran] == [("yes", False)]
    assert [m.text for m in requests(provider, "[t4]")[-1].messages if m.role == "tool"][
        -1
    ] == "yes"


@on_the_cli
async def test_messages_sent_while_a_turn_is_held_are_queued_and_run_as_one_turn(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    held = Hold(label="t5-hold", then=text("First done."))
    script(provider, "[t5]", [held, text("Both done.")])
    session = await backend.create_session(agent_id)
    await session.send("First. [t5]")
    await held.arrived(30)
    assert await session.send("Second. [t5]") is None, "no item id is known when sent"
    await session.send("Third. [t5]")
    await asyncio.sleep(0.5)
    held.release()
    first = await session.stream()
    second = await session.stream()
    await session.close()
    assert first.result is not None and first.result.text == "First done."
    dequeued = [e for e in second.events if isinstance(e, QueueEvent) and e.action == "dequeued"]
    assert len(dequeued) == 1 and len(dequeued[0].item_ids) == 2, "one batch of two"
    assert second.result is not None and second.result.text == "Both done."
    merged = requests(provider, "[t5]")[-1]
    assert last_user(merged) == "Second. [t5]\nThird. [t5]"
    assert merged.assistant_texts()[-1] == "First done."


@on_the_cli
async def test_abort_is_the_interrupt_request_and_the_cli_waits_for_the_provider(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    held = Hold(label="t6-hold", then=text("Too late."))
    script(provider, "[t6]", [held])
    session = await backend.create_session(agent_id)
    await session.send("Start something long. [t6]")
    await held.arrived(30)
    await session.abort()
    waiting = await session.stream(wait=1.5)
    assert waiting.ended == "waiting" and waiting.result is None, "no result while held"
    held.release()
    ended = await session.stream()
    assert ended.result is not None and not ended.result.success
    await session.send("Next. [t6]")
    refused = await session.stream()
    await session.close()
    errors = [e.message for e in refused.events if isinstance(e, ErrorEvent)]
    assert any("already has an active run" in message for message in errors), errors
    assert refused.result is not None and refused.result.stop_reason == "error"


@on_the_cli
async def test_a_dropped_connection_refuses_reuse_and_the_cli_exits_at_its_next_write(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    held = Hold(label="t7-hold", then=text("Answered after the drop."))
    script(provider, "[t7]", [held])
    session = await backend.resume_session(agent_id)
    await session.send("Are you there? [t7]")
    await held.arrived(30)
    await session.break_connection("drop")
    closed = await session.stream()
    assert closed.ended == "closed" and closed.result is None, "no error or result made up"
    for call in (session.send("again [t7]"), session.stream()):
        with pytest.raises(Refused) as refused:
            await call
        assert refused.value.kind is RefusalKind.SESSION_UNUSABLE
    held.release()
    # the CLI's stdout guard: EPIPE on its next write is process.exit(0), mid-turn
    assert await session.process.wait_exit(30) == 0
    resumed = await backend.resume_session(agent_id)
    listed = await resumed.list_messages()
    await resumed.close()
    tail = [(m.role, m.text.split("\n")[-1]) for m in listed][-2:]
    # the message is stored; the answer only when the CLI stored it before the EPIPE
    # ended it, a race inside the CLI (connection.no-replay-reconcile is intermittent)
    asked = ("user", "Are you there? [t7]")
    assert tail[-1] == asked or tail == [asked, ("assistant", "Answered after the drop.")]


@on_the_cli
async def test_a_killed_approval_is_pending_in_the_store_and_only_a_denial_reaches_it(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(provider, "[t8]", [tool_call("echo", {"text": "k"}), text("Recovered.")])
    options = SessionOptions(tools=("echo",), needs_approval=("echo",))
    session = await backend.resume_session(agent_id, options)
    await session.send("Echo before the kill. [t8]")
    paused = await session.stream()
    asked = paused.events[-1]
    assert isinstance(asked, ApprovalRequestEvent)
    await session.break_connection("kill")
    assert (await session.stream()).ended == "closed"
    resumed = await backend.resume_session(agent_id, options)
    state = await resumed.state()
    assert [p.tool_call_id for p in state.pending_approvals] == [asked.tool_call_id]
    with pytest.raises(NotImplementedError):
        await resumed.decide(asked.tool_call_id, allow=True)
    await resumed.decide(asked.tool_call_id, allow=False)  # recover_pending_approvals
    after = await resumed.state()
    await resumed.close()
    assert after.pending_approvals == ()
    assert [m.role for m in after.messages][-2:] == ["tool_result", "assistant"]


@on_the_cli
async def test_a_sessions_model_reaches_the_request(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(provider, "[t9]", [text("From the other model.")], model="turnlaw-other")
    session = await backend.create_session(agent_id, SessionOptions(model="turnlaw-other"))
    await session.send("Which model? [t9]")
    passed = await session.stream()
    await session.close()
    assert passed.result is not None and passed.result.success
    (request,) = requests(provider, "[t9]")
    assert request.model == "turnlaw-other"


@on_the_cli
async def test_the_agent_surface_runs_one_turn_on_a_new_conversation(
    provider: ScriptedProvider,
) -> None:
    script(provider, "[t10]", [text("One turn.")])
    spec = AgentSpec(base_url=provider.base_url or "", api_key=KEY, model=MODEL, system=SYSTEM)
    agent = await implementation.create_agent(spec)
    store = agent.store
    try:
        outcome = await agent.run("Just this. [t10]")
    finally:
        await agent.close()
    assert outcome.answer == "One turn."
    assert not Path(store).exists(), "the agent's temporary store is removed at close"
    (request,) = requests(provider, "[t10]")
    assert request.user_texts()[-1].endswith("Just this. [t10]") and len(request.user_texts()) == 1


@on_the_cli
async def test_memory_blocks_given_at_creation_are_in_every_conversations_system_prompt(
    provider: ScriptedProvider, backend: LettaBackend
) -> None:
    script(provider, "[t11]", [text("Default."), text("Created.")])
    memory = {"human": "The user is Ada.", "booking": "Table 7 is reserved."}
    agent = await backend.create_agent(SessionAgentSpec(system=SYSTEM, memory=memory))
    for opened in (backend.resume_session(agent), backend.create_session(agent)):
        session = await opened
        await session.send(f"Who am I? [t11] {(await session.ids()).conversation_id}")
        await session.stream()
        await session.close()
    shown = requests(provider, "[t11]")
    assert len(shown) == 2
    for request in shown:
        assert request.system.startswith(SYSTEM)
        assert "The user is Ada." in request.system and "Table 7 is reserved." in request.system


@on_the_cli
async def test_conversations_are_read_without_a_session_through_the_app_server(
    provider: ScriptedProvider, backend: LettaBackend
) -> None:
    script(provider, "[t12]", [text("Listed.")])
    agent = await backend.create_agent(SessionAgentSpec(system=SYSTEM))
    session = await backend.create_session(agent)
    created = (await session.ids()).conversation_id
    await session.send("Remember this. [t12]")
    await session.stream()
    await session.close()
    listed = await backend.list_conversations(agent)
    assert created in listed
    assert "default" not in listed, "the agent's default conversation is not listed"
    messages = await backend.list_messages(created)
    assert [(m.role, m.text.split("\n")[-1]) for m in messages] == [
        ("user", "Remember this. [t12]"),
        ("assistant", "Listed."),
    ]
    with pytest.raises(Refused) as refused:
        await backend.list_messages("default")
    assert refused.value.kind is RefusalKind.UNKNOWN_ID, "'default' names no agent here"


@on_the_cli
async def test_a_message_sent_while_a_client_tool_runs_is_lost(
    provider: ScriptedProvider, backend: LettaBackend, agent_id: str
) -> None:
    script(provider, "[t13]", [tool_call("call_service", {"key": "t13"}), text("Tool done.")])
    gate = provider.service("t13", held=True)
    session = await backend.create_session(agent_id, SessionOptions(tools=("call_service",)))
    await session.send("Call the service. [t13]")
    for _ in range(300):
        if gate.has_arrived:
            break
        await asyncio.sleep(0.1)
    await session.send("Sent while the tool runs. [t13]")
    await asyncio.sleep(1.0)
    gate.release()
    first = await session.stream()
    later = await session.stream(wait=3.0)
    listed = await session.list_messages()
    await session.close()
    assert first.result is not None and first.result.text == "Tool done."
    assert later.ended == "waiting" and later.events == (), "no turn ever runs it"
    assert not any("Sent while the tool runs." in m.text for m in listed), "nor is it stored"


@on_the_cli
async def test_a_model_given_on_the_default_conversation_becomes_the_agents_elsewhere_not(
    provider: ScriptedProvider, backend: LettaBackend
) -> None:
    other = "turnlaw-other"
    agent = await backend.create_agent(SessionAgentSpec(system=SYSTEM))
    steps = [  # (session, the model it should send, its tag)
        (backend.create_session(agent, SessionOptions(model=other)), other, "[t14a]"),
        (backend.create_session(agent), MODEL, "[t14b]"),
        (backend.resume_session(agent, SessionOptions(model=other)), other, "[t14c]"),
        (backend.create_session(agent), other, "[t14d]"),
    ]
    for opened, model, tag in steps:
        script(provider, tag, [text(f"Answered {tag}.")], model=model)
        session = await opened
        await session.send(f"Which model? {tag}")
        passed = await session.stream()
        await session.close()
        assert passed.result is not None and passed.result.text == f"Answered {tag}."
    sent = [(tag, [r.model for r in requests(provider, tag)]) for _, _, tag in steps]
    assert sent == [(tag, [model]) for _, model, tag in steps]
