"""Two refusals, and what a person still owes: a run in flight, a question pending.

One instance answers one turn at a time, and a paused run is unfinished work with a
person on the other end. Both refusals happen before anything is sent, so the wire is
the proof: a refused attempt leaves no request behind and no trace in what comes next.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from ._kit import (
    BOOK,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Hold,
    RefusalKind,
    Refused,
    RequestIR,
    RunOutcome,
    ScriptedProvider,
    parallel_calls,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

Attempt = Callable[[], Awaitable[RunOutcome]]

REFUND = "Refund order 7, please."
QUESTION = "Approve a refund for order 7?"


@asynccontextmanager
async def first_run_held(
    agent: AgentUnderTest, hold: Hold
) -> AsyncIterator[asyncio.Task[RunOutcome]]:
    """Start `agent.run(BOOK)`, wait until its request is parked at the fake, and make sure
    the run is released and awaited however the block ends."""
    first = asyncio.create_task(agent.run(BOOK))
    try:
        await hold.arrived()
        yield first
    finally:
        hold.release()
        if not first.done():
            await asyncio.wait({first}, timeout=10)


def answers_to(request: RequestIR) -> Counter[str]:
    """How many tool results each call id got in one request."""
    return Counter(m.tool_call_id or "" for m in request.messages if m.role == "tool")


@pytest.mark.law("in-flight.refused-before-send")
async def test_a_second_run_while_one_is_in_flight_is_refused_before_sending(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    hold = Hold(then=text("Booked."), label="first-run")
    fake.script([hold])
    agent = await new_agent()
    async with first_run_held(agent, hold) as first:
        sent = len(fake.wire.requests)
        attempts: list[tuple[str, Attempt]] = [
            ("run", lambda: agent.run(THREE)),
            ("follow_up", lambda: agent.follow_up(THREE)),
            ("run again", lambda: agent.run(THREE)),  # a refusal must not unlock the guard
        ]
        for door, attempt in attempts:
            with pytest.raises(Refused) as raised:
                await attempt()
            assert raised.value.kind is RefusalKind.RUN_IN_FLIGHT, (
                f"{door} while a run was in flight was refused as {raised.value.kind}, "
                "not as a run in flight"
            )
        assert len(fake.wire.requests) == sent, (
            "a turn started while another was in flight reached the model: one instance "
            "must answer one turn at a time and refuse before anything is sent"
        )
    assert (await first).answer == "Booked.", "the held first run did not finish with its answer"


@pytest.mark.law("in-flight.first-run-intact")
async def test_refused_attempts_leave_the_first_runs_conversation_its_own(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    hold = Hold(then=text("Booked."), label="first-run")
    fake.script([hold, text("Three it is.")])
    agent = await new_agent()
    async with first_run_held(agent, hold) as first:
        attempts: list[Attempt] = [lambda: agent.run(THREE), lambda: agent.follow_up(THREE)]
        for attempt in attempts:
            with pytest.raises(Refused):
                await attempt()
    outcome = await first
    assert outcome.answer == "Booked.", (
        f"the first run answered {outcome.answer!r}: a refused overlapping run took its answer"
    )
    # The checkpoint is judged by what continuing it shows the model: its format is the
    # runtime's own, and this law needs only continue_from, not follow_up.
    stored = json.loads(json.dumps(await agent.checkpoint()))
    await agent.run("And a high chair.", continue_from=stored)
    assert fake.wire.last.turns() == [
        ("user", BOOK),
        ("assistant", "Booked."),
        ("user", "And a high chair."),
    ], (
        "after refused overlapping attempts the checkpoint is not the first run's "
        "conversation (first message, first answer): continuing it showed something else"
    )


@pytest.mark.law("pending.refuses-new-message")
async def test_a_new_message_is_refused_while_a_person_owes_an_answer(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([tool_call("ask_person", {"question": QUESTION})])
    agent = await new_agent(tools=("ask_person",))
    paused = await agent.run(REFUND)
    assert paused.paused is not None and paused.answer is None, (
        "a run whose tool asked a person did not pause"
    )
    assert paused.paused.question == QUESTION, "the paused run did not report its question"
    other = await new_agent(tools=("ask_person",))
    attempts: list[tuple[str, Attempt]] = [
        ("run", lambda: agent.run("Never mind.")),
        ("follow_up", lambda: agent.follow_up("Never mind.")),
        (
            "another agent continuing",
            lambda: other.run("Never mind.", continue_from=paused.checkpoint),
        ),
    ]
    for door, attempt in attempts:
        with pytest.raises(Refused) as raised:
            await attempt()
        assert raised.value.kind is RefusalKind.PENDING_QUESTION, (
            f"{door} with a question pending was refused as {raised.value.kind}, "
            "not as a pending question"
        )
    assert len(fake.wire.requests) == 1, (
        "a new message walked around a pending question: it reached the model while a "
        "person still owed an answer"
    )


@pytest.mark.law("pending.resume-continues")
async def test_resume_answers_the_asking_call_with_the_decision(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script(
        [
            parallel_calls(("echo", {"text": "order 7"}), ("ask_person", {"question": QUESTION})),
            text("Refund approved for order 7."),
        ]
    )
    agent = await new_agent(tools=("echo", "ask_person"))
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a run whose tool asked a person did not pause"
    asking = paused.paused.tool_call_id
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refund approved for order 7." and done.paused is None, (
        "resume did not carry the paused run on to its answer"
    )
    assert len(fake.wire.requests) == 2, "resume did not make exactly one more model call"
    resumed = fake.wire.last
    results = {m.tool_call_id: m.text for m in resumed.messages if m.role == "tool"}
    assert results.get(asking) == "approved", (
        f"after resume the model was not shown the person's decision as the result of the "
        f"asking call {asking!r}; tool results shown: {results}"
    )
    calls = [c.id for m in resumed.messages for c in m.tool_calls]
    twice = {call: n for call, n in answers_to(resumed).items() if n > 1}
    assert not twice, f"resume answered a tool call more than once: {twice}"
    assert set(answers_to(resumed)) == set(calls), "resume left a tool call unanswered"
    assert resumed.user_texts() == [REFUND], (
        "resume did not continue the paused turn: the decision or a new message became a "
        f"user turn ({resumed.user_texts()})"
    )


@pytest.mark.law("pending.abandon-returns-dropped")
async def test_abandoning_a_pause_returns_what_it_dropped(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([tool_call("ask_person", {"question": QUESTION}), text("What can I do instead?")])
    agent = await new_agent(tools=("ask_person",))
    assert await agent.abandon_pause() is None, "abandon_pause() before any run dropped something"
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a run whose tool asked a person did not pause"
    dropped = await agent.abandon_pause()
    expected = {"tool_name": "ask_person", "tool_call_id": paused.paused.tool_call_id}
    assert dropped is not None, "abandon_pause() with a question pending returned nothing"
    assert {key: dropped.get(key) for key in (*expected, "question")} == {
        **expected,
        "question": QUESTION,
    }, f"abandon_pause() did not say what it dropped: {dropped}"
    assert await agent.abandon_pause() is None, "a second abandon_pause() dropped it again"
    await agent.follow_up(THREE)
    after = fake.wire.last
    assert after.user_texts() == [REFUND, THREE], (
        "the turn after abandoning did not continue the conversation with the new message"
    )
    assert answers_to(after)[paused.paused.tool_call_id] == 1, (
        "after abandoning, the dropped call was not closed with exactly one result"
    )
    assert await agent.abandon_pause() is None, "abandon_pause() after a completed run was not None"
