"""Agents, conversations and the ids a session exposes (seed 003, its opening section).

"`createAgent()` also creates the agent's default conversation … `createSession(agentId)`
starts a new conversation … `resumeSession(id)` accepts either kind of ID": each is judged
by the turns the model is shown.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BackendFactory,
    ScriptedProvider,
    SessionAgentSpec,
    conversation_shown,
    last_carrying,
    open_new,
    open_resumed,
    opened_by_the_law,
    premise,
    shown_anywhere,
    take_turn,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

DEFAULT = "session.agent-has-default-conversation"
NEW = "session.new-session-is-new-conversation"
EITHER = "session.resume-either-id"
SYSTEM = "You take restaurant bookings. Be brief."

FIRST = "Book me a table for two on Friday."
FIRST_ANSWER = "Booked: two on Friday."
ELSEWHERE = "What time do you open on Sundays?"
ELSEWHERE_ANSWER = "We open at noon on Sundays."
AGAIN = "Make it three."
AGAIN_ANSWER = "Done: three on Friday."
SENT = (FIRST, ELSEWHERE, AGAIN)


@pytest.mark.law("session.agent-has-default-conversation")
async def test_a_new_agent_is_usable_at_once_and_its_id_resumes_one_default_conversation(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    fake.script([text(FIRST_ANSWER), text(ELSEWHERE_ANSWER), text(AGAIN_ANSWER)])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec(system=SYSTEM))

    main = await opened_by_the_law(  # nothing else happened on the agent yet
        backend.resume_session(agent_id), "resume_session(agent_id) on a new agent"
    )
    await take_turn(main, FIRST)
    shown = conversation_shown(fake.wire.requests[-1], SENT)
    assert shown == [("user", FIRST)], (
        f"the first turn on a new agent's default conversation showed the model {shown}, "
        f"not only its own message: a new agent's default conversation is empty"
    )
    default_id = (await main.ids()).conversation_id
    await main.close()

    # A conversation created in between is not the default: resuming by the agent id
    # goes on with the default, not with the agent's latest conversation.
    other = await open_new(backend, agent_id)
    await take_turn(other, ELSEWHERE)
    await other.close()

    main_again = await opened_by_the_law(
        backend.resume_session(agent_id), "resume_session(agent_id) a second time"
    )
    await take_turn(main_again, AGAIN)
    shown = conversation_shown(fake.wire.requests[-1], SENT)
    expected = [("user", FIRST), ("assistant", FIRST_ANSWER), ("user", AGAIN)]
    assert shown == expected, (
        f"a second session resumed from the agent id showed the model {shown}, not the "
        f"default conversation's turn followed by its own message: {expected}"
    )
    again_id = (await main_again.ids()).conversation_id
    assert again_id == default_id, (
        f"two sessions resumed from the agent id share one history but report different "
        f"conversations ({default_id!r}, then {again_id!r}) (a detail of the law)"
    )


@pytest.mark.law("session.new-session-is-new-conversation")
async def test_every_created_session_is_a_new_empty_conversation(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    fake.script([text(FIRST_ANSWER), text(ELSEWHERE_ANSWER), text(AGAIN_ANSWER)])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec(system=SYSTEM))
    main = await open_resumed(backend, agent_id, by="agent")
    await take_turn(main, FIRST)  # the agent's default conversation has a turn
    ids = {(await main.ids()).conversation_id}

    for message in (ELSEWHERE, AGAIN):
        session = await opened_by_the_law(backend.create_session(agent_id), "create_session")
        conversation_id = (await session.ids()).conversation_id
        assert conversation_id not in ids, (
            f"create_session gave conversation {conversation_id!r}, which is already one "
            f"of the agent's: {sorted(ids)}"
        )
        ids.add(conversation_id)
        await take_turn(session, message)
        request = fake.wire.requests[-1]
        shown = conversation_shown(request, SENT)
        assert shown == [("user", message)], (
            f"the first turn of a new session showed the model {shown}, not only its own "
            f"message: createSession starts a new conversation"
        )
        earlier = [m for m in SENT if m != message and shown_anywhere(request, m)]
        assert not earlier, (
            f"the first turn of a new session showed the model {earlier} (in its system "
            f"prompt or messages), said in other conversations of the agent"
        )
        await session.close()


@pytest.mark.law("session.resume-either-id")
async def test_a_conversation_id_resumes_exactly_that_conversation(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    answers = {m: f"answer to {m}" for m in SENT}
    follow = {m: f"{m} (again)" for m in SENT}
    sent = (*SENT, *follow.values())
    fake.script([text(answers[m]) for m in SENT] + [text(f"answer to {follow[m]}") for m in SENT])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec(system=SYSTEM))

    # The default conversation and two created ones, one turn each.
    conversations: dict[str, str] = {}
    for message in SENT:
        if message == FIRST:
            session = await open_resumed(backend, agent_id, by="agent")
        else:
            session = await open_new(backend, agent_id)
        await take_turn(session, message)
        conversations[message] = (await session.ids()).conversation_id
        await session.close()
    premise(
        NEW,
        len(set(conversations.values())) == len(SENT),
        f"the three conversations are not three: {conversations}",
    )

    # Each resumed by its conversation id, in another order than they were made.
    for message in (AGAIN, FIRST, ELSEWHERE):
        conversation_id = conversations[message]
        resumed = await opened_by_the_law(
            backend.resume_session(conversation_id), f"resume_session({conversation_id!r})"
        )
        await take_turn(resumed, follow[message])
        request = last_carrying(fake.wire.requests, follow[message])
        assert request is not None, f"{follow[message]!r} never reached the model"
        shown = conversation_shown(request, sent)
        expected = [("user", message), ("assistant", answers[message]), ("user", follow[message])]
        what = "the default conversation" if message == FIRST else "a created conversation"
        assert shown == expected, (
            f"resume_session({conversation_id!r}), {what}, showed the model {shown}, not that "
            f"conversation's turn followed by the new message: {expected}"
        )
        reported = (await resumed.ids()).conversation_id
        assert reported == conversation_id, (
            f"resume_session({conversation_id!r}) continued that conversation but reports "
            f"conversation {reported!r} (a detail of the law)"
        )
        await resumed.close()
