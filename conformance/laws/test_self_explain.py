"""Asking whether there is anything to explain: can_explain() is false for two honest reasons.

The agent was not built with self-explain, or it was and no turn has completed yet:
evidence binds at the end of a run, never to the one in flight, and a paused run has
not completed. The wire shows which run each check was made against. The model is told
the same thing by the same fact: what the trace tool answered is on the wire, as the
tool result of the next request.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    AgentFactory,
    AgentUnderTest,
    Capability,
    Hold,
    Implementation,
    React,
    RequestIR,
    RunOutcome,
    ScriptedProvider,
    Step,
    Text,
    ToolCalls,
    calling,
    consultations,
    consulting,
    premise,
    text,
    tool_call,
    trace_activation_of,
    trace_results,
    trace_tool_of,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

QUESTION = "Approve a refund for order 7?"
NO_COMPLETED_RUN = "No completed run is available yet"
"""The seed's words for what a trace tool answers before any run has completed."""

_models = itertools.count()


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
    premise(
        "smoke.one-turn",
        outcome.answer == "Booked." and len(fake.wire.requests) == 1,
        "the run did not complete",
    )
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
    premise("smoke.one-turn", outcome.answer == "Booked.", "the held run did not complete")
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
    premise(
        "pending.resume-continues",
        paused.paused is not None and len(fake.wire.requests) == 1,
        "the run did not pause",
    )
    assert not await agent.can_explain(), (
        "can_explain() was true while the only run was paused: a paused run has not completed"
    )
    done = await agent.resume(paused.checkpoint, "approved")
    premise(
        "pending.resume-continues",
        done.answer == "Refunded." and len(fake.wire.requests) == 2,
        "resume did not complete",
    )
    assert await agent.can_explain(), "can_explain() is false once the resumed run completed"


def is_only_the_phrase(result: str) -> bool:
    """The no-completed-run answer itself, give or take quotes, case and a full stop."""
    return result.strip().strip('"').strip().rstrip(".").lower() == NO_COMPLETED_RUN.lower()


@pytest.mark.law("self-explain.trace-tools-say-so")
@given(plan=st.lists(st.integers(min_value=0, max_value=2), min_size=1, max_size=3).filter(any))
@settings(report_multiple_bugs=False)  # one failure, an assertion: a FAIL, not an ERROR
@example(plan=[2])
@example(plan=[1, 1])
async def test_the_trace_tool_says_no_run_has_completed_until_one_has(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    plan: list[int],
) -> None:
    """`plan[i]` is how often the model calls the trace tool during run i, before answering.

    During the first run nothing has completed, whatever the run in flight already did:
    every call must be told so, in the seed's words. From the second run on a run has
    completed, and no call may be answered with that phrase alone (the trace it returns
    may quote an earlier call's answer). can_explain() is read before each run and quoted
    in the failure, to show whether the flag and the tool rest on the same fact; judging
    the flag itself is self-explain.not-before-a-completed-turn's.
    """
    tool = trace_tool_of(implementation)
    activation = trace_activation_of(implementation)
    model = f"turnlaw-trace-{next(_models)}"  # this example's agent and scripts only

    def answered(completed: bool) -> Callable[[str], bool]:
        """When a consultation has its answer: the phrase before any run completed, and
        anything but the bare phrase after (an informed trace tool may first list what
        can be asked)."""
        if completed:
            return lambda told: not is_only_the_phrase(told)
        return lambda told: NO_COMPLETED_RUN.lower() in told.lower()

    for index, calls in enumerate(plan):
        # the activation call first, then each trace consultation, then the answer
        steps: list[Step] = [calling(activation)] if activation and calls else []
        steps += consulting(tool, times=calls, until=answered(index > 0), answer=f"Answer {index}.")
        fake.script(
            steps,
            model=model,
            name=f"trace tool, plan {plan}, run {index}",
            when=asking(index),
            allow_unused=True,
        )
    agent = await new_agent(model=model, system=SYSTEM, self_explain=True)

    for index, calls in enumerate(plan):
        completed = index > 0
        can_explain = await agent.can_explain()
        sent_before = len(fake.wire)
        outcome = await agent.run(question(index))
        premise(
            "smoke.one-turn",
            outcome.answer == f"Answer {index}.",
            f"run {index} answered {outcome.answer!r}",
        )
        this_run = fake.wire.requests[sent_before:]
        activating = 1 if activation and calls else 0
        # the request the first trace call answered (with activation: the one after it);
        # a run that never activated need not offer the trace tool at all
        expected = tool if calls or not activation else activation
        offered = [t.name for t in this_run[min(activating, len(this_run) - 1)].tools]
        assert expected in offered, (
            f"run {index}: an agent built with self-explain did not offer the model its "
            f"{'trace' if expected == tool else 'activation'} tool {expected!r} "
            f"(offered: {offered})"
        )
        # this run's own consultations only: a runtime that wrongly carries an earlier
        # run's calls is run.no-history's to catch, not this law's
        shown = consultations(fake.wire.last, tool, answered(completed))
        assert len(shown) == calls, (
            f"run {index} should consult the trace tool {calls} time(s), but the last "
            f"request shows {len(shown)} consultation(s) of {tool!r}"
        )
        for number, result in enumerate(shown, 1):
            where = f"run {index}, trace consultation {number} of {calls}"
            if not completed:
                assert NO_COMPLETED_RUN.lower() in result.lower(), (
                    f"{where}: no run had completed, yet the trace tool {tool!r} answered "
                    f"{result[:200]!r}: it must say {NO_COMPLETED_RUN!r} rather than improvise "
                    "(evidence binds at the end of a run, never to the one in flight)"
                )
            else:  # a trace may quote an earlier call's answer; only the bare phrase is wrong
                assert not is_only_the_phrase(result), (
                    f"{where}: a run had completed (can_explain() said {can_explain}), yet the "
                    f"trace tool {tool!r} answered {result[:200]!r}"
                )


def question(index: int) -> str:
    return f"Why did you do that? ({index})"


def asking(index: int) -> Callable[[RequestIR], bool]:
    """Matches the requests of run `index` (its user message is the last one shown)."""
    return lambda request: request.user_texts()[-1:] == [question(index)]


async def paused_after_a_completed_run(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> tuple[AgentUnderTest, RunOutcome]:
    """A self-explaining agent whose first run (BOOK) completed and whose second run is
    paused on a question (the script says so)."""
    agent = await new_agent(system=SYSTEM, tools=("ask_person",), self_explain=True)
    done = await agent.run(BOOK)
    premise("smoke.one-turn", done.answer == "Booked.", "the first run did not complete")
    paused = await agent.run("Refund order 7, please.")
    premise(
        "pending.resume-continues",
        paused.paused is not None and len(fake.wire.requests) == 2,
        "the second run did not pause",
    )
    return agent, paused


def needs_pause(implementation: Implementation) -> None:
    if Capability.PAUSE not in implementation.capabilities:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a paused run needs {Capability.PAUSE.value}")


@pytest.mark.law("self-explain.not-before-a-completed-turn")
async def test_a_paused_run_after_a_completed_one_leaves_something_to_explain(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """Neither honest reason holds once a run has completed: the next run pausing does
    not un-complete it (evidence binds at the end of a run, and stays bound)."""
    needs_pause(implementation)
    fake.script(
        [text("Booked."), tool_call("ask_person", {"question": QUESTION})],
    )
    agent, _ = await paused_after_a_completed_run(fake, new_agent)
    assert await agent.can_explain(), (
        "can_explain() was false while the agent's second run was paused, although its "
        "first run had completed: the paused run erased the completed run's evidence"
    )


@pytest.mark.law("self-explain.trace-tools-say-so")
async def test_the_trace_tool_reads_the_completed_run_through_a_pause(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """Resumed, the run in flight is still not evidence, but the one completed before it
    is: the trace tool must not answer as if none had completed."""
    needs_pause(implementation)
    tool = trace_tool_of(implementation)
    activation = trace_activation_of(implementation)

    def answered(told: str) -> bool:
        return not is_only_the_phrase(told)

    steps: list[Step] = [text("Booked."), tool_call("ask_person", {"question": QUESTION})]
    steps += [calling(activation)] if activation else []
    steps += consulting(tool, times=1, until=answered, answer="Refunded.")
    fake.script(steps, allow_unused=True)
    agent, paused = await paused_after_a_completed_run(fake, new_agent)
    resumed = await agent.resume(paused.checkpoint, "approved")
    premise(
        "pending.resume-continues",
        resumed.answer == "Refunded.",
        f"the resumed run answered {resumed.answer!r}",
    )
    shown = consultations(fake.wire.last, tool, answered)
    assert shown, f"the resumed run's model called {tool!r}, but its result was not shown"
    assert not is_only_the_phrase(shown[-1]), (
        f"a run had completed before the paused one, yet in the resumed run the trace tool "
        f"{tool!r} answered {shown[-1][:200]!r}: the pause erased the completed run's trace"
    )


MARK = "the corner booth by the fire"
"""What the first run's tool call carried: a trace of that run would quote it."""


@pytest.mark.law("self-explain.not-without-self-explain")
async def test_an_agent_without_self_explain_shows_its_model_no_trace(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """can_explain() is false for an agent not built with self-explain, and the model is
    told the same thing by the same fact: no trace tool of that agent tells it what a
    completed run did. (The scripted model calls the trace tool only if it is offered.)"""
    tool = trace_tool_of(implementation)
    nothing = "Nothing to explain."

    def ask_the_trace(request: RequestIR) -> Text | ToolCalls:
        offered = any(t.name == tool for t in request.tools)
        return tool_call(tool) if offered else text(nothing)

    fake.script(
        [
            tool_call("echo", {"text": MARK}),
            text("Booked."),
            React(fn=ask_the_trace, label=f"call {tool} if offered"),
            text(nothing),
        ],
        allow_unused=True,
    )
    agent = await new_agent(system=SYSTEM, tools=("echo",))
    done = await agent.run(BOOK)
    premise("smoke.one-turn", done.answer == "Booked.", "the first run did not complete")
    why = await agent.run("Why did you pick that table?")
    premise("smoke.one-turn", why.answer == nothing, f"the second run answered {why.answer!r}")
    told = [r for r in trace_results(fake.wire.last, tool) if MARK in r]
    assert not told, (
        f"an agent built without self-explain offered its model the trace tool {tool!r}, which "
        f"told it what the completed run did ({told[0][:200]!r}) while can_explain() is false"
    )
