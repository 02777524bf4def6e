"""Self-explain reads the trace, not the transcript: after a completed run, the trace tool
tells the model which tool ran and with what arguments.

Asked from a new conversation (`run`), there is no transcript to read the answer from:
what the model is told can only come from the trace of the last completed run.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    AgentFactory,
    Capability,
    Implementation,
    RequestIR,
    ScriptedProvider,
    ToolCalls,
    calling,
    consultations,
    consulting,
    declaration_of,
    declares,
    premise,
    text,
    tool_call,
    trace_activation_of,
    trace_tool_of,
)

pytestmark = pytest.mark.asyncio

WHY = "Why did you do that?"
BECAUSE = "Because of what the tool said."
WHEN = "Friday 8pm"
SERVICE_KEY = "table-7-friday"
SERVICE_REPLY = "Confirmed."
"""The call's argument and its result differ, so a trace that names the tool and quotes
only its result does not pass for one that says with what arguments it ran."""


async def told_after(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    call: ToolCalls,
    answer: str,
) -> str:
    """What the trace tool finally told the model, asked in a new run after one that made
    `call` and answered `answer` (the activation tool called first, when the runtime has
    one). The model consults the trace tool as a model does: it asks again, naming what
    an answer offered, until it is told about the tool that ran (or has asked enough)."""
    premise(
        "self-explain.trace-tools-say-so",
        declaration_of(implementation).trace_tool is not None,
        "the implementation declares self_explain but names no trace tool",
    )
    tool = trace_tool_of(implementation)
    activation = trace_activation_of(implementation)
    ran = call.calls[0].name

    def names_the_tool(told: str) -> bool:
        return ran in told

    fake.script([call, text(answer)], name="the run to explain", when=carries(BOOK))
    fake.script(
        [
            *([calling(activation)] if activation else []),
            *consulting(tool, times=1, until=names_the_tool, answer=BECAUSE),
        ],
        name="why",
        when=carries(WHY),
        allow_unused=True,
    )
    tools = tuple(c.name for c in call.calls)
    agent = await new_agent(system=SYSTEM, tools=tools, self_explain=True)
    first = await agent.run(BOOK)
    premise("smoke.one-turn", first.answer == answer, "the first run did not complete")
    await agent.run(WHY)
    told = consultations(fake.wire.last, tool, names_the_tool)
    return told[-1] if told else ""


def carries(said: str) -> Callable[[RequestIR], bool]:
    """Matches the requests of the run whose user message is `said`."""
    return lambda request: any(said in m.text for m in request.messages if m.role == "user")


@pytest.mark.law("self-explain.reads-the-trace")
async def test_the_trace_tool_says_which_tool_ran_with_what_arguments(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    told = await told_after(
        fake, new_agent, implementation, tool_call("echo", {"text": WHEN}), "Booked."
    )
    assert "echo" in told and WHEN in told, (
        "after a completed run that called echo with "
        f"{{'text': {WHEN!r}}}, the trace tool did not say which tool ran with what "
        f"arguments; it told the model {told[:300]!r}"
    )


@pytest.mark.law("self-explain.reads-the-trace")
async def test_the_trace_says_the_arguments_not_only_what_came_back(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """echo's result is its argument, so the test above cannot tell them apart; a
    call_service call's result is the service's reply, never its key."""
    if not declares(implementation, Capability.CALL_SERVICE):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}a tool whose result is not its argument needs "
            f"{Capability.CALL_SERVICE.value}"
        )
    fake.service(SERVICE_KEY, reply=SERVICE_REPLY)
    call = tool_call("call_service", {"key": SERVICE_KEY})
    told = await told_after(fake, new_agent, implementation, call, "Booked table 7.")
    assert "call_service" in told and SERVICE_KEY in told, (
        f"after a completed run that called call_service with {{'key': {SERVICE_KEY!r}}} "
        f"(which returned {SERVICE_REPLY!r}), the trace tool did not say which tool ran "
        f"with what arguments; it told the model {told[:300]!r}"
    )
