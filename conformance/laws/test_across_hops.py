"""One hop, one round is not enough: a conversation stays whole across many hops, doors
mixed, and across several tool rounds in one run.

The older tests stopped after one follow-up or one tool round, so a runtime that lost
the conversation on the third hop, or stored only a turn's last tool round, passed.
Each Hypothesis example builds its own agents and opens with a message of its own.
"""

from __future__ import annotations

import itertools
from typing import Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ._kit import (
    BOOK,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Capability,
    IdentitySpec,
    Implementation,
    LawViolation,
    RequestIR,
    ScriptedProvider,
    Step,
    declares,
    holds_outputs,
    roundtrip,
    text,
    tool_call,
    tool_results,
    whoami_report,
)

pytestmark = pytest.mark.asyncio

Door = Literal["follow_up", "continue_here", "continue_elsewhere"]
DOORS: tuple[Door, ...] = ("follow_up", "continue_here", "continue_elsewhere")
LAW_OF: dict[Door, str] = {
    "follow_up": "follow-up.shows-last-answer",
    "continue_here": "continue-from.any-conversation",
    "continue_elsewhere": "continue-from.any-conversation",
}
_counter = itertools.count()

Transcript = tuple[list[str], list[str], list[str]]


def transcript(request: RequestIR) -> Transcript:
    """What the model was shown, portably: user texts, answers, tool results."""
    return request.user_texts(), request.assistant_texts(), tool_results(request)


def matches(shown: Transcript, expected: Transcript) -> bool:
    """The same conversation, tool results compared by the tools' outputs (a runtime may
    wrap what a tool returned)."""
    return shown[:2] == expected[:2] and holds_outputs(shown[2], expected[2])


def hop_steps(hop: int, rounds: int) -> list[Step]:
    calls: list[Step] = [tool_call("echo", {"text": f"hop {hop} round {r}"}) for r in range(rounds)]
    return [*calls, text(f"Answer {hop}.")]


@pytest.mark.law("follow-up.shows-last-answer", "continue-from.any-conversation")
@given(
    doors=st.lists(st.sampled_from(DOORS), min_size=3, max_size=5),
    rounds=st.lists(st.integers(min_value=0, max_value=2), min_size=6, max_size=6),
)
@settings(report_multiple_bugs=False, max_examples=12)
@example(doors=["follow_up", "follow_up", "follow_up"], rounds=[0, 0, 0, 0, 0, 0])
@example(doors=["continue_elsewhere", "follow_up", "continue_here"], rounds=[2, 1, 2, 0, 0, 0])
async def test_every_hop_shows_the_whole_conversation(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    doors: list[Door],
    rounds: list[int],
) -> None:
    if not declares(implementation, Capability.FOLLOW_UP):
        doors = [d if d != "follow_up" else "continue_here" for d in doors]
    opening = f"{BOOK} Reference {next(_counter)}."
    steps = [s for hop in range(len(doors) + 1) for s in hop_steps(hop, rounds[hop])]
    # A model of its own keeps this example's script apart from the others' whatever the
    # runtime drops: a hop that lost the opening is judged below, in the law's words.
    model = f"turnlaw-hops-{next(_counter)}"
    fake.script(steps, model=model)
    agent: AgentUnderTest = await new_agent(tools=("echo",), model=model)
    await agent.run(opening)
    users, answers, results = (
        [opening],
        ["Answer 0."],
        [f"hop 0 round {r}" for r in range(rounds[0])],
    )
    for hop, door in enumerate(doors, start=1):
        message = f"{THREE} Hop {hop}."
        if door == "follow_up":
            await agent.follow_up(message)
        else:
            held = roundtrip(await agent.checkpoint())
            if door == "continue_elsewhere":
                agent = await new_agent(tools=("echo",), model=model)
            await agent.run(message, continue_from=held)
        users.append(message)
        first = fake.wire.requests[-(rounds[hop] + 1)]
        if not matches(transcript(first), (users, answers, results)):
            raise LawViolation(
                LAW_OF[door],
                f"hop {hop} of {doors} ({door}) did not show the whole conversation: the "
                f"model was shown {transcript(first)}, expected {(users, answers, results)}",
            )
        results += [f"hop {hop} round {r}" for r in range(rounds[hop])]
        answers.append(f"Answer {hop}.")


@pytest.mark.law("checkpoint.no-trim")
async def test_a_turn_of_two_tool_rounds_is_stored_whole(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script(
        [
            tool_call("echo", {"text": "table for 2"}),
            tool_call("echo", {"text": "Friday 8pm"}),
            text("Booked."),
            text("Three it is."),
        ]
    )
    agent = await new_agent(tools=("echo",))
    outcome = await agent.run(BOOK)
    in_run = transcript(fake.wire.last)[2]
    assert holds_outputs(in_run, ["table for 2", "Friday 8pm"]), (
        f"the second tool round of one run did not show the first round's result: {in_run}"
    )
    other = await new_agent(tools=("echo",))
    await other.run(THREE, continue_from=roundtrip(outcome.checkpoint))
    shown = transcript(fake.wire.last)
    assert matches(shown, ([BOOK, THREE], ["Booked."], ["table for 2", "Friday 8pm"])), (
        "a stored turn of two tool rounds did not continue whole: nothing may trim the "
        f"history on the way to storage, but continuing it showed {shown}"
    )


NAMES = st.sampled_from(["ana", "bo", "cy"])


@pytest.mark.law("checkpoint.carries-identity")
@given(
    doors=st.lists(st.sampled_from(DOORS), min_size=3, max_size=4),
    overrides=st.lists(st.one_of(st.none(), NAMES), min_size=4, max_size=4),
)
@settings(report_multiple_bugs=False, max_examples=10)
@example(doors=["continue_elsewhere", "continue_elsewhere", "continue_here"], overrides=[None] * 4)
@example(
    doors=["continue_here", "follow_up", "continue_elsewhere"], overrides=[None, "bo", None, None]
)
async def test_every_hop_runs_under_the_identity_the_conversation_carries(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    doors: list[Door],
    overrides: list[str | None],
) -> None:
    """Named at the first turn, the identity is carried by every hop after it, whatever the
    door, and an identity passed on a continued hop replaces it from then on. Only
    `continue_from` hops may pass one (follow_up takes a message only)."""
    if not declares(implementation, Capability.FOLLOW_UP):
        doors = [d if d != "follow_up" else "continue_here" for d in doors]
    opening = f"{BOOK} Reference {next(_counter)}."
    steps: list[Step] = []
    for hop in range(len(doors) + 1):
        steps += [tool_call("whoami"), text(f"Answer {hop}.")]
    model = f"turnlaw-hops-{next(_counter)}"
    fake.script(steps, model=model)
    agent: AgentUnderTest = await new_agent(tools=("whoami",), model=model)
    named = IdentitySpec(conversation_id=f"conv-{next(_counter)}", principal="first")
    await agent.run(opening, identity=named)
    for hop, door in enumerate(doors, start=1):
        message = f"{THREE} Hop {hop}."
        override = overrides[hop - 1] if door != "follow_up" else None
        if door == "follow_up":
            await agent.follow_up(message)
        else:
            held = roundtrip(await agent.checkpoint())
            if door == "continue_elsewhere":
                agent = await new_agent(tools=("whoami",), model=model)
            passed = None
            if override is not None:
                passed = IdentitySpec(conversation_id=f"conv-{override}", principal=override)
            await agent.run(message, continue_from=held, identity=passed)
            named = passed or named
        told = tool_results(fake.wire.last)[-1]
        identity = ((whoami_report(told) or {}).get("identity")) or {}
        assert identity.get("conversation_id") == named.conversation_id, (
            f"hop {hop} of {doors} ({door}, identity passed: {override}) did not run under "
            f"the identity the conversation carries ({named.conversation_id!r}): its tool "
            f"was told {told[:200]!r}"
        )
