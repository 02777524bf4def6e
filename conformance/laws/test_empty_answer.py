"""A model that answers with no text has still answered: the turn completed.

An empty final answer is the final answer ("" is not "no answer"): a runtime that reports
it as none makes a completed turn read as a paused one, and the conversation must go on
as the turn it was.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    SYSTEM,
    THREE,
    AgentFactory,
    Refused,
    RequestIR,
    ScriptedProvider,
    roundtrip,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

EMPTY = ""
ASKED_AGAIN = "Booked for two on Friday."
NEXT = "Three it is."


def first_turn(request: RequestIR) -> bool:
    return THREE not in request.user_texts()


@pytest.mark.law("checkpoint.final-answer")
async def test_an_empty_final_answer_is_an_answer_and_the_turn_continues(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    replies = [EMPTY, ASKED_AGAIN]
    fake.script([text(reply) for reply in replies], when=first_turn, allow_unused=True)
    fake.script([text(NEXT)])
    agent = await new_agent(system=SYSTEM)
    outcome = await agent.run(BOOK)
    calls = len(fake.wire.requests)
    final = replies[calls - 1]
    assert outcome.paused is None, (
        f"a run whose model answered {final!r} was reported as paused ({outcome.paused!r})"
    )
    assert outcome.answer == final, (
        f"the model's final answer was {final!r} but the run reported {outcome.answer!r}: "
        "an empty answer is still the turn's final answer, and no answer reads as a run "
        "that has not finished"
    )
    other = await new_agent(system=SYSTEM)
    try:
        await other.run(THREE, continue_from=roundtrip(await agent.checkpoint()))
    except Refused as refusal:
        raise AssertionError(
            f"the conversation of a turn the model answered with {final!r} could not be "
            f"continued ({refusal.kind.value}): the turn completed"
        ) from refusal
    if calls == 1:  # the turn the model answered with nothing, continued
        assert fake.wire.last.user_texts() == [BOOK, THREE], (
            "continuing the completed turn did not show its message followed by the new one"
        )
