"""A message while a person still owes an answer, as a table: every way out, every door.

A paused run is unfinished work with a person on the other end: no door lets a new
message reach the model around the question, and each refuses it as a pending question.
"""

from __future__ import annotations

import itertools

import pytest

from ._kit import (
    DOORS,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Capability,
    Implementation,
    RefusalKind,
    Refused,
    RequestIR,
    RunOutcome,
    ScriptedProvider,
    answer_attempts,
    answers_to,
    attempt,
    declares,
    door_call,
    holds_output,
    judge_refusals,
    kinds_for,
    next_turn,
    parallel_calls,
    premise,
    roundtrip,
    skip_cell_without,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

CORE = "pending.refuses-new-message"
KIND = "pending.refusal-kind"
RESUMES = "pending.resume-continues"

REFUND = "Refund order 7, please."
QUESTION = "Approve a refund for order 7?"
MESSAGES = {
    "plain": "Never mind.",
    "empty": "",
    "whitespace": " \n\t ",
    "long": "Never mind, forget the refund. " * 1000,
    "unicode": "Laisse tomber — עזוב 🧾 e\u0301 \u200d",
}

RECEIVERS = ("the paused agent", "another agent")
SOURCES = (
    None,
    "the paused outcome's checkpoint",
    "checkpoint() taken while paused",
    "another conversation's paused checkpoint",
)
NEEDS = {"follow_up": Capability.FOLLOW_UP, "run(continue_from=)": Capability.CONTINUE_FROM}


def applies(receiver: str, door: str, source: str | None) -> bool:
    """Which cells of receivers / doors / sources walk around the question if let through."""
    if door in ("run", "follow_up"):  # they take no conversation: the paused agent's own
        return receiver == "the paused agent" and source is None
    if door == "resume":  # resuming the paused conversation answers it; resuming another
        # conversation on the paused agent drops its question
        return receiver == "the paused agent" and source == SOURCES[3]
    # run(continue_from=): the paused conversation, however it left, on either agent
    return source in SOURCES[1:3]


WAYS = [
    (receiver, door, source)
    for receiver, door, source in itertools.product(RECEIVERS, DOORS, SOURCES)
    if applies(receiver, door, source)
]
TABLE = [
    pytest.param(
        receiver,
        door,
        source,
        message,
        id=" / ".join(part for part in (receiver, door, source, f"{message} message") if part),
    )
    for (receiver, door, source), message in itertools.product(WAYS, MESSAGES)
]


def unanswered(request: RequestIR) -> list[str]:
    """The tool calls a request shows without a result: a question walked around."""
    answered = {m.tool_call_id for m in request.messages if m.role == "tool"}
    return [c.id for m in request.messages for c in m.tool_calls if c.id not in answered]


async def paused_agent(new_agent: AgentFactory) -> tuple[AgentUnderTest, RunOutcome]:
    agent = await new_agent(tools=("ask_person",))
    paused = await agent.run(REFUND)
    premise(
        RESUMES,
        paused.paused is not None and paused.answer is None,
        "a run whose tool asked a person did not pause",
    )
    return agent, paused


async def judge_cell(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    cell_of: tuple[str, str, str | None, str],
    *,
    kind: bool,
) -> None:
    """Pause an agent, let the conversation leave it as the cell says, try the door: the
    core (nothing reached the model), then (with `kind`) the refusal's kind."""
    receiver, door, source, message = cell_of
    skip_cell_without(implementation, NEEDS, door)
    cell = " / ".join(part for part in (receiver, door, source) if part)
    cell = f"{cell}, {message} message"
    steps = [tool_call("ask_person", {"question": QUESTION})]
    if source == SOURCES[3]:
        steps.append(tool_call("ask_person", {"question": "Approve order 9?"}))
    answer_attempts(fake, [MESSAGES[message], THREE])
    fake.script(steps)
    agent, paused = await paused_agent(new_agent)
    premise(
        RESUMES,
        paused.paused is not None and paused.paused.question == QUESTION,
        "the paused run did not report its question",
    )
    handed = {
        None: None,
        SOURCES[1]: paused.checkpoint,
        SOURCES[2]: await agent.checkpoint(),
        SOURCES[3]: None,
    }[source]
    if source == SOURCES[3]:
        _, elsewhere = await paused_agent(new_agent)
        handed = elsewhere.checkpoint
    receiving = agent if receiver == "the paused agent" else await new_agent(tools=("ask_person",))
    if receiver == "another agent":
        handed = roundtrip(handed)  # what a store, or another process, hands back
    sent = len(fake.wire.requests)
    came = [("the door", await attempt(door_call(receiving, door, MESSAGES[message], handed)))]
    # the refusal must leave the question pending: the paused agent still refuses
    came.append(("a plain run on the paused agent after it", await attempt(agent.run(THREE))))
    after = fake.wire.requests[sent:]
    broken = None
    if after:
        dangling = unanswered(after[0])
        broken = (
            f"{cell}: a new message walked around a pending question: {len(after)} request(s) "
            "reached the model while a person still owed an answer"
            + (f", showing the asking call(s) {dangling} with no result" if dangling else "")
            + f" (the door {came[0][1].said()})"
        )
    accepted = kinds_for(MESSAGES[message], RefusalKind.PENDING_QUESTION)
    seed_error = "the seed's PendingQuestionError"
    refused_as = f"a pending question ({RefusalKind.PENDING_QUESTION.value}, {seed_error})"
    judge_refusals(cell, came, broken, (CORE, KIND if kind else None), accepted, refused_as)


# Two tests per cell, as for a run in flight: the core has a test of its own, and the
# kind's test rests on it (a broken core is a premise not met there).
@pytest.mark.law("pending.refuses-new-message")
@pytest.mark.parametrize(("receiver", "door", "source", "message"), TABLE)
async def test_no_door_walks_around_a_pending_question(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    receiver: str,
    door: str,
    source: str | None,
    message: str,
) -> None:
    cell = (receiver, door, source, message)
    await judge_cell(fake, new_agent, implementation, cell, kind=False)


@pytest.mark.law("pending.refusal-kind")
@pytest.mark.parametrize(("receiver", "door", "source", "message"), TABLE)
async def test_every_door_with_a_question_pending_is_refused_as_one(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    receiver: str,
    door: str,
    source: str | None,
    message: str,
) -> None:
    cell = (receiver, door, source, message)
    await judge_cell(fake, new_agent, implementation, cell, kind=True)


@pytest.mark.law("pending.resume-continues")
async def test_resume_answers_the_asking_call_with_the_decision(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script(
        [
            parallel_calls(("echo", {"text": "order 7"}), ("ask_person", {"question": QUESTION})),
            text("Refund approved for order 7."),
        ]
    )
    agent = await new_agent(tools=("echo", "ask_person"))
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a run whose tool asked a person did not pause"
    asking = paused.paused.tool_call_id
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refund approved for order 7." and done.paused is None, (
        "resume did not carry the paused run on to its answer"
    )
    assert len(fake.wire.requests) == 2, "resume did not make exactly one more model call"
    resumed = fake.wire.last
    results = {m.tool_call_id: m.text for m in resumed.messages if m.role == "tool"}
    assert holds_output(results.get(asking, ""), "approved"), (
        f"after resume the model was not shown the person's decision as the result of the "
        f"asking call {asking!r}; tool results shown: {results}"
    )
    failed = [m.tool_call_id for m in resumed.messages if m.role == "tool" and m.is_error]
    assert asking not in failed, (
        "the person's decision reached the model as a failed tool result (an error flag on "
        f"the asking call {asking!r}): a decision answers the question, it is not an error"
    )
    calls = [c.id for m in resumed.messages for c in m.tool_calls]
    twice = {call: n for call, n in answers_to(resumed).items() if n > 1}
    assert not twice, f"resume answered a tool call more than once: {twice}"
    assert set(answers_to(resumed)) == set(calls), "resume left a tool call unanswered"
    assert resumed.user_texts() == [REFUND], (
        "resume did not continue the paused turn: the decision or a new message became a "
        f"user turn ({resumed.user_texts()})"
    )


@pytest.mark.law("pending.abandon-returns-dropped")
async def test_abandoning_a_pause_returns_what_it_dropped(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    fake.script([tool_call("ask_person", {"question": QUESTION}), text("What can I do instead?")])
    agent = await new_agent(tools=("ask_person",))
    assert await agent.abandon_pause() is None, "abandon_pause() before any run dropped something"
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a run whose tool asked a person did not pause"
    dropped = await agent.abandon_pause()
    expected = {"tool_name": "ask_person", "tool_call_id": paused.paused.tool_call_id}
    assert dropped is not None, "abandon_pause() with a question pending returned nothing"
    assert {key: dropped.get(key) for key in (*expected, "question")} == {
        **expected,
        "question": QUESTION,
    }, f"abandon_pause() did not say what it dropped: {dropped}"
    assert await agent.abandon_pause() is None, "a second abandon_pause() dropped it again"
    if not (
        declares(implementation, Capability.FOLLOW_UP)
        or declares(implementation, Capability.CONTINUE_FROM)
    ):
        fake.allow_unused()  # no door continues the agent's own conversation
        return
    try:
        await next_turn(agent, implementation, THREE)
    except Refused as refused:
        raise AssertionError(
            f"after abandon_pause(), the next turn was refused ({refused.kind.value}: "
            f"{refused.message}): the abandonment left a conversation the agent cannot "
            "continue, so the question was performed blind rather than dropped"
        ) from refused
    after = fake.wire.last
    assert after.user_texts() == [REFUND, THREE], (
        "the turn after abandoning did not continue the conversation with the new message"
    )
    assert answers_to(after)[paused.paused.tool_call_id] == 1, (
        "after abandoning, the dropped call was not closed with exactly one result"
    )
    assert await agent.abandon_pause() is None, "abandon_pause() after a completed run was not None"


# Where the question sits in its batch: calls before it ran, calls after it did not.
BATCHES = {
    "the question first": ("ask_person", "echo", "echo"),
    "the question between": ("echo", "ask_person", "echo"),
    "the question last": ("echo", "echo", "ask_person"),
}


@pytest.mark.law("pending.abandon-returns-dropped")
@pytest.mark.parametrize("batch", BATCHES)
async def test_abandoning_a_pause_in_a_batch_leaves_no_call_of_it_unanswered(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, batch: str
) -> None:
    """The abandonment is said, not performed blind: the question is dropped, and so is the
    rest of its paused turn, so the next turn shows a conversation whose every call has
    its one result (what it says of the calls that never ran is the runtime's)."""
    if not (
        declares(implementation, Capability.FOLLOW_UP)
        or declares(implementation, Capability.CONTINUE_FROM)
    ):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}the turn after abandoning needs the follow_up or "
            "continue_from capability"
        )
    tools = BATCHES[batch]
    fake.script(
        [
            parallel_calls(
                *(
                    (name, {"question": QUESTION} if name == "ask_person" else {"text": f"o{n}"})
                    for n, name in enumerate(tools)
                )
            ),
            text("What can I do instead?"),
        ]
    )
    agent = await new_agent(tools=("echo", "ask_person"))
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a batch with ask_person in it did not pause"
    asking = paused.paused.tool_call_id
    dropped = await agent.abandon_pause()
    assert dropped is not None and dropped.get("tool_call_id") == asking, (
        f"abandon_pause() with {batch} of a batch pending did not say it dropped the asking "
        f"call {asking!r}: it returned {dropped}"
    )
    try:
        await next_turn(agent, implementation, THREE)
    except Refused as refused:
        raise AssertionError(
            f"after abandoning a pause with {batch} of its batch, the next turn was refused "
            f"({refused}): the abandonment left a conversation the agent cannot continue"
        ) from refused
    after = fake.wire.last
    calls = [c.id for m in after.messages for c in m.tool_calls]
    counts = answers_to(after)
    wrong = {call: counts[call] for call in calls if counts[call] != 1}
    assert len(calls) == len(tools) and not wrong, (
        f"after abandoning a pause with {batch} of its batch, the next turn showed the "
        f"calls {calls} with result counts {wrong} (each must have exactly one)"
    )
    assert after.user_texts() == [REFUND, THREE], (
        "the turn after abandoning did not continue the conversation with the new message"
    )
