"""The doors as a property: any sequence of runs, follow-ups, saved checkpoints and
continuations shows the model exactly what a tiny model of the law predicts.

Hypothesis draws a list of steps; `predict` (pure Python, no runtime) says what the model
must be shown at each one; the test plays the steps against a fresh agent and compares
every request the fake recorded with the prediction, step by step.

Why a generated list finds what the hand-written tests miss: some bugs only show after a
particular order of doors, several steps in. A runtime whose `run(continue_from=...)` does
not become the agent's current conversation looks right on every single call; it shows
only when a follow-up comes after a continuation (the follow-up then shows the older
conversation). A runtime whose follow_up always continues its *first* conversation needs
two runs before the follow-up. Lists of up to 8 steps over four doors reach such orders
quickly, and when one fails Hypothesis shrinks it: it deletes steps, moves each step
towards the first door (`Run`) and the first message, and lowers saved indexes, keeping
every change that still fails. Against those two runtimes, the ci profile reports
`[Run, Save, ContinueFrom(saved=0), FollowUp]` and `[Run, Run, FollowUp]` — not the
8-step list that first tripped — with a note per step saying what the model should have
been shown. The `@example`s below pin such orders so they run in every profile.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from hypothesis import example, given, note
from hypothesis import strategies as st

from conformance.adapter import AgentUnderTest, RefusalKind, Refused, RunOutcome
from conformance.runner.plugin import AgentFactory
from conformance.wire import ScriptedProvider, text

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

BOOK, THREE, OTHER = "Book a table.", "Make it three.", "And the other order?"
MESSAGES = (BOOK, THREE, OTHER)
"""Few and repeated on purpose: a runtime that tells turns apart by their text (and so
drops or merges a repeated message) is caught too. Every answer is distinct."""


@dataclass(frozen=True)
class Run:
    """run(msg): a new conversation."""

    msg: str


@dataclass(frozen=True)
class FollowUp:
    """follow_up(msg): refused with NO_CONVERSATION before any completed run."""

    msg: str


@dataclass(frozen=True)
class Save:
    """Store a JSON round trip of checkpoint() (nothing to store before any run)."""


@dataclass(frozen=True)
class ContinueFrom:
    """run(msg, continue_from=stored[saved % how many]) on the same agent."""

    saved: int
    msg: str


Step = Run | FollowUp | Save | ContinueFrom
Turns = tuple[tuple[str, str], ...]

_message = st.sampled_from(MESSAGES)
_any_step = st.one_of(
    st.builds(Run, _message),
    st.builds(FollowUp, _message),
    st.just(Save()),
    st.builds(ContinueFrom, st.integers(min_value=0, max_value=3), _message),
)
# Only a follow-up can come before the first run and do anything (be refused); a save or
# a continuation there would do nothing. So: at most one early follow-up, a run, then up
# to six steps of any door — at most 8, and no example wasted on steps that do nothing.
STEPS = st.tuples(
    st.lists(st.builds(FollowUp, _message), max_size=1),
    st.builds(Run, _message),
    st.lists(_any_step, max_size=6),
).map(lambda parts: [*parts[0], parts[1], *parts[2]])


@dataclass(frozen=True)
class Expect:
    """What one step must do: call the model once showing `shown` (and answer `answer`),
    be refused before sending anything, store a checkpoint holding `shown`, or nothing."""

    action: Literal["model", "refused", "save", "nothing"]
    shown: Turns = ()
    answer: str = ""


def predict(steps: list[Step]) -> list[Expect]:
    """The law as a model: the agent holds its last completed conversation; run starts
    from nothing, follow_up from that conversation, continue_from from the one handed in;
    every completed turn ends with its answer, and is what a checkpoint stores."""
    current: Turns | None = None
    stored: list[Turns] = []
    expected: list[Expect] = []
    for step in steps:
        if isinstance(step, Save):
            if current is not None:
                stored.append(current)
            expected.append(Expect("save", current) if current is not None else Expect("nothing"))
            continue
        if isinstance(step, Run):
            start: Turns | None = ()
        elif isinstance(step, FollowUp):
            start = current
        else:
            start = stored[step.saved % len(stored)] if stored else None
        if start is None:
            expected.append(Expect("refused" if isinstance(step, FollowUp) else "nothing"))
            continue
        answer = f"Answer {sum(e.action == 'model' for e in expected) + 1}."
        shown = (*start, ("user", step.msg))
        current = (*shown, ("assistant", answer))
        expected.append(Expect("model", shown, answer))
    return expected


_EXAMPLES = itertools.count(1)


async def perform(agent: AgentUnderTest, step: Step, stored: list[Any]) -> RunOutcome:
    if isinstance(step, Run):
        return await agent.run(step.msg)
    if isinstance(step, FollowUp):
        return await agent.follow_up(step.msg)
    assert isinstance(step, ContinueFrom)
    return await agent.run(step.msg, continue_from=stored[step.saved % len(stored)])


@pytest.mark.law(
    "run.no-history",
    "follow-up.shows-last-answer",
    "follow-up.refuses-before-first-run",
    "continue-from.any-conversation",
    "checkpoint.final-answer",
)
# A passing run takes seconds; shrinking a failure replays many examples, each with a new
# agent, so it gets more time than the suite's default before pytest-timeout stops it.
@pytest.mark.timeout(180)
@given(steps=STEPS)
# The orders the module docstring talks about, tried first in every profile: a
# continuation that must become the current conversation; a refusal, a repeated message
# and a follow-up of the *last* run; a stored copy continued after the agent moved on.
@example(steps=[Run(BOOK), Save(), Run(THREE), ContinueFrom(0, OTHER), FollowUp(THREE)])
@example(steps=[FollowUp(THREE), Run(BOOK), Run(BOOK), FollowUp(BOOK)])
@example(steps=[Run(BOOK), FollowUp(THREE), Save(), FollowUp(OTHER), ContinueFrom(0, OTHER)])
async def test_every_door_shows_the_model_what_the_law_predicts(
    fake: ScriptedProvider, new_agent: AgentFactory, steps: list[Step]
) -> None:
    expected = predict(steps)
    # One model name per example keeps this example's script and requests apart from the
    # others on the same fake; the script holds exactly one answer per model call. The
    # count is checked here, step by step and in total, so the fake's own unused-steps
    # check is switched off: it would only add a line per abandoned example to a failure
    # report while Hypothesis shrinks.
    model = f"turnlaw-stateful-{next(_EXAMPLES)}"
    answers = [e.answer for e in expected if e.action == "model"]
    if answers:
        fake.script([text(answer) for answer in answers], model=model, allow_unused=True)
    agent = await new_agent(model=model)
    stored: list[Any] = []
    for number, (step, expect) in enumerate(zip(steps, expected, strict=True), start=1):
        note(f"step {number}: {step!r} -> {expect.action} {list(expect.shown)}")
        before = len(fake.wire.for_model(model))
        if expect.action == "nothing":
            continue
        if expect.action == "save":
            checkpoint = json.loads(json.dumps(await agent.checkpoint()))
            assert expect.shown[-1][1] in json.dumps(checkpoint), (
                f"step {number}: the checkpoint does not hold the final answer of the last turn"
            )
            stored.append(checkpoint)
            continue
        if expect.action == "refused":
            with pytest.raises(Refused) as raised:
                await perform(agent, step, stored)
            assert raised.value.kind is RefusalKind.NO_CONVERSATION, (
                f"step {number}: a follow-up before any run was refused as {raised.value.kind}"
            )
            assert len(fake.wire.for_model(model)) == before, (
                f"step {number}: a refused follow-up still sent a request"
            )
            continue
        outcome = await perform(agent, step, stored)
        requests = fake.wire.for_model(model)
        assert len(requests) == before + 1, (
            f"step {number}: {type(step).__name__} made {len(requests) - before} model "
            "requests; one turn without tools is one request"
        )
        assert requests[-1].turns() == list(expect.shown), (
            f"step {number}: {type(step).__name__} showed the model another conversation "
            "than the law says (run: only its message; follow_up: the last completed "
            "conversation with its answer; continue_from: the stored one with its answer)"
        )
        assert outcome.answer == expect.answer, f"step {number}: the run answered otherwise"
    assert len(fake.wire.for_model(model)) == len(answers), "the model was called too often"
