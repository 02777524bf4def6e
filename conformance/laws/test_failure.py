"""Failure paths are laws too: what each door leaves behind when a run fails.

A run that failed did not complete, so neither `follow_up` nor `checkpoint()` may continue
it, and a question a person owes stays owed whatever a failed `resume` did: nothing of the
failed turn may reach the model later as if it had been answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    OUTLASTS_RETRIES,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Capability,
    Fault,
    Implementation,
    RefusalKind,
    Refused,
    RequestIR,
    RunFailed,
    RunOutcome,
    ScriptedProvider,
    Step,
    StreamError,
    continue_handed_back,
    declares,
    holds_output,
    holds_outputs,
    premise,
    roundtrip,
    text,
    tool_call,
    tool_results,
    untyped,
    user_turns_in_a_row,
)

pytestmark = pytest.mark.asyncio

FAILING = "Check the other order too."
"""The message of the turn the fake makes fail."""
REFUND = "Refund order 7, please."
QUESTION = "Approve a refund for order 7?"

FAULTS: dict[str, Step] = {
    "http-500": Fault(status=500),
    "http-429": Fault(status=429),
    "stream-cut": StreamError(mode="disconnect"),
    "stream-error-event": StreamError(mode="event"),
}
"""Each way the fake makes a model call fail (a StreamError sent to a request that does
not stream is a 500)."""

PARTIAL = "partial answer"
"""What a StreamError streams before it fails: half-work, never an answer."""

ATTEMPTS = ("run", "follow_up", "continue_from")
"""The doors a new message comes through; `resume` has its own law below."""


def failing(fake: ScriptedProvider, fault: Step, *, after_tool_round: bool = False) -> None:
    """Make every call of the FAILING turn fail (or, `after_tool_round`, every call after
    its first tool result), however often the runtime retries. Added before the test's
    own script, so those calls never consume its steps. A later turn (THREE) is never
    failed: whatever it shows is the evidence."""

    def fails(request: RequestIR) -> bool:
        texts = request.user_texts()
        if FAILING not in texts or THREE in texts:
            return False
        return not after_tool_round or (
            bool(request.messages) and request.messages[-1].role == "tool"
        )

    fake.script([fault] * OUTLASTS_RETRIES, name="failing turn", when=fails, allow_unused=True)


async def attempt(door: str, agent: AgentUnderTest, message: str, held: object) -> RunOutcome:
    """Send `message` through `door`: `run`, `follow_up`, or `run(continue_from=held)`."""
    if door == "follow_up":
        return await agent.follow_up(message)
    if door == "continue_from":
        return await agent.run(message, continue_from=roundtrip(held))
    return await agent.run(message)


async def fail(door: str, agent: AgentUnderTest, held: object = None) -> RunFailed | RunOutcome:
    """The FAILING turn through `door`, every model call of which fails: its RunFailed, or
    what the door returned instead. A runtime that answers a turn its model never answered
    (a fallback of its own) is judged on what comes next as one that failed is: nothing
    of the failed turn may be shown later as answered."""
    try:
        return await attempt(door, agent, FAILING, held)
    except RunFailed as failure:
        return failure


async def failed_after_a_tool_round(
    fake: ScriptedProvider, new_agent: AgentFactory, door: str, fault: str
) -> tuple[AgentUnderTest, RunFailed | RunOutcome]:
    """A completed run (BOOK), then the FAILING turn through `door`, whose model calls
    fail with `fault` once its first tool round (an echo) ran."""
    failing(fake, FAULTS[fault], after_tool_round=True)
    fake.script([text("Booked."), tool_call("echo", {"text": "order 8"}), text("Three it is.")])
    agent = await new_agent(tools=("echo",))
    completed = await agent.run(BOOK)
    return agent, await fail(door, agent, completed.checkpoint)


async def refusal_of(call: Callable[[], Awaitable[RunOutcome]]) -> Refused | None:
    """The refusal `call` met, or None when it was answered."""
    try:
        await call()
    except Refused as refusal:
        return refusal
    return None


def requires(implementation: Implementation, *capabilities: Capability) -> None:
    missing = [c.value for c in capabilities if not declares(implementation, c)]
    if missing:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}this door needs {', '.join(missing)}")


def no_failed_turn(request: RequestIR, what: str) -> None:
    """The core of every failure law: nothing of the failed turn is shown as answered."""
    assert FAILING not in request.user_texts(), (
        f"{what} showed the model the failed turn's message {FAILING!r}: a run that failed "
        "did not complete, and only completed runs are continued"
    )
    doubled = user_turns_in_a_row(request)
    assert not doubled, (  # the failed turn's message is not among them (checked above)
        f"{what} showed the model two user turns in a row ({request.turns()}): the "
        "answer of a completed run before them is missing, so what was continued is not "
        "the last completed run"
    )
    assert PARTIAL not in " ".join(request.assistant_texts()), (
        f"{what} showed the model the text a broken stream had begun ({PARTIAL!r}) as if "
        "it were an answer"
    )
    invented = invented_answers(request)
    assert not invented, (
        f"{what} showed the model answers it never gave ({invented}): a runtime's own "
        "fallback for a failed turn, kept as if the model had answered it"
    )


SAID = ("Booked.", "Three it is.")
"""Every answer the model gives in these tests: anything else shown as an assistant's
words was written by the runtime."""


def invented_answers(request: RequestIR) -> list[str]:
    """Assistant texts the request shows that the model never said (PARTIAL is reported
    on its own)."""
    return [
        said[:80]
        for said in request.assistant_texts()
        if said and said not in SAID and PARTIAL not in said
    ]


# --- follow_up continues the last completed run ----------------------------------------


@pytest.mark.law("failure.follow-up-continues-last-completed")
@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_follow_up_after_a_failed_first_run_has_nothing_to_follow(
    fake: ScriptedProvider, new_agent: AgentFactory, fault: str
) -> None:
    failing(fake, FAULTS[fault])
    fake.script([text("Three it is.")], allow_unused=True)
    agent = await new_agent()
    await fail("run", agent)
    sent = len(fake.wire.requests)
    refusal = await refusal_of(lambda: agent.follow_up(THREE))
    if refusal is not None:
        assert len(fake.wire.requests) == sent, "the refused follow-up reached the model"
        assert refusal.kind is RefusalKind.NO_CONVERSATION, (
            f"a follow-up after a first run that failed was refused as {refusal.kind.value}, "
            "not as no_conversation: nothing ever completed, so there is nothing to follow"
        )
        return
    no_failed_turn(fake.wire.last, "a follow-up after a failed first run")
    raise AssertionError(
        "a follow-up after a first run that failed was answered: no run had completed, so "
        "it must be refused as no_conversation, not become a first turn"
    )


@pytest.mark.law("failure.follow-up-continues-last-completed")
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("door", ATTEMPTS)
async def test_a_follow_up_after_a_failed_run_continues_the_last_completed_one(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    fault: str,
) -> None:
    if door == "continue_from":
        requires(implementation, Capability.CONTINUE_FROM)
    failing(fake, FAULTS[fault])
    fake.script([text("Booked."), text("Three it is.")])
    agent = await new_agent()
    completed = await agent.run(BOOK)
    await fail(door, agent, completed.checkpoint)
    await agent.follow_up(THREE)
    shown = fake.wire.last
    no_failed_turn(shown, f"a follow-up after a failed {door}")
    assert shown.turns() == [("user", BOOK), ("assistant", "Booked."), ("user", THREE)], (
        f"after a failed {door}, the follow-up did not continue the last completed run "
        f"(the model saw {shown.turns()})"
    )


# --- checkpoint() after a failure ------------------------------------------------------


@pytest.mark.law("failure.checkpoint-is-last-completed")
@pytest.mark.parametrize("fault", ["http-500", "stream-cut"])
@pytest.mark.parametrize("door", ATTEMPTS)
async def test_the_checkpoint_after_a_failed_run_is_the_last_completed_one(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    fault: str,
) -> None:
    if door == "follow_up":
        requires(implementation, Capability.FOLLOW_UP)
    agent, _ = await failed_after_a_tool_round(fake, new_agent, door, fault)
    stored = roundtrip(await agent.checkpoint())
    other = await new_agent(tools=("echo",))
    await other.run(THREE, continue_from=stored)
    shown = fake.wire.last
    no_failed_turn(shown, f"continuing checkpoint() taken after a failed {door}")
    assert shown.turns() == [("user", BOOK), ("assistant", "Booked."), ("user", THREE)], (
        f"checkpoint() after a failed {door} is not the last completed run's conversation "
        f"(continuing it showed {shown.turns()})"
    )


# --- a failed run hands back its last good checkpoint -----------------------------------


@pytest.mark.law("failure.hands-back-last-good-checkpoint")
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("door", ATTEMPTS)
async def test_a_run_that_failed_after_a_model_call_hands_back_a_continuable_checkpoint(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    door: str,
    fault: str,
) -> None:
    if door == "follow_up":
        requires(implementation, Capability.FOLLOW_UP)
    _, failure = await failed_after_a_tool_round(fake, new_agent, door, fault)
    if failure.checkpoint is None:
        fake.allow_unused()  # the continued turn's answer is never asked for
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}the runtime hands back no checkpoint of a failed run")
    other = await new_agent(tools=("echo",))
    cannot = f"the checkpoint a failed {door} handed back cannot be continued on another agent"
    await continue_handed_back(other, THREE, failure.checkpoint, cannot=cannot)
    shown = fake.wire.last
    doubled = user_turns_in_a_row(shown)
    assert not doubled, (
        f"continuing the checkpoint a failed {door} handed back showed two user turns in a "
        f"row (messages {doubled[0] - 1} and {doubled[0]}): it kept the failed turn's "
        "message without what answered it"
    )
    assert PARTIAL not in " ".join(shown.assistant_texts()), (
        f"the checkpoint a failed {door} handed back carries the text a broken stream had "
        f"begun ({PARTIAL!r}): half-work, shown to the model as an answer"
    )
    invented = invented_answers(shown)
    assert not invented, (
        f"the checkpoint a failed {door} handed back shows the model answers it never gave "
        f"({invented}): a fallback of the runtime's own, kept as the model's"
    )
    assert shown.turns()[-1] == ("user", THREE), "the continued turn's message is not last"
    if door != "run":
        assert shown.turns()[:2] == [("user", BOOK), ("assistant", "Booked.")], (
            f"the checkpoint a failed {door} handed back lost the completed run before it "
            f"(continuing it showed {shown.turns()})"
        )


# --- a pending question stays pending ---------------------------------------------------

RESUME_FAILURES = ("no-decision", *FAULTS)


@pytest.mark.law("failure.failed-resume-stays-pending")
@pytest.mark.parametrize("how", RESUME_FAILURES)
async def test_a_resume_that_fails_leaves_the_question_pending(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, how: str
) -> None:
    if how in FAULTS:
        # the resumed call (the decision as the asking call's result) fails
        fake.script(
            [FAULTS[how]] * OUTLASTS_RETRIES,
            name="failing resume",
            when=lambda request: any(holds_output(r, "no") for r in tool_results(request)),
            allow_unused=True,
        )
    fake.script(  # a door that does not refuse a new message gets an answer
        [text("Three it is.")] * 8,
        name="new messages",
        when=lambda request: THREE in request.user_texts(),
        allow_unused=True,
    )
    fake.script([tool_call("ask_person", {"question": QUESTION}), text("Refunded.")])
    agent = await new_agent(tools=("ask_person",))
    paused = await agent.run(REFUND)
    premise("pending.resume-continues", paused.paused is not None, "the run did not pause")
    held = roundtrip(paused.checkpoint)
    doors: list[tuple[str, Callable[[], Awaitable[RunOutcome]]]] = [
        ("run", lambda: agent.run(THREE))
    ]
    if declares(implementation, Capability.CONTINUE_FROM):
        doors.append(("run(continue_from=)", lambda: agent.run(THREE, continue_from=held)))
    if declares(implementation, Capability.FOLLOW_UP):
        doors.append(("follow_up", lambda: agent.follow_up(THREE)))
    # Which doors refuse while the question is owed is pending.refuses-new-message's to
    # judge; this law judges that a failed resume changes none of them.
    refusing = [door for door, message in doors if await refuses(fake, message)]

    sent = len(fake.wire.requests)
    try:
        again = await agent.resume(held, None if how == "no-decision" else "no")
    except (Refused, RunFailed):
        pass  # said no, or failed: what the agent does next is the law
    else:
        # paused again on the same question is a way of saying it is still owed
        assert again.paused is not None and again.paused.question == QUESTION, (
            f"resume ({how}) returned as if the question had been answered "
            f"({again.answer!r})" + (": no decision was given" if how == "no-decision" else "")
        )
    if how == "no-decision":
        assert len(fake.wire.requests) == sent, (
            "resume with no decision reached the model: nobody answered the question, so "
            "nothing may be sent as its answer"
        )
    for door, message in doors:
        if door not in refusing:
            continue
        sent = len(fake.wire.requests)
        refusal = await refusal_of(message)
        assert refusal is not None, (
            f"after a failed resume ({how}), a new message through {door} was answered, "
            "though it was refused while the question was owed: the question is still "
            "owed, and a message that walks around it is a consent gate anyone can walk "
            "around"
        )
        assert len(fake.wire.requests) == sent, f"the refused {door} reached the model"
        assert refusal.kind is RefusalKind.PENDING_QUESTION, (
            f"after a failed resume ({how}), a new message through {door} was refused as "
            f"{refusal.kind.value}, not as a question still pending"
        )
    try:
        resumed = await agent.resume(held, "yes")
    except (Refused, RunFailed) as error:
        raise AssertionError(
            f"after a failed resume ({how}), the paused checkpoint could not be resumed with "
            f"a decision ({error}): the question is still owed, so it is still resumable"
        ) from error
    assert resumed.answer == "Refunded.", "the question could not be resumed after a failed resume"
    results = tool_results(fake.wire.last)
    assert holds_outputs(results, ["yes"]), (
        f"resuming after a failed resume showed the model the results {results}: the "
        "question must be answered once, by the decision that finally came"
    )


async def refuses(fake: ScriptedProvider, message: Callable[[], Awaitable[RunOutcome]]) -> bool:
    """Is `message` refused before anything is sent? A door that raises something else
    is not judged here (what it should have done is the pending laws' to say)."""
    sent = len(fake.wire.requests)
    try:
        refused = await refusal_of(message) is not None
    except RunFailed:
        refused = False
    except Exception as error:
        if not untyped(error):
            raise
        refused = False
    return refused and len(fake.wire.requests) == sent
