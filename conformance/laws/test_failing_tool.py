"""A tool that raises is a failure path too: whatever the runtime makes of it, the
failure laws hold.

The seed names no tool errors, so the runtime may answer the call with an error result or
fail the run; either way nothing of a failed run is continued as if it had been answered.
"""

from __future__ import annotations

from collections.abc import Awaitable

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Capability,
    Implementation,
    Refused,
    RequestIR,
    RunFailed,
    RunOutcome,
    ScriptedProvider,
    declares,
    roundtrip,
    text,
    tool_call,
    untyped,
)

pytestmark = pytest.mark.asyncio

FAILING = "Check the other order too."
"""The message of the turn whose tool raises."""
SORRY = "The booking service is down."
"""What the model answers once it has read the tool's error (if it is given it)."""
KEY = "other-order"
"""The service key the fake fails."""
BEFORE = [("user", BOOK), ("assistant", "Booked.")]
"""The completed run before the failing turn."""

DOORS = ("run", "follow_up", "continue_from")

Attempt = RunOutcome | RunFailed | None
"""What the failing turn came to: answered, a typed failure, or (None) an untyped error."""


def script(fake: ScriptedProvider) -> None:
    """BOOK is answered; the FAILING turn calls the failing tool, then (if the runtime
    shows it the error) answers SORRY; a THREE turn is answered."""
    fake.service(KEY, fails=True)
    fake.script([text("Booked.")], name="first turn", when=lambda r: r.user_texts()[-1:] == [BOOK])
    fake.script(
        [tool_call("call_service", {"key": KEY}), text(SORRY)],
        name="failing tool's turn",
        when=lambda r: FAILING in r.user_texts() and THREE not in r.user_texts(),
        allow_unused=True,
    )
    fake.script(
        [text("Three it is.")] * 2,
        name="next turn",
        when=lambda r: THREE in r.user_texts(),
        allow_unused=True,
    )


async def set_up(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, door: str
) -> tuple[AgentUnderTest, Attempt]:
    """A completed run (BOOK), then the FAILING turn through `door`: the agent and what
    the failing turn came to."""
    if not declares(implementation, Capability.CALL_SERVICE):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a tool that raises needs call_service")
    needed = {"follow_up": Capability.FOLLOW_UP, "continue_from": Capability.CONTINUE_FROM}
    if door in needed and not declares(implementation, needed[door]):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}the {door} door needs {needed[door].value}")
    script(fake)
    agent = await new_agent(tools=("call_service",))
    completed = await agent.run(BOOK)
    try:
        if door == "follow_up":
            return agent, await agent.follow_up(FAILING)
        if door == "continue_from":
            held = roundtrip(completed.checkpoint)
            return agent, await agent.run(FAILING, continue_from=held)
        return agent, await agent.run(FAILING)
    except RunFailed as failure:
        return agent, failure
    except Exception as error:
        if not untyped(error):
            raise
        return agent, None  # the run did not complete; the error's type is not this law's


async def go_on(what: str, turn: Awaitable[RunOutcome]) -> None:
    """The next turn, which must be answered: an untyped error instead (a runtime that
    kept a call without its result, say, and chokes on it) is this law's FAIL."""
    try:
        await turn
    except Exception as error:
        if not untyped(error):
            raise
        raise AssertionError(
            f"{what} after a turn whose tool raised crashed ({type(error).__name__}: "
            f"{str(error)[:300]}) instead of continuing the last completed run"
        ) from error


def judge_next(shown: RequestIR, attempt: Attempt, door: str, what: str) -> None:
    """The core: the turn after the failing one continues the last completed run."""
    turns = shown.turns()
    assert turns[-1:] == [("user", THREE)], f"{what}: the new message is not last ({turns})"
    if isinstance(attempt, RunOutcome):
        # completed: its answer is what continues (an unanswered call the fake's
        # invariants would see)
        assert SORRY in shown.assistant_texts(), (
            f"{what}, after a {door} whose tool raised and which completed "
            f"({attempt.answer!r}), did not show that completed turn's answer ({turns})"
        )
        if door != "run":
            assert turns[:2] == BEFORE, f"{what} lost the run before the failing one ({turns})"
        return
    assert FAILING not in shown.user_texts(), (
        f"{what} showed the model the message of a {door} that failed when its tool raised: "
        "a run that failed did not complete, and only completed runs are continued"
    )
    assert turns == [*BEFORE, ("user", THREE)], (
        f"after a {door} that failed when its tool raised, {what} did not continue the "
        f"last completed run (the model saw {turns})"
    )


@pytest.mark.law("failure.follow-up-continues-last-completed")
@pytest.mark.parametrize("door", DOORS)
async def test_a_follow_up_after_a_tool_raised_continues_the_last_completed_run(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, door: str
) -> None:
    agent, attempt = await set_up(fake, new_agent, implementation, door)
    await go_on("the follow-up", agent.follow_up(THREE))
    judge_next(fake.wire.last, attempt, door, "the follow-up")


@pytest.mark.law("failure.checkpoint-is-last-completed")
@pytest.mark.parametrize("door", DOORS)
async def test_the_checkpoint_after_a_tool_raised_is_the_last_completed_run(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, door: str
) -> None:
    agent, attempt = await set_up(fake, new_agent, implementation, door)
    stored = roundtrip(await agent.checkpoint())
    other = await new_agent(tools=("call_service",))
    await go_on("continuing checkpoint()", other.run(THREE, continue_from=stored))
    judge_next(fake.wire.last, attempt, door, "continuing checkpoint()")


@pytest.mark.law("failure.hands-back-last-good-checkpoint")
@pytest.mark.parametrize("door", DOORS)
async def test_a_run_failed_by_its_tool_hands_back_a_continuable_checkpoint(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, door: str
) -> None:
    _, attempt = await set_up(fake, new_agent, implementation, door)
    if not isinstance(attempt, RunFailed) or attempt.checkpoint is None:
        fake.allow_unused()
        done = "answered the call" if isinstance(attempt, RunOutcome) else "handed back nothing"
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}the runtime {done} when its tool raised")
    found = len([f for f in fake.findings if f.kind == "invariant"])
    other = await new_agent(tools=("call_service",))
    try:
        await go_on(
            "continuing the handed-back checkpoint",
            other.run(THREE, continue_from=roundtrip(attempt.checkpoint)),
        )
    except Refused as refusal:
        raise AssertionError(
            f"the checkpoint a {door} handed back when its tool raised cannot be continued "
            f"(refused as {refusal.kind.value}: {refusal.message}): a call left without its "
            "result is half-work, not a conversation"
        ) from refusal
    broke = [f for f in fake.findings if f.kind == "invariant"][found:]
    assert not broke, (
        f"continuing the checkpoint a {door} handed back when its tool raised sent a broken "
        f"conversation ({broke[0].message}): it kept the failed turn's half-work"
    )
    turns = fake.wire.last.turns()
    assert turns[-1:] == [("user", THREE)], f"the new message is not last ({turns})"
    roles = [m.role for m in fake.wire.last.messages]
    assert ["user", "user"] not in [roles[i : i + 2] for i in range(len(roles) - 1)], (
        f"the checkpoint a {door} handed back when its tool raised kept the failed turn's "
        f"message without what answered it: two user turns in a row ({turns})"
    )
    if door != "run":
        assert turns[:2] == BEFORE, (
            f"the checkpoint a {door} handed back when its tool raised lost the completed "
            f"run before it ({turns})"
        )
