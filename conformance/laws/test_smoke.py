"""The smoke law runs first: if one turn does not work, nothing else can be judged."""

from __future__ import annotations

import pytest

from ._kit import BOOK, SYSTEM, ScriptedProvider, text

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio


@pytest.mark.law("smoke.one-turn")
async def test_one_turn_reaches_the_model_and_answers(fake: ScriptedProvider, new_agent) -> None:  # type: ignore[no-untyped-def]
    fake.script([text("Booked.")])
    agent = await new_agent(system=SYSTEM)
    outcome = await agent.run(BOOK)
    assert outcome.answer == "Booked.", f"the run answered {outcome.answer!r}"
    assert len(fake.wire.requests) == 1, "one turn, one model request"
    assert fake.wire.last.user_texts() == [BOOK]
