"""Two turns at once: two agents. The in-flight guard belongs to one instance, so a second
agent of the same runtime answers while the first is still waiting for its model.

A runtime whose guard is process-wide (a module lock, a class attribute) passes every
one-agent law and still breaks the seed's own advice for concurrency.
"""

from __future__ import annotations

import asyncio

import pytest

from ._kit import (
    BOOK,
    THREE,
    AgentFactory,
    Hold,
    Refused,
    ScriptedProvider,
    conversation_shown,
    last_carrying,
    last_user_carries,
    text,
)

pytestmark = pytest.mark.asyncio


@pytest.mark.law("in-flight.per-instance")
async def test_a_second_agent_answers_while_the_first_is_in_flight(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    hold = Hold(then=text("Booked."), label="first-agent")
    fake.script([hold], when=lambda request: last_user_carries(request, BOOK))
    fake.script([text("Three it is.")], when=lambda request: last_user_carries(request, THREE))
    first, second = await new_agent(), await new_agent()
    running = asyncio.create_task(first.run(BOOK))
    try:
        await hold.arrived()
        try:
            outcome = await second.run(THREE)
        except Refused as refused:  # the law's core: the second agent was not let through
            raise AssertionError(
                f"a second agent was refused ({refused.kind}) while another agent of the "
                "same runtime was in flight: the guard must belong to one instance"
            ) from refused
        assert outcome.answer == "Three it is.", (
            f"a second agent, run while the first was in flight, answered {outcome.answer!r}"
        )
        asked = last_carrying(fake.wire.requests, THREE)
        shown = None if asked is None else conversation_shown(asked, [BOOK, THREE])
        assert shown == [("user", THREE)], (
            f"the second agent's turn did not reach the model as its own one-message turn "
            f"(it was shown {shown})"
        )
    finally:
        hold.release()
        await asyncio.wait({running}, timeout=10)
    assert (await running).answer == "Booked.", "the first agent's held run did not finish"
