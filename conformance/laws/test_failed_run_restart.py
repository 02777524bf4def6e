"""What a failed run hands back is where a restart begins: it keeps the work that ran.

A worker restarts from the checkpoint a failure handed back: if it dropped the tool rounds
that ran, the model is asked for the same calls again and every tool runs twice.
"""

from __future__ import annotations

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    OUTLASTS_RETRIES,
    THREE,
    AgentFactory,
    Fault,
    RequestIR,
    RunFailed,
    ScriptedProvider,
    continue_handed_back,
    text,
    tool_call,
    user_turns_in_a_row,
)

pytestmark = pytest.mark.asyncio

LAW = "failure.hands-back-last-good-checkpoint"
FAILING = "Release the other table too."
KEY = "other-table"
"""The service key the failing turn's tool call asks for (the fake counts its calls)."""


@pytest.mark.law("failure.hands-back-last-good-checkpoint")
@pytest.mark.parametrize("where", ["after a tool round", "at the first model call"])
async def test_the_checkpoint_a_failed_run_hands_back_keeps_the_tool_rounds_that_ran(
    fake: ScriptedProvider, new_agent: AgentFactory, where: str
) -> None:
    gate = fake.service(KEY)
    after_tools = where == "after a tool round"

    def failing_turn(request: RequestIR) -> bool:
        return FAILING in request.user_texts() and THREE not in request.user_texts()

    def fails(request: RequestIR) -> bool:
        after = bool(request.messages) and request.messages[-1].role == "tool"
        return failing_turn(request) and (after or not after_tools)

    fake.script([Fault(status=500)] * OUTLASTS_RETRIES, when=fails, allow_unused=True)
    if after_tools:
        fake.script([tool_call("call_service", {"key": KEY})], when=failing_turn)
    fake.script(
        [text("Three it is.")] * 2, when=lambda r: THREE in r.user_texts(), allow_unused=True
    )
    agent = await new_agent(tools=("call_service",))
    try:
        outcome = await agent.run(FAILING)
    except RunFailed as failure:
        handed = failure.checkpoint
    else:  # a fallback answer of the runtime's own: judged on what a restart is shown
        handed = outcome.checkpoint
    if handed is None:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}the runtime hands back no checkpoint of a failed run")
    ran = gate.calls
    other = await new_agent(tools=("call_service",))
    cannot = f"the checkpoint a run that failed {where} handed back cannot be continued"
    await continue_handed_back(other, THREE, handed, cannot=cannot)
    shown = fake.wire.last
    doubled = user_turns_in_a_row(shown)
    assert not doubled, (
        f"continuing the checkpoint a run that failed {where} handed back showed two user "
        f"turns in a row ({shown.turns()}): it kept the message nobody answered"
    )
    invented = [said[:80] for said in shown.assistant_texts() if said]
    assert not invented, (
        f"continuing the checkpoint a run that failed {where} handed back showed the model "
        f"answers it never gave ({invented}): a fallback of the runtime's own, kept as the "
        "model's"
    )
    if after_tools and ran:
        results = [m.text for m in shown.messages if m.role == "tool"]
        assert any(gate.reply in result for result in results), (
            f"the checkpoint a run that failed after its tool round handed back dropped that "
            f"round: continuing it showed the model {shown.turns()} and tool results "
            f"{results}, not the call_service result {gate.reply!r}; a worker restarting from "
            f"it is asked for the call again, and the service runs twice"
        )
