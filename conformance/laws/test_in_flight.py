"""A second run while one is in flight, as a table: every door at every moment of the first.

One instance answers one turn at a time: a turn tried while another is in flight reaches
nothing of the model, is refused as a run in flight, and leaves the first run intact.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import pytest

from ._kit import (
    BOOK,
    DOORS,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Capability,
    Hold,
    Implementation,
    LawViolation,
    RefusalKind,
    RequestIR,
    RunOutcome,
    ScriptedProvider,
    Step,
    answer_attempts,
    attempt,
    door_call,
    judge_refusals,
    kinds_for,
    next_turn,
    skip_cell_without,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

CORE = "in-flight.refused-before-send"
KIND = "in-flight.refusal-kind"
INTACT = "in-flight.first-run-intact"

MOMENTS = ("just started", "request held", "tool running", "answer streamed")
ODD_MESSAGES = {
    "empty": "",
    "whitespace": " \n\t ",
    "long": "Make it three. " * 2000,
    "unicode": "Ça fait 3 — שלוש 🍽️ e\u0301 \u200d",
}
ODD_SAID = {"empty": "an empty", "whitespace": "a whitespace-only", "long": "a long"}
"""How a message reads in a cell's words ("run with an empty message ...")."""
WHILE = {
    "just started": "just after the first run started",
    "request held": "while the first run's request is held at the fake",
    "tool running": "while the first run's tool is running",
    "answer streamed": "while the first run's answer is streaming",
}
"""How a moment reads in a cell's words ("follow_up while the first run's tool is running")."""
ANSWER = "Booked."
WAITED = 10.0
"""Seconds a refused door may take: a refusal happens before anything is sent, so a door
that has not answered by then is waiting its turn, not refusing."""

NEEDS = {
    "follow_up": Capability.FOLLOW_UP,
    "run(continue_from=)": Capability.CONTINUE_FROM,
    "resume": Capability.PAUSE,
    "tool running": Capability.CALL_SERVICE,
}


@dataclass
class FirstRun:
    """The run in flight, and what the table needs to try the doors on its agent."""

    agent: AgentUnderTest
    task: asyncio.Task[RunOutcome]
    calls: int  # model calls the first run has made, at most, at the moment
    sent_before: int  # requests on the wire before it started
    door_input: Callable[[str], Awaitable[RunOutcome]]


def material_steps(door: str) -> list[Step]:
    """What the model says while `material_for` makes the door's material."""
    if door == "run(continue_from=)":
        return [text("Hello there.")]
    if door == "resume":
        return [tool_call("ask_person", {"question": "Approve order 7?"})]
    return []


async def material_for(door: str, new_agent: AgentFactory) -> object:
    """What the door is handed, made before the first run starts (on another agent)."""
    if door == "run(continue_from=)":
        return (await (await new_agent()).run("Hello.")).checkpoint
    if door == "resume":
        paused = await (await new_agent(tools=("ask_person",))).run("Refund order 7.")
        assert paused.paused is not None, "set-up: a run whose tool asked a person did not pause"
        return paused.checkpoint
    return None


def door_of(
    agent: AgentUnderTest, door: str, material: object
) -> Callable[[str], Awaitable[RunOutcome]]:
    """The door as one call taking the second message (resume: the decision)."""
    return lambda message: door_call(agent, door, message, json.loads(json.dumps(material)))


@asynccontextmanager
async def first_run_at(
    moment: str,
    door: str,
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    *,
    attempted: Sequence[str] = (),
) -> AsyncIterator[FirstRun]:
    """Start `agent.run(BOOK)` and bring it to `moment`; however the block ends, let the
    first run go and wait for it. A door tried with a message of `attempted` that goes
    ahead is answered by a script of its own, so it spends none of the first run's steps
    and the law says what reached the model in its own words."""
    answer_attempts(fake, attempted)
    tools = ("ask_person",) if door == "resume" else ()
    end = moment == "answer streamed"
    hold = Hold(then=text(ANSWER), label="first-run", at="stream_end" if end else "start")
    if moment == "tool running":
        gate = fake.service("booking", held=True)
        steps: list[Step] = [tool_call("call_service", {"key": "booking"}), text(ANSWER)]
        tools = (*tools, "call_service")
    else:
        steps = [hold]
    fake.script([*material_steps(door), *steps])
    material = await material_for(door, new_agent)
    agent = await new_agent(tools=tools)
    sent = len(fake.wire.requests)
    task = asyncio.create_task(agent.run(BOOK))
    try:
        if moment == "just started":
            await asyncio.sleep(0)  # the call is made; its request has not been sent
        elif moment == "request held":
            await hold.arrived()
        elif moment == "answer streamed":
            if not (await hold.arrived()).stream:
                fake.allow_unused()  # the steps after the first run's are never asked for
                pytest.skip(
                    f"{NOT_APPLICABLE_PREFIX}the runtime did not stream its model call, so "
                    "there is no moment between the model's answer and the call's end"
                )
            await hold.streamed()  # all of the answer is out; the stream's end is held
        else:
            await gate.arrived()
        yield FirstRun(agent, task, 1, sent, door_of(agent, door, material))
    finally:
        hold.release()
        if moment == "tool running":
            gate.release()
        if not task.done():
            await asyncio.wait({task}, timeout=WAITED)


def carries(said: str) -> Callable[[RequestIR], bool]:
    """Does a request show `said` in any message (a user turn, or a decision as a tool
    result)?"""
    return lambda request: any(said in m.text for m in request.messages)


async def try_the_doors(
    first: FirstRun, fake: ScriptedProvider, cell: str, message: str, *, kind: bool = True
) -> None:
    """The core then (with `kind`) the kind: the door, and `run` again (a refusal must
    not unlock the guard), reach nothing of the model and are refused as a run in flight."""
    came = [("the door", await attempt(first.door_input(message), WAITED))]
    came.append(("run after it", await attempt(first.agent.run(message), WAITED)))
    # What the first run sends once released is the first-run-intact law's to judge (a
    # refusal that corrupted it shows there); the fake's checks of it are not this law's.
    fake.check_invariants = False
    reached = len(fake.wire.requests) - first.sent_before
    broken = None
    if reached > first.calls:
        broken = (
            f"{cell}: a turn started while another was in flight reached the model "
            f"({reached} requests where the first run alone had made at most {first.calls}); "
            f"one instance answers one turn at a time and refuses before anything is sent "
            f"(the door {came[0][1].said()}; run after it {came[1][1].said()})"
        )
    accepted = kinds_for(message, RefusalKind.RUN_IN_FLIGHT)
    blank = " or, the message being blank, as invalid_input" if len(accepted) > 1 else ""
    refused_as = (
        f"a run in flight ({RefusalKind.RUN_IN_FLIGHT.value}, the seed's RunInFlightError){blank}"
    )
    judge_refusals(cell, came, broken, (CORE, KIND if kind else None), accepted, refused_as)


async def first_answer(first: FirstRun, cell: str) -> RunOutcome:
    """Release-side: the first run finishes with its own answer, or the cell says why not."""
    done, _ = await asyncio.wait({first.task}, timeout=WAITED)
    if not done:
        raise LawViolation(INTACT, f"{cell}: the first run did not finish once released")
    error = first.task.exception()
    if error is not None:
        raise LawViolation(
            INTACT, f"{cell}: the first run failed after the refused attempts: {error!r}"
        )
    outcome = first.task.result()
    if outcome.answer != ANSWER:
        raise LawViolation(
            INTACT,
            f"{cell}: the first run answered {outcome.answer!r}, not {ANSWER!r}: "
            "a refused overlapping run took its answer",
        )
    return outcome


TABLE = [
    pytest.param(door, moment, id=f"{door} / {moment}")
    for door, moment in itertools.product(DOORS, MOMENTS)
]
ODD = [
    pytest.param(door, name, id=f"{door} / request held / {name} message")
    for door, name in itertools.product(DOORS, ODD_MESSAGES)
]


# Two tests per cell: a test stopping at one law's failure gives the other no verdict, so
# the core has a test of its own (a runtime refusing with another kind passes it), and
# the kind's test rests on the core: a broken core there is a premise not met (an ERROR
# the manifest's expected FAIL of the core covers), never a FAIL of the kind.
@pytest.mark.law("in-flight.refused-before-send")
@pytest.mark.parametrize(("door", "moment"), TABLE)
async def test_no_door_at_any_moment_of_a_run_in_flight_reaches_the_model(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    moment: str,
) -> None:
    skip_cell_without(implementation, NEEDS, door, moment)
    cell = f"{door} {WHILE[moment]}"
    async with first_run_at(moment, door, fake, new_agent, attempted=[THREE]) as first:
        await try_the_doors(first, fake, cell, THREE, kind=False)


@pytest.mark.law("in-flight.refusal-kind")
@pytest.mark.parametrize(("door", "moment"), TABLE)
async def test_every_door_at_every_moment_of_a_run_in_flight_is_refused_as_one(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    moment: str,
) -> None:
    skip_cell_without(implementation, NEEDS, door, moment)
    cell = f"{door} {WHILE[moment]}"
    async with first_run_at(moment, door, fake, new_agent, attempted=[THREE]) as first:
        await try_the_doors(first, fake, cell, THREE)


@pytest.mark.law("in-flight.refused-before-send")
@pytest.mark.parametrize(("door", "odd"), ODD)
async def test_an_odd_message_while_a_run_is_in_flight_reaches_nothing(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    odd: str,
) -> None:
    skip_cell_without(implementation, NEEDS, door)
    cell = f"{door} with {ODD_SAID.get(odd, f'a {odd}')} message {WHILE['request held']}"
    message = ODD_MESSAGES[odd]
    async with first_run_at("request held", door, fake, new_agent, attempted=[message]) as first:
        await try_the_doors(first, fake, cell, message, kind=False)


@pytest.mark.law("in-flight.refusal-kind")
@pytest.mark.parametrize(("door", "odd"), ODD)
async def test_an_odd_message_while_a_run_is_in_flight_is_still_refused(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    odd: str,
) -> None:
    skip_cell_without(implementation, NEEDS, door)
    cell = f"{door} with {ODD_SAID.get(odd, f'a {odd}')} message {WHILE['request held']}"
    message = ODD_MESSAGES[odd]
    async with first_run_at("request held", door, fake, new_agent, attempted=[message]) as first:
        await try_the_doors(first, fake, cell, message)


@pytest.mark.law("in-flight.first-run-intact")
@pytest.mark.parametrize(("door", "moment"), TABLE)
async def test_refused_attempts_at_any_moment_leave_the_first_runs_conversation_its_own(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    moment: str,
) -> None:
    skip_cell_without(implementation, NEEDS, door, moment)
    cell = f"{door} {WHILE[moment]}"
    chair = "And a high chair."
    # The attempt and the continuation have scripts of their own, tried first, so what
    # the continuation showed is judged in this law's words, never as an exhausted script.
    # An attempt that goes ahead is held at the fake until the first run has finished: the
    # state then belongs to whichever finished last, and that must still be the first run.
    fake.script([text("Noted.")], name="the continuation", when=carries(chair))
    held = Hold(then=text("Three what?"), label="overlapping-attempt")
    fake.script(
        [held, *[text("Three what?")] * 3],
        name="overlapping attempt",
        when=lambda r: carries(THREE)(r) and not carries(chair)(r),
        allow_unused=True,
    )
    async with first_run_at(moment, door, fake, new_agent) as first:
        # What the attempt did is the other laws' business; this one judges the state.
        tried = asyncio.create_task(attempt(first.door_input(THREE), WAITED))
        parked = asyncio.create_task(held.arrived(timeout=WAITED))
        await asyncio.wait({tried, parked}, return_when=asyncio.FIRST_COMPLETED)
    await first_answer(first, cell)
    held.release()
    await tried  # `attempt` gives up on a door that neither returns nor refuses in time
    parked.cancel()
    await asyncio.gather(parked, return_exceptions=True)
    # The state is judged by what continuing it shows the model (its format is the
    # runtime's own): through the checkpoint where the runtime has one, else follow_up.
    await next_turn(first.agent, implementation, chair, through_checkpoint=True)
    shown = fake.wire.last.turns()
    expected = [("user", BOOK), ("assistant", ANSWER), ("user", chair)]
    if [turn for turn in shown if turn[1] or turn[0] == "user"] != expected:
        raise LawViolation(
            INTACT,
            f"{cell}: after overlapping attempts the agent's conversation is not the first "
            f"run's (first message, first answer): continuing it showed {shown}",
        )
