"""Two requests at once, on the wire: one session's turns never overlap, sessions may.

"Two overlapping runs both used to finish … and the state afterwards belonged to whichever
finished last". So a served session has one turn at a time, refused (`reject`) or queued
(`enqueue`); across sessions the seed's answer is more agents.
"""

from __future__ import annotations

import asyncio

import pytest

from ._kit import (
    CONTINUES,
    OUTLASTS_RETRIES,
    UNANSWERED,
    Fault,
    Hold,
    HostFactory,
    HostOutcome,
    HostReply,
    ScriptedProvider,
    assert_said,
    describe,
    fresh,
    newest_is,
    premise,
    refused,
    request_for,
    strings_in,
    text,
)

pytestmark = pytest.mark.asyncio

REFUSED_WITHIN = 10.0
"""Seconds a refused request may take: a refusal comes before anything is sent, so a
request that has not answered by then is waiting for the held turn, not refused."""
SETTLE = 0.5
"""Seconds between starting queued requests, so they reach the host in the order sent."""


async def finish(task: asyncio.Task[HostReply], hold: Hold) -> HostReply:
    hold.release()
    return await asyncio.wait_for(task, 30)


@pytest.mark.law("hosting.concurrent-reject")
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_second_request_for_a_running_session_is_refused_before_the_model(
    fake: ScriptedProvider, new_host: HostFactory, stream: bool
) -> None:
    hold = Hold(then=text("Booked for two."), label="first-turn")
    fake.script([hold], when=newest_is("Book me a table for two."))
    fake.script([text("Three it is.")], when=newest_is("Make it three."), allow_unused=True)
    fake.script([text("You are welcome.")], when=newest_is("Thanks."))
    host = await new_host(on_concurrent_invoke="reject")
    session_id = fresh("busy")
    first = asyncio.create_task(
        host.caller().send("Book me a table for two.", session_id=session_id, stream=stream)
    )
    try:
        await hold.arrived()
        try:
            second = await asyncio.wait_for(
                host.caller().send("Make it three.", session_id=session_id, stream=stream),
                REFUSED_WITHIN,
            )
        except TimeoutError:
            raise AssertionError(
                f"a second request for {session_id}, whose turn was held at the model, was "
                f"not refused within {REFUSED_WITHIN:g}s: under `reject` it must be refused "
                "before anything is sent, not wait"
            ) from None
        assert len(fake.wire.requests) == 1, (
            f"a second request for a running session reached the model "
            f"({describe(second)}): two turns of one session overlapped"
        )
    finally:
        answered = await finish(first, hold)
    assert_said(second, HostOutcome.BUSY, what="a second request for a running session")
    premise(CONTINUES, answered.answered, f"the held turn was {describe(answered)}")
    await host.caller().send("Thanks.", session_id=session_id)
    shown = fake.wire.last.user_texts()
    assert shown == ["Book me a table for two.", "Thanks."], (
        f"after the refused request, the session held {shown[:-1]}, not only its first turn"
    )


@pytest.mark.law("hosting.concurrent-enqueue")
async def test_queued_requests_for_one_session_run_in_order_each_after_the_last_persisted(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    said = ["Book me a table for two.", "Make it three.", "And a high chair."]
    answers = ["Booked for two.", "Three it is.", "A high chair, noted."]
    hold = Hold(then=text(answers[0]), label="first-queued")
    fake.script([hold], when=newest_is(said[0]))
    for message, answer in zip(said[1:], answers[1:], strict=True):
        fake.script([text(answer)], when=newest_is(message))
    host = await new_host(on_concurrent_invoke="enqueue")
    session_id = fresh("queued")
    tasks = [asyncio.create_task(host.caller().send(said[0], session_id=session_id))]
    try:
        await hold.arrived()
        for message in said[1:]:
            tasks.append(asyncio.create_task(host.caller().send(message, session_id=session_id)))
            await asyncio.sleep(SETTLE)
        assert not any(t.done() and refused(t.result()) for t in tasks[1:]), (
            "under `enqueue` a request for a running session was refused"
        )
        assert len(fake.wire.requests) == 1, (
            "a queued request reached the model while the session's first turn was held: "
            "it must run only after the first persisted"
        )
    finally:
        hold.release()
    replies = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    for number, message in enumerate(said[1:], start=1):
        shown = request_for(fake, message)
        assert shown is not None, (
            f"queued request {number + 1} ({message!r}) was {describe(replies[number])} and "
            "never reached the model: the queue dropped it"
        )
        assert shown.user_texts() == said[: number + 1], (
            f"queued request {number + 1} was shown {shown.user_texts()}: it must run after "
            f"every earlier one persisted, in the order sent"
        )
        assert shown.assistant_texts() == answers[:number], (
            f"queued request {number + 1} was shown the answers {shown.assistant_texts()}, "
            f"not {answers[:number]}"
        )
    got = [reply.output for reply in replies]
    assert got == answers, f"the queued requests were answered {got}, not {answers}"


@pytest.mark.law("hosting.sessions-in-parallel")
async def test_two_sessions_are_at_the_model_at_once_and_neither_sees_the_other(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    alice, bob = fresh("alice"), fresh("bob")
    answers = {alice: "Alice, booked.", bob: "Bob, booked."}
    holds = {sid: Hold(then=text(answer), label=f"{sid}-turn") for sid, answer in answers.items()}
    for session_id, hold in holds.items():
        fake.script([text("Hello.")], when=newest_is(f"I am {session_id}."))
        fake.script([hold], when=newest_is(f"Book for {session_id}."))
    host = await new_host(agent_per_session=True)
    for session_id in holds:
        opened = await host.caller().send(f"I am {session_id}.", session_id=session_id)
        premise(CONTINUES, opened.answered, f"{session_id}'s first turn: {describe(opened)}")
    tasks = {
        session_id: asyncio.create_task(
            host.caller().send(f"Book for {session_id}.", session_id=session_id)
        )
        for session_id in holds
    }
    try:
        for session_id, hold in holds.items():
            try:
                await hold.arrived(timeout=REFUSED_WITHIN)
            except TimeoutError:
                raise AssertionError(
                    f"{session_id}'s turn never reached the model while the other "
                    "session's turn was held there: with an agent per session the two "
                    "must run in parallel"
                ) from None
    finally:
        for hold in holds.values():
            hold.release()
    replies = {sid: await asyncio.wait_for(task, 30) for sid, task in tasks.items()}
    for session_id, other in ((alice, bob), (bob, alice)):
        shown = request_for(fake, f"Book for {session_id}.")
        assert shown is not None, f"{session_id}'s turn was answered {replies[session_id]}"
        assert shown.user_texts() == [f"I am {session_id}.", f"Book for {session_id}."], (
            f"{session_id}'s turn, run alongside {other}'s, was shown {shown.user_texts()}"
        )
        assert not any(other in said for said in strings_in(shown.raw)), (
            f"{session_id}'s turn was shown something of {other}'s session"
        )
        assert replies[session_id].output == answers[session_id], (
            f"{session_id} was answered {replies[session_id].output!r}"
        )


@pytest.mark.law("hosting.concurrent-reject")
async def test_with_one_shared_agent_another_session_waits_and_is_never_refused(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    hold = Hold(then=text("Booked for two."), label="shared-first")
    fake.script([hold], when=newest_is("Book me a table for two."))
    fake.script([text("Hello, Bob.")], when=newest_is("I am Bob."))
    host = await new_host(on_concurrent_invoke="reject")
    first_id, other_id = fresh("shared-a"), fresh("shared-b")
    first = asyncio.create_task(host.caller().send("Book me a table for two.", session_id=first_id))
    other: asyncio.Task[HostReply] | None = None
    try:
        await hold.arrived()
        other = asyncio.create_task(host.caller().send("I am Bob.", session_id=other_id))
        await asyncio.wait({other}, timeout=SETTLE * 2)
        if other.done():
            early = other.result()
            assert not refused(early), (
                f"a request for another session was refused ({describe(early)}) while one "
                "session's turn was running: `reject` is about one session's turns only"
            )
    finally:
        hold.release()
    answered = await asyncio.wait_for(first, 30)
    assert other is not None
    waited = await asyncio.wait_for(other, 30)
    assert waited.answered and waited.output == "Hello, Bob.", (
        f"another session's request, sent while a turn was running, was {describe(waited)}"
    )
    assert answered.answered, f"the running turn was {describe(answered)}"
    shown = request_for(fake, "I am Bob.")
    assert shown is not None and shown.user_texts() == ["I am Bob."], (
        f"the waiting session's turn was shown {shown.user_texts() if shown else None}"
    )


@pytest.mark.law("hosting.concurrent-enqueue")
async def test_a_request_queued_behind_a_failing_turn_runs_on_the_last_completed_one(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """The queue waits for the running turn to end, not to succeed: a turn that failed
    at the model leaves nothing stored, and the queued one still runs, after it, on the
    session's last completed turn."""
    failing, queued = "Check the other order too.", "Make it three."
    held = Hold(then=Fault(status=500), label="failing-queued")
    fake.script([text("Booked for two.")], when=newest_is("Book me a table for two."))
    fake.script(
        [held] + [Fault(status=500)] * OUTLASTS_RETRIES,
        when=newest_is(failing),
        allow_unused=True,
    )
    fake.script([text("Three it is.")], when=newest_is(queued))
    host = await new_host(on_concurrent_invoke="enqueue")
    session_id = fresh("queued-after-failure")
    opened = await host.caller().send("Book me a table for two.", session_id=session_id)
    premise(CONTINUES, opened.answered, f"the first turn was {describe(opened)}")
    first = asyncio.create_task(host.caller().send(failing, session_id=session_id))
    try:
        await held.arrived()
        second = asyncio.create_task(host.caller().send(queued, session_id=session_id))
        await asyncio.sleep(SETTLE)
        assert request_for(fake, queued) is None, (
            "a queued request reached the model while the session's turn was held"
        )
    finally:
        held.release()
    failed, answered = await asyncio.wait_for(asyncio.gather(first, second), 60)
    premise(CONTINUES, bool(failed.said & UNANSWERED), f"a failing turn was {describe(failed)}")
    shown = request_for(fake, queued)
    assert shown is not None, (
        f"the request queued behind a failing turn was {describe(answered)} and never "
        "reached the model"
    )
    assert shown.user_texts() == ["Book me a table for two.", queued], (
        f"the request queued behind a failing turn was shown {shown.user_texts()}: it must "
        "continue the last completed turn"
    )
    assert answered.answered and answered.output == "Three it is.", (
        f"the queued request was {describe(answered)}"
    )
