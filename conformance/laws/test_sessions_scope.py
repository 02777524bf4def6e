"""What is scoped to one session, and what a client sees without one (seed 003, "What
persists, and what doesn't", "Interruption and cleanup" and its opening section).

Client tools and permission behaviour end with their session; conversations can be
listed and read without one.
"""

from __future__ import annotations

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    ApprovalRequestEvent,
    BackendFactory,
    Capability,
    Implementation,
    ScriptedProvider,
    SessionAgentSpec,
    SessionOptions,
    declares,
    last_carrying,
    open_new,
    open_resumed,
    premise,
    take_turn,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

SCOPE = "session.scope-ends-with-session"
INSPECT = "conversation.inspect-without-session"
ECHOED = "a quiet table by the window"


@pytest.mark.law("session.scope-ends-with-session")
async def test_a_client_tool_is_offered_only_in_the_session_that_registered_it(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    fake.script([text("With the tool."), text("Without it."), text("Created, without it.")])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    with_tool = await open_new(backend, agent_id, options=SessionOptions(tools=("echo",)))
    await take_turn(with_tool, "Registered echo.")
    offered = [t.name for t in fake.wire.requests[-1].tools]
    assert "echo" in offered, (
        f"a session that registered the client tool echo offered the model {offered}"
    )
    conversation_id = (await with_tool.ids()).conversation_id
    await with_tool.close()

    problems = []
    for what, opened_by in (("resumed", conversation_id), ("the agent's default", agent_id)):
        by = "agent" if opened_by == agent_id else "conversation"
        without = await open_resumed(backend, opened_by, by=by)
        message = f"No tools registered ({what})."
        await take_turn(without, message)
        request = last_carrying(fake.wire.requests, message)
        assert request is not None, f"{message!r} never reached the model"
        if "echo" in [t.name for t in request.tools]:
            problems.append(
                f"a later session ({what}) that registered no client tool still offered the "
                f"model echo, another session's client tool"
            )
        await without.close()
    assert not problems, "\n".join(problems)


@pytest.mark.law("session.scope-ends-with-session")
async def test_one_sessions_permission_behaviour_does_not_pause_another(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    if not declares(implementation, Capability.SESSION_APPROVALS):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}approvals need the session_approvals capability")
    fake.script(
        [
            tool_call("echo", {"text": ECHOED}),
            text("Echoed, once allowed."),
            tool_call("echo", {"text": ECHOED}),
            text("Echoed, nobody asked."),
        ]
    )
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    asking = await open_new(
        backend, agent_id, options=SessionOptions(tools=("echo",), needs_approval=("echo",))
    )
    await asking.send("Echo it, with my approval.")
    paused = await asking.stream(wait=20.0)
    requests = [e for e in paused.events if isinstance(e, ApprovalRequestEvent)]
    premise(
        "approval.survives-disconnect",
        paused.ended == "approval" and len(requests) == 1,
        f"a session whose echo needs approval did not pause for it (the pass ended "
        f"{paused.ended!r} with {[e.type for e in paused.events]})",
    )
    await asking.decide(requests[0].tool_call_id, True)
    finished = await asking.stream(wait=20.0)
    premise("turn.one-result", finished.ended == "result", f"ended {finished.ended!r}")
    conversation_id = (await asking.ids()).conversation_id
    await asking.close()

    trusting = await open_resumed(
        backend, conversation_id, by="conversation", options=SessionOptions(tools=("echo",))
    )
    await trusting.send("Echo it again.")
    again = await trusting.stream(wait=20.0)
    asked = [e for e in again.events if isinstance(e, ApprovalRequestEvent)]
    assert again.ended == "result" and not asked, (
        f"a later session of the conversation, whose permission behaviour asks nothing, "
        f"paused for approval anyway (its pass ended {again.ended!r} with "
        f"{[e.type for e in again.events]}): the earlier session's policy outlived it"
    )
    shown = [m.text for m in fake.wire.requests[-1].messages if m.role == "tool"]
    assert sum(ECHOED in output for output in shown) == 2, (
        f"the model was shown the tool results {shown}: the second echo did not run"
    )


@pytest.mark.law("conversation.inspect-without-session")
async def test_an_agents_conversations_and_their_messages_are_listed_without_a_session(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    said = {"default": "On the default.", "one": "On the first.", "two": "On the second."}
    answers = {name: f"Answer {name}." for name in said}
    fake.script([text(answers[name]) for name in said])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    stranger_id = await backend.create_agent(SessionAgentSpec())
    stranger = await open_new(backend, stranger_id)
    stranger_conversation = (await stranger.ids()).conversation_id
    await stranger.close()

    conversations: dict[str, str] = {}
    for name, message in said.items():
        if name == "default":
            session = await open_resumed(backend, agent_id, by="agent")
        else:
            session = await open_new(backend, agent_id)
        await take_turn(session, message)
        conversations[name] = (await session.ids()).conversation_id
        await session.close()

    listed = await backend.list_conversations(agent_id)
    missing = [name for name, cid in conversations.items() if cid not in listed]
    assert not missing, f"the agent's conversations {listed} leave out {missing}"
    assert stranger_conversation not in listed, (
        f"the agent's conversations {listed} include another agent's {stranger_conversation!r}"
    )
    problems = []
    for name, conversation_id in conversations.items():
        messages = await backend.list_messages(conversation_id)
        users = [m.text for m in messages if m.role == "user"]
        assistants = [m.text for m in messages if m.role == "assistant"]
        if not any(said[name] in u for u in users) or answers[name] not in assistants:
            problems.append(
                f"conversation {name} lists users {users} and assistants {assistants}, not "
                f"its turn {said[name]!r} -> {answers[name]!r}"
            )
        others = [m for other, m in said.items() if other != name and any(m in u for u in users)]
        if others:
            problems.append(f"conversation {name} lists other conversations' messages {others}")
    assert not problems, "\n".join(problems)
