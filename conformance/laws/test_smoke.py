"""The smoke law runs first: if one turn does not work, nothing else can be judged.

It also proves the run is in the dialect it was asked for: the fake answers every
dialect's endpoint, so a runtime built for another one would otherwise pass every law
while no request of the dialect under test was ever judged. The request is read against
the message sent: one user message carrying it, and nothing else of a conversation (text
a runtime wraps around a message of its own accord, as Letta Code's reminders, is not a
conversation)."""

from __future__ import annotations

import pytest

from ._kit import BOOK, SYSTEM, AgentFactory, Dialect, ScriptedProvider, conversation_shown, text

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio


@pytest.mark.law("smoke.one-turn")
async def test_one_turn_reaches_the_model_and_answers(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    dialect: Dialect,
) -> None:
    fake.script([text("Booked.")])
    agent = await new_agent(system=SYSTEM)
    outcome = await agent.run(BOOK)
    assert outcome.answer == "Booked.", f"the run answered {outcome.answer!r}"
    assert len(fake.wire.requests) == 1, "one turn, one model request"
    sent = fake.wire.last.dialect
    assert sent == dialect, (
        f"the run was asked to speak {dialect.value}, but its request came in {sent.value}"
    )
    shown = conversation_shown(fake.wire.last, [BOOK])
    assert shown == [("user", BOOK)], f"one turn showed the model {shown}, not one user message"
