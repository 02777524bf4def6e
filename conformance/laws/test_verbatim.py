"""A conversation is verbatim: what the model said in a turn comes back when it goes on.

A model speaks beside its calls, calls several tools with quoted and accented arguments,
and answers in several text blocks; a runtime that keeps only the calls, or re-words what
it joins, passes the one-thing-per-reply laws and fails this one.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Literal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Call,
    Capability,
    Dialect,
    Implementation,
    LawViolation,
    Refused,
    RequestIR,
    RunFailed,
    ScriptedProvider,
    Step,
    ToolCalls,
    declares,
    holds_outputs,
    premise,
    roundtrip,
    strings_in,
    text,
    text_blocks,
    tool_results,
    untyped,
)

pytestmark = pytest.mark.asyncio

LAW = "conversation.verbatim"
Door = Literal["follow_up", "continue_here", "continue_elsewhere"]
DOORS: tuple[Door, ...] = ("follow_up", "continue_here", "continue_elsewhere")
DOOR_LAW: dict[Door, str] = {
    "follow_up": "follow-up.shows-last-answer",
    "continue_here": "continue-from.any-conversation",
    "continue_elsewhere": "continue-from.any-conversation",
}
SAYINGS = (
    "",
    "Let me check the book for Friday.",
    'Checking "Chez Léa" — one moment…',
    "Two things first:\n- the date\n- the size",
)
"""What a model says beside its calls: nothing, a sentence, quotes and accents, lines."""
ARGUMENTS = ("table for 2", "Café «Léa», 8 pm ☕", 'say "yes"\nthen\tstop', "")
ANSWERS = (
    ("Booked: a table for two on Friday.",),
    ("Booked: a table for ", "two", " on Friday."),
    ("Booked.", "See you on Friday at 8."),
    ("Done:", "\n", "a table for three."),
)
"""Final answers, some in several text blocks: split mid-sentence (as a citation splits
one), between sentences with no space, and around a block that is only a line break."""

Said = tuple[str, str] | tuple[str, str, Any]
"""("text", words) or ("call", name, arguments): one thing the model said, in order."""
_counter = itertools.count()


def said_in(request: RequestIR) -> list[Said]:
    """Everything the assistant said in a request, flattened: its texts and its calls,
    in order, whichever messages carry them (adjacent texts are kept apart, to be joined
    by `same_words`)."""
    out: list[Said] = []
    for message in request.messages:
        if message.role != "assistant":
            continue
        if message.text:
            out.append(("text", message.text))
        out.extend(("call", call.name, call.arguments) for call in message.tool_calls)
    return out


def same_words(shown: str, blocks: list[str]) -> bool:
    """Is `shown` the blocks in order with nothing added: joined with nothing, or kept as
    blocks (the IR joins blocks, and separate assistant messages here, with a newline)?"""
    return re.fullmatch("\n?".join(re.escape(block) for block in blocks), shown) is not None


def verbatim(shown: list[Said], expected: list[Said]) -> bool:
    """Does `shown` say exactly `expected`? Runs of text are compared as one, block by
    block (`same_words`); calls by name and decoded arguments."""

    def runs(items: list[Said]) -> list[Said | list[str]]:
        grouped: list[Said | list[str]] = []
        for item in items:
            if item[0] == "text":
                if grouped and isinstance(grouped[-1], list):
                    grouped[-1].append(item[1])
                else:
                    grouped.append([item[1]])
            else:
                grouped.append(item)
        return grouped

    got, want = runs(shown), runs(expected)
    if len(got) != len(want):
        return False
    for seen, meant in zip(got, want, strict=True):
        if isinstance(meant, list):
            if not (isinstance(seen, list) and same_words("\n".join(seen), meant)):
                return False
        elif seen != meant:
            return False
    return True


Round = tuple[str, list[str]]
"""One tool round: what the model says beside its calls, and each echo call's text."""


def turn_steps(rounds: list[Round], answer: tuple[str, ...]) -> tuple[list[Step], list[Said]]:
    """The replies of one turn, and what they say (the turn's expected transcript)."""
    steps: list[Step] = []
    said: list[Said] = []
    for words, texts in rounds:
        calls = [Call(name="echo", arguments={"text": t}) for t in texts]
        steps.append(ToolCalls(calls=calls, text=words))
        said += [("text", words)] if words else []
        said += [("call", "echo", {"text": t}) for t in texts]
    steps.append(text_blocks(*answer) if len(answer) > 1 else text(answer[0]))
    return steps, [*said, *(("text", block) for block in answer)]


rounds_strategy = st.lists(
    st.tuples(
        st.sampled_from(SAYINGS),
        st.lists(st.sampled_from(ARGUMENTS), min_size=1, max_size=2),
    ),
    min_size=1,
    max_size=2,
)


async def continued(
    agent: AgentUnderTest, door: Door, message: str, new_agent: AgentFactory
) -> AgentUnderTest:
    """Continue `agent`'s conversation through `door`; the agent that holds it now."""
    if door == "follow_up":
        await agent.follow_up(message)
        return agent
    held = roundtrip(await agent.checkpoint())
    if door == "continue_elsewhere":
        agent = await new_agent(tools=("echo",))
    await agent.run(message, continue_from=held)
    return agent


@pytest.mark.law("conversation.verbatim")
@given(
    door=st.sampled_from(DOORS),
    first=rounds_strategy,
    second=rounds_strategy,
    answers=st.tuples(st.sampled_from(ANSWERS), st.sampled_from(ANSWERS)),
)
@settings(report_multiple_bugs=False, max_examples=8)
@example(
    door="follow_up",
    first=[(SAYINGS[1], [ARGUMENTS[0]])],
    second=[(SAYINGS[2], [""])],
    answers=(ANSWERS[2], ANSWERS[1]),
)
@example(
    door="continue_elsewhere",
    first=[(SAYINGS[3], [ARGUMENTS[1], ARGUMENTS[2]])],
    second=[("", [ARGUMENTS[0]])],
    answers=(ANSWERS[1], ANSWERS[3]),
)
async def test_what_the_model_said_beside_its_calls_comes_back(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: Door,
    first: list[Round],
    second: list[Round],
    answers: tuple[tuple[str, ...], tuple[str, ...]],
) -> None:
    # Two turns with tool rounds whose replies speak beside their calls, and answers in
    # one or several text blocks, continued twice: the second continuation replays a turn
    # that was itself continued. The first request of each continued turn must show
    # everything said so far, word for word.
    if door == "follow_up" and not declares(implementation, Capability.FOLLOW_UP):
        door = "continue_here"
    opening = f"{BOOK} Reference {next(_counter)}."
    one, said_one = turn_steps(first, answers[0])
    two, said_two = turn_steps(second, answers[1])
    fake.script(
        [*one, *two, text("Noted.")],
        when=lambda request: request.user_texts()[:1] == [opening],
    )
    agent = await new_agent(tools=("echo",))
    await agent.run(opening)
    expected = said_one
    for hop, (turn_said, rounds) in enumerate(((said_two, second), ([], [])), start=1):
        message = f"{THREE} Hop {hop}."
        try:
            agent = await continued(agent, door, message, new_agent)
        except Refused as refused:  # continuing at all is the door's law, not this one's
            premise(DOOR_LAW[door], False, f"{door} (hop {hop}) refused: {refused}")
        sent = fake.wire.requests[-(len(rounds) + 1)]
        premise(
            DOOR_LAW[door],
            sent.user_texts()[:1] == [opening] and sent.user_texts()[-1:] == [message],
            f"{door} did not continue the conversation at all",
        )
        if not verbatim(said_in(sent), expected):
            raise LawViolation(
                LAW,
                f"continuing through {door} (hop {hop}) did not show the model what it had "
                f"said, word for word: it was shown {said_in(sent)}, but it said {expected}",
            )
        expected = [*expected, *turn_said]


@pytest.mark.law("follow-up.shows-last-answer")
async def test_a_turn_that_spoke_beside_its_calls_can_be_followed_up(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    # The door's own law, for the reply the other follow-up tests never script: one that
    # says something and calls a tool. A runtime that takes the words for the answer and
    # leaves the calls unanswered ends its turn on a conversation no door can continue.
    said = SAYINGS[1]
    fake.script(
        [
            ToolCalls(calls=[Call(name="echo", arguments={"text": ARGUMENTS[0]})], text=said),
            text(ANSWERS[0][0]),
            text("Done: now a table for three."),
        ]
    )
    agent = await new_agent(tools=("echo",))
    await agent.run(BOOK)
    try:
        await agent.follow_up(THREE)
    except Refused as refused:
        raise AssertionError(
            f"follow_up refused to continue the agent's last completed run, a turn whose "
            f"model spoke beside a tool call ({refused.kind}): {refused}"
        ) from refused
    shown = fake.wire.last
    assert shown.user_texts() == [BOOK, THREE], (
        "follow_up did not continue the last completed run with the new message"
    )
    results = tool_results(shown)
    assert holds_outputs(results, [ARGUMENTS[0]]), (
        f"the follow-up showed the model tool results {results}: the call the model made "
        "beside its words was not answered in the turn it belongs to"
    )
    assert shown.assistant_texts()[-1:] == [ANSWERS[0][0]], (
        "the follow-up did not show the last completed run's answer before the new message"
    )


CUT_OFF = '{"text": "table for 2", "note": "by the wind'
"""Arguments that are not JSON: a model's call cut off mid-string (as at max tokens)."""
CUT_OFF_WORDS = ("table for 2", "by the wind")
"""What the model wrote in them, which any faithful replay still holds."""


@pytest.mark.law("conversation.verbatim")
@pytest.mark.parametrize("door", ["follow_up", "continue_elsewhere"])
async def test_a_call_whose_arguments_are_not_json_comes_back_with_them(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    dialect: Dialect,
    door: Door,
) -> None:
    # A runtime must parse arguments to run a tool, and may answer such a call with an
    # error, ask the model again, or repair the JSON; that is its choice. What the model
    # wrote is not: the call it is shown when the conversation goes on must still hold
    # every word of it (sent as it came, kept whole inside an object as "_raw" keeps it,
    # or repaired), never empty or partial arguments in its place.
    if dialect is Dialect.ANTHROPIC_MESSAGES:
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}Messages carries a call's input as a JSON object: "
            "a model cannot send arguments that are not JSON there"
        )
    if door == "follow_up" and not declares(implementation, Capability.FOLLOW_UP):
        door = "continue_here"
    opening = f"{BOOK} Reference {next(_counter)}."
    message = f"{THREE} Reference {next(_counter)}."
    answer = ANSWERS[0][0]
    bad_call = ToolCalls(calls=[Call(name="echo", arguments=CUT_OFF)])
    fake.script(  # room for a runtime that asks the model again after a malformed call
        [bad_call, text(answer), text(answer), text(answer)],
        when=lambda request: message not in request.user_texts(),
        allow_unused=True,
    )
    fake.script(
        [text("Done: now a table for three.")],
        when=lambda request: message in request.user_texts(),
    )
    agent = await new_agent(tools=("echo",))
    try:
        await agent.run(opening)
    except Exception as error:  # failed or crashed: either way no turn completed
        if not (isinstance(error, RunFailed) or untyped(error)):
            raise  # the harness's own failure stays ERROR
        fake.allow_unused()
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}the run whose model made a call with arguments that "
            f"are not JSON did not complete ({type(error).__name__}), so no conversation "
            "holds the call"
        )
    try:
        await continued(agent, door, message, new_agent)
    except Refused as refused:
        premise(DOOR_LAW[door], False, f"{door} refused: {refused}")
    shown = fake.wire.last
    calls = [c.arguments for m in shown.messages if m.role == "assistant" for c in m.tool_calls]

    def kept(arguments: Any) -> bool:
        said = strings_in(arguments)
        return all(any(word in s for s in said) for word in CUT_OFF_WORDS)

    if not any(kept(arguments) for arguments in calls):
        raise LawViolation(
            LAW,
            f"continuing through {door}, the model was shown its calls with arguments {calls}: "
            f"what it wrote in {CUT_OFF!r} is gone",
        )
