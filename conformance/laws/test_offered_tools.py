"""A deploy that adds a tool continues yesterday's conversations as the agent it is now:
the tool it added is offered on every model call of the continued turn, not only on the
first one. A turn with tool rounds makes several calls, and a runtime that offers its
tools on the first call only leaves the model, from the first tool result on, with an
agent that no longer has the tool the deploy added.
"""

from __future__ import annotations

import pytest

from ._kit import BOOK, SYSTEM, THREE, AgentFactory, Refused, ScriptedProvider, text, tool_call

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

YESTERDAY = "Booked."
TODAY = "Three it is, for Friday."
ROUNDS = 2
"""Tool rounds in the continued turn: two, so that a call made after a tool result that
itself followed a tool result is judged too."""


@pytest.mark.law("mismatch.changed-agent-continues")
async def test_the_tool_a_deploy_added_is_offered_on_every_call_of_the_turn(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    rounds = [tool_call("echo", {"text": f"party of 3, check {n}"}) for n in range(1, ROUNDS + 1)]
    fake.script([text(YESTERDAY), *rounds, text(TODAY)])
    yesterday = await new_agent(id="billing", system=SYSTEM)
    await yesterday.run(BOOK)
    conversation = await yesterday.checkpoint()
    today = await new_agent(id="billing", system=SYSTEM, tools=("echo",))
    try:
        outcome = await today.run(THREE, continue_from=conversation)
    except Refused as refusal:
        raise AssertionError(
            "agent 'billing' refused its own conversation because a deploy added a tool "
            f"({refusal.kind.value}): a deploy must still continue yesterday's conversations"
        ) from refusal
    assert outcome.answer == TODAY, f"the continued turn answered {outcome.answer!r}"
    calls = fake.wire.requests[1:]
    assert len(calls) == ROUNDS + 1, (
        f"the continued turn with {ROUNDS} tool rounds made {len(calls)} model call(s), "
        f"not {ROUNDS + 1}"
    )
    offered = [sorted(tool.name for tool in request.tools) for request in calls]
    missing = [n for n, names in enumerate(offered, start=1) if "echo" not in names]
    assert not missing, (
        f"the tool the deploy added ('echo') was not offered on model call(s) {missing} of "
        f"the continued turn (tools offered per call: {offered}): after a tool round the "
        "model was shown an agent without the tool it had just used"
    )
