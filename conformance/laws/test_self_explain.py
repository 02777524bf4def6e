"""Asking whether there is anything to explain: can_explain() is false for two honest reasons.

The agent was not built with self-explain, or it was and no turn has completed yet:
evidence binds at the end of a run, never to the one in flight, and a paused run has
not completed. The wire shows which run each check was made against.
"""

from __future__ import annotations

import asyncio

import pytest

from conformance.adapter import Capability, Implementation
from conformance.runner.outcomes import NOT_APPLICABLE_PREFIX
from conformance.runner.plugin import AgentFactory
from conformance.wire import Hold, ScriptedProvider, text, tool_call

from .conftest import BOOK, SYSTEM

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

QUESTION = "Approve a refund for order 7?"


@pytest.mark.law("self-explain.not-without-self-explain")
async def test_an_agent_without_self_explain_never_can_explain(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text("Booked.")])
    agent = await new_agent(system=SYSTEM)
    assert not await agent.can_explain(), (
        "can_explain() is true before any run, without self-explain"
    )
    outcome = await agent.run(BOOK)
    assert outcome.answer == "Booked." and len(fake.wire.requests) == 1, "the run did not complete"
    assert not await agent.can_explain(), (
        "can_explain() is true for an agent that was not built with self-explain, after a "
        "completed run: there is no trace to explain from"
    )


@pytest.mark.law("self-explain.not-before-a-completed-turn")
async def test_nothing_to_explain_until_a_run_completes(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    hold = Hold(then=text("Booked."), label="in-flight")
    fake.script([hold])
    agent = await new_agent(system=SYSTEM, self_explain=True)
    assert not await agent.can_explain(), "can_explain() is true before any run"
    run = asyncio.create_task(agent.run(BOOK))
    try:
        await hold.arrived()
        in_flight = await agent.can_explain()
    finally:
        hold.release()
    outcome = await run
    assert not in_flight, (
        "can_explain() was true while the only run was in flight: evidence binds at the end "
        "of a run, never to the one in flight"
    )
    assert outcome.answer == "Booked.", "the held run did not complete"
    assert await agent.can_explain(), "can_explain() is false after a completed run"


@pytest.mark.law("self-explain.not-before-a-completed-turn")
async def test_a_paused_run_is_not_a_completed_turn(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    if Capability.PAUSE not in implementation.capabilities:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a paused run needs {Capability.PAUSE.value}")
    fake.script([tool_call("ask_person", {"question": QUESTION}), text("Refunded.")])
    agent = await new_agent(system=SYSTEM, tools=("ask_person",), self_explain=True)
    paused = await agent.run("Refund order 7, please.")
    assert paused.paused is not None and len(fake.wire.requests) == 1, "the run did not pause"
    assert not await agent.can_explain(), (
        "can_explain() was true while the only run was paused: a paused run has not completed"
    )
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refunded." and len(fake.wire.requests) == 2, "resume did not complete"
    assert await agent.can_explain(), "can_explain() is false once the resumed run completed"
