"""A broken connection: the session is unusable, a new one resumes, nothing is replayed
(seed 003, "Interruption and cleanup" and "Guarantees and non-guarantees").

"A session whose connection closed unexpectedly cannot be reused": it refuses reuse, a
session resumed by the conversation id goes on, and its first pass replays nothing missed.
"""

from __future__ import annotations

import asyncio

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    AssistantEvent,
    BackendFactory,
    BreakHow,
    Capability,
    ErrorEvent,
    Hold,
    Implementation,
    RefusalKind,
    Refused,
    ResultEvent,
    RunningBackend,
    ScriptedProvider,
    SessionAgentSpec,
    SessionUnderTest,
    StoredMessage,
    StreamPass,
    conversation_shown,
    declares,
    last_carrying,
    open_new,
    open_resumed,
    premise,
    take_turn,
    text,
    untyped,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

UNUSABLE = "connection.broken-is-unusable"
RECONCILE = "connection.no-replay-reconcile"
FIRST = "Book me a table for two on Friday."
FIRST_ANSWER = "Booked: two on Friday."
IN_FLIGHT = "Make it three."
IN_FLIGHT_ANSWER = "Done: three on Friday."
AFTER = "And add a high chair."
AFTER_ANSWER = "High chair added."
SENT = (FIRST, IN_FLIGHT, AFTER)
HOWS: tuple[BreakHow, ...] = ("drop", "kill")
NEEDS = {"drop": Capability.SESSION_DROP, "kill": Capability.SESSION_KILL}
SETTLE = 10.0
"""Seconds a runtime that stayed up may take to finish the turn whose client dropped."""


def needs(implementation: Implementation, how: BreakHow) -> None:
    if not declares(implementation, NEEDS[how]):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}breaking a connection by {how} needs the "
            f"{NEEDS[how].value} capability"
        )


async def reopened(
    new_backend: BackendFactory, backend: RunningBackend, how: BreakHow
) -> RunningBackend:
    """Where the conversation goes on: the same backend after a drop (its runtime stayed
    up), the backend opened again on the same store after a kill (a restarted runtime)."""
    if how == "drop":
        return backend
    return await new_backend(store=backend.store, killable=True)


async def refuses_reuse(session: SessionUnderTest, how: BreakHow, when: str) -> str | None:
    """Why the broken session's reuse was not refused as unusable, or None: a send (or,
    if the send is taken, the pass after it) must meet `Refused(session_unusable)`."""
    step = "sending on"
    try:
        await session.send(AFTER)
        step = "streaming"
        stream_pass = await session.stream(wait=5.0)
    except Refused as refused:
        if refused.kind is RefusalKind.SESSION_UNUSABLE:
            return None
        return f"{step} the session after a {how} {when} was refused as {refused.kind.value}"
    except Exception as error:
        if not untyped(error):
            raise
        return (
            f"{step} the session after a {how} {when} raised {type(error).__name__}: {error}, "
            f"not the typed refusal a broken session gives"
        )
    return (
        f"the session whose connection broke by {how} {when} took a new message without a "
        f"refusal (its pass then ended {stream_pass.ended!r}): a broken session cannot be reused"
    )


async def one_turn_taken(
    fake: ScriptedProvider, new_backend: BackendFactory, how: BreakHow
) -> tuple[Hold, RunningBackend, SessionUnderTest, str]:
    """A new session that took one turn (FIRST) on a backend `how` can break, and the
    hold its next turn's model call waits at; with its conversation id."""
    hold = Hold(label="turn in flight", then=text(IN_FLIGHT_ANSWER))
    fake.script([text(FIRST_ANSWER), hold, text(AFTER_ANSWER)], allow_unused=True)
    backend = await new_backend(killable=how == "kill")
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))
    await take_turn(session, FIRST)
    return hold, backend, session, (await session.ids()).conversation_id


def error_then_failed_result(stream_pass: StreamPass) -> bool:
    kinds = [e for e in stream_pass.events if isinstance(e, ErrorEvent | ResultEvent)]
    return (
        len(kinds) >= 2
        and isinstance(kinds[-2], ErrorEvent)
        and isinstance(kinds[-1], ResultEvent)
        and not kinds[-1].success
    )


@pytest.mark.law("connection.broken-is-unusable")
@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("when", ["idle", "mid-turn"])
async def test_a_broken_session_refuses_reuse_and_a_resumed_one_goes_on(
    fake: ScriptedProvider,
    new_backend: BackendFactory,
    implementation: Implementation,
    how: BreakHow,
    when: str,
) -> None:
    needs(implementation, how)
    hold, backend, session, conversation_id = await one_turn_taken(fake, new_backend, how)

    open_pass: StreamPass | None = None
    if when == "mid-turn":
        await session.send(IN_FLIGHT)
        await hold.arrived(timeout=20.0)
    await session.break_connection(how)
    if when == "mid-turn":
        try:
            open_pass = await session.stream(wait=10.0)
        except Refused:
            open_pass = None
    hold.release()
    problem = await refuses_reuse(session, how, when)
    assert problem is None, problem

    again = await reopened(new_backend, backend, how)
    resumed = await open_resumed(again, conversation_id, by="conversation")
    await take_turn(resumed, AFTER)
    request = last_carrying(fake.wire.requests, AFTER)
    assert request is not None, f"{AFTER!r} never reached the model in the resumed session"
    shown = conversation_shown(request, SENT)
    history = [("user", FIRST), ("assistant", FIRST_ANSWER)]
    assert shown[:2] == history and shown[-1] == ("user", AFTER), (
        f"a session resumed by the conversation id after a {how} ({when}) showed the model "
        f"{shown}, not the conversation's history {history} and then its own message"
    )
    if when == "mid-turn":
        assert open_pass is not None and error_then_failed_result(open_pass), (
            f"the pass open when the connection broke by {how} "
            + (
                "was refused instead of ending"
                if open_pass is None
                else f"ended {open_pass.ended!r} with {[e.type for e in open_pass.events]}"
            )
            + ", not with an error followed by a failed result (a detail of the law)"
        )


def listed(messages: list[StoredMessage], role: str, said: str) -> bool:
    return any(m.role == role and said in m.text for m in messages)


async def settled_messages(session: SessionUnderTest, how: BreakHow) -> list[StoredMessage]:
    """The conversation's messages; after a drop, once the runtime that stayed up has
    finished the turn its client left (bounded by SETTLE)."""
    deadline = asyncio.get_running_loop().time() + SETTLE
    while True:
        messages = await session.list_messages()
        done = listed(messages, "assistant", IN_FLIGHT_ANSWER)
        if how == "kill" or done or asyncio.get_running_loop().time() > deadline:
            return messages
        await asyncio.sleep(0.1)


@pytest.mark.law("connection.no-replay-reconcile")
@pytest.mark.parametrize("how", HOWS)
async def test_nothing_missed_is_replayed_and_the_history_shows_what_reached_the_runtime(
    fake: ScriptedProvider,
    new_backend: BackendFactory,
    implementation: Implementation,
    how: BreakHow,
) -> None:
    needs(implementation, how)
    hold, backend, session, conversation_id = await one_turn_taken(fake, new_backend, how)
    await session.send(IN_FLIGHT)
    await hold.arrived(timeout=20.0)  # the message reached the runtime: it asked the model
    await session.break_connection(how)
    hold.release()

    again = await reopened(new_backend, backend, how)
    resumed = await open_resumed(again, conversation_id, by="conversation")
    messages = await settled_messages(resumed, how)
    premise(
        UNUSABLE,
        listed(messages, "user", FIRST) and listed(messages, "assistant", FIRST_ANSWER),
        f"the resumed conversation does not list its completed turn: {messages}",
    )
    problems = []
    if not listed(messages, "user", IN_FLIGHT):
        problems.append(
            f"after a {how}, the conversation's messages do not list {IN_FLIGHT!r}, which "
            f"reached the runtime (the model was asked) before the connection broke: a "
            f"client reconciling with listMessages() would resend it blindly"
        )
    if how == "drop" and not listed(messages, "assistant", IN_FLIGHT_ANSWER):
        problems.append(
            f"after a drop, with the runtime still up, the conversation's messages do not "
            f"list the answer {IN_FLIGHT_ANSWER!r} to the turn its client left"
        )
    if declares(implementation, Capability.SESSION_STATE):
        snapshot = await resumed.state()
        if not listed(list(snapshot.messages), "user", IN_FLIGHT):
            problems.append(
                f"after a {how}, the session's state snapshot does not list {IN_FLIGHT!r}"
            )

    await resumed.send(AFTER)
    first_pass = await resumed.stream(wait=20.0)
    replayed = [
        e.text
        for e in first_pass.events
        if isinstance(e, AssistantEvent) and AFTER_ANSWER not in e.text
    ]
    if replayed:
        problems.append(
            f"the resumed session's first pass replayed what was missed: {replayed} "
            f"before its own turn's answer"
        )
    results = [e for e in first_pass.events if isinstance(e, ResultEvent)]
    if len(results) != 1 or first_pass.ended != "result":
        problems.append(
            f"the resumed session's first pass held {len(results)} results and ended "
            f"{first_pass.ended!r}, not its own turn's one result"
        )
    assert not problems, "\n".join(problems)
