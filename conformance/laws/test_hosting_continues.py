"""One conversation per session, stored, continued through the continueFrom door.

`standingAgent({ agent, sessions, host })` continues "one conversation per session,
stored": a session's next turn shows its earlier turns verbatim, and exactly what
`run(message, continue_from=<stored>)` on a fresh agent would send.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    BOOKED,
    CONTINUES,
    OTHER,
    OUTLASTS_RETRIES,
    REPLIES,
    SYSTEM,
    THREE,
    UNANSWERED,
    AgentFactory,
    Fault,
    HostFactory,
    HostOutcome,
    HostReply,
    MintedValues,
    RequestIR,
    ScriptedProvider,
    Text,
    ToolCalls,
    assert_said,
    newest_is,
    numbered_calls,
    premise,
    roundtrip,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "hosting.through-continue-from"
UPDATED = "Done: a table for three."
OPENS = "We open at noon."
LATER = "And add a high chair."
ADDED = "High chair added."
FAILING = "Check the other order too."


def answered(reply: HostReply, answer: str, what: str) -> None:
    """A turn the law needs answered was answered, with the scripted text."""
    assert_said(reply, HostOutcome.ANSWERED, what=what)
    assert reply.output == answer, f"{what} answered {reply.output!r}, not {answer!r}"


def seen(request: RequestIR) -> list[tuple[str, str]]:
    return request.turns()


@pytest.mark.law("hosting.session-continues")
@pytest.mark.parametrize("stream", [False, True], ids=REPLIES.values())
async def test_a_session_shows_its_own_turns_verbatim_and_another_shows_none(
    fake: ScriptedProvider, new_host: HostFactory, stream: bool
) -> None:
    fake.script([text(BOOKED), text(UPDATED), text(OPENS), text(ADDED)])
    host = await new_host(system=SYSTEM)
    caller = host.caller()
    # Session ids are caller data: these are the caller's own, not minted by the host.
    session, other = "session-continues-1", "session-continues-2"

    answered(await caller.send(BOOK, session_id=session, stream=stream), BOOKED, "turn 1")
    answered(await caller.send(THREE, session_id=session, stream=stream), UPDATED, "turn 2")
    second = fake.wire.last
    expected = [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]
    assert seen(second) == expected, (
        f"turn 2 of session {session!r} ({REPLIES[stream]} replies) showed the model "
        f"{seen(second)}, not turn 1's message and answer verbatim followed by its own: "
        f"{expected}"
    )

    answered(await caller.send(OTHER, session_id=other, stream=stream), OPENS, "another session")
    assert seen(fake.wire.last) == [("user", OTHER)], (
        f"the first turn of a fresh session {other!r} showed the model "
        f"{seen(fake.wire.last)}, not only its own message: sessions are separate conversations"
    )

    answered(await caller.send(LATER, session_id=session, stream=stream), ADDED, "turn 3")
    expected = [*expected, ("assistant", UPDATED), ("user", LATER)]
    assert seen(fake.wire.last) == expected, (
        f"turn 3 of session {session!r} showed the model {seen(fake.wire.last)}, not both "
        f"earlier turns verbatim followed by its own: {expected}"
    )
    assert len(fake.wire.requests) == 4, (
        f"four turns without tools made {len(fake.wire.requests)} model requests, not four"
    )


@pytest.mark.law("hosting.session-continues")
@pytest.mark.parametrize("stream", [False, True], ids=REPLIES.values())
async def test_a_failed_turn_is_not_stored_and_the_session_continues_from_the_last_completed(
    fake: ScriptedProvider, new_host: HostFactory, stream: bool
) -> None:
    def fails(request: RequestIR) -> bool:
        texts = request.user_texts()
        return FAILING in texts and THREE not in texts

    fake.script([Fault(status=500)] * OUTLASTS_RETRIES, when=fails, allow_unused=True)
    fake.script([text(BOOKED), text(UPDATED)])
    host = await new_host(system=SYSTEM)
    caller = host.caller()
    session = "session-continues-failing"

    answered(await caller.send(BOOK, session_id=session, stream=stream), BOOKED, "turn 1")
    failed = await caller.send(FAILING, session_id=session, stream=stream)
    tried = [r for r in fake.wire.requests if FAILING in r.user_texts()]
    assert tried, "the failing turn never reached the model, so it cannot have failed there"
    answered(await caller.send(THREE, session_id=session, stream=stream), UPDATED, "the next turn")
    expected = [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]
    assert seen(fake.wire.last) == expected, (
        f"after a turn whose run failed at the provider, the next turn of {session!r} showed "
        f"the model {seen(fake.wire.last)}, not the last completed turn and its own message: "
        f"{expected} (a failed run is not a completed turn, and is not stored as one)"
    )
    # A stream has already answered 200 when the run fails: its terminal event says so.
    assert_said(
        failed,
        HostOutcome.RUN_FAILED,
        what="a turn whose run failed at the provider every time",
        core=UNANSWERED,
    )


@pytest.mark.law("hosting.session-continues")
async def test_a_turn_failing_after_a_tool_round_is_not_stored(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """A run that failed after a tool round has a checkpoint of its own (the call and
    its result): still not a completed turn, so still not the session's."""

    def after_the_tool(request: RequestIR) -> bool:
        return FAILING in request.user_texts() and any(m.role == "tool" for m in request.messages)

    fake.script([Fault(status=500)] * OUTLASTS_RETRIES, when=after_the_tool, allow_unused=True)
    fake.script([text(BOOKED), tool_call("whoami"), text(UPDATED)])
    host = await new_host(system=SYSTEM, tools=("whoami",))
    caller = host.caller()
    session = "fails-after-a-tool-round"
    answered(await caller.send(BOOK, session_id=session), BOOKED, "turn 1")
    failed = await caller.send(FAILING, session_id=session)
    assert_said(
        failed, HostOutcome.RUN_FAILED, what="a turn failing after a tool round", core=UNANSWERED
    )
    answered(await caller.send(THREE, session_id=session), UPDATED, "the next turn")
    expected = [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]
    assert seen(fake.wire.last) == expected, (
        f"after a turn that failed after a tool round, the next turn of {session!r} showed "
        f"the model {seen(fake.wire.last)}, not {expected}: the failed turn was stored"
    )


@pytest.mark.law("hosting.session-continues")
async def test_ids_that_differ_only_in_case_or_by_a_wildcard_are_separate_sessions(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """A session id is the caller's text, matched exactly: not case-folded, and not a
    pattern (`_` and `%` are wildcards to SQL's LIKE)."""
    fake.script([text(BOOKED), text(OPENS)] * 3)
    host = await new_host(system=SYSTEM)
    caller = host.caller()
    for first, twin in (("Guest-A", "guest-a"), ("table_7", "tableX7"), ("50%", "50-off")):
        answered(await caller.send(BOOK, session_id=first), BOOKED, f"the first turn of {first!r}")
        answered(await caller.send(OTHER, session_id=twin), OPENS, f"the first turn of {twin!r}")
        assert seen(fake.wire.last) == [("user", OTHER)], (
            f"the first turn of session {twin!r} showed the model {seen(fake.wire.last)}: "
            f"the conversation of session {first!r}"
        )


@pytest.mark.law("hosting.through-continue-from")
async def test_a_hosted_turn_sends_what_continue_from_the_stored_session_sends(
    fake: ScriptedProvider,
    new_host: HostFactory,
    new_agent: AgentFactory,
) -> None:
    # The hosted turn 2 is compared with run(THREE, continue_from=<the stored session>,
    # session_id=<the session>) on fresh agents of the same spec, played before and after
    # it: the two direct plays are the control pair, whose differences are what the
    # runtime mints per agent or run (masked). Each turn calls whoami, so a host that
    # rebuilds the history (drops tool turns, the answer, the identity) or runs the turn
    # under another session shows in the bodies.
    # A host that offers no read of its store is compared with a direct turn 1 instead:
    # run(BOOK, session_id=<the session>) leaves what a host must have stored.
    turn: list[Text | ToolCalls] = [tool_call("whoami"), text(BOOKED)]
    again: list[Text | ToolCalls] = [tool_call("whoami"), text(UPDATED)]
    fake.script([*turn, *turn], when=newest_is(BOOK), allow_unused=True)
    fake.script([*again, *again, *again], when=newest_is(THREE))
    host = await new_host(system=SYSTEM, tools=("whoami",))
    caller = host.caller()
    session = "through-continue-from"
    answered(await caller.send(BOOK, session_id=session), BOOKED, "turn 1")
    read = await caller.read_session(session)
    if read is None:
        opener = await new_agent(system=SYSTEM, tools=("whoami",))
        opened = await opener.run(BOOK, session_id=session)
        premise(
            "checkpoint.plain-json",
            opened.checkpoint is not None,
            "a direct run gave no checkpoint to compare the hosted turn with",
        )
        stored = roundtrip(opened.checkpoint)
    else:
        premise(
            CONTINUES,
            read.found,
            f"the stored session could not be read back to compare with: {read.shown}",
        )
        stored = roundtrip(read.checkpoint)

    async def directly() -> str | None:
        agent = await new_agent(system=SYSTEM, tools=("whoami",))
        outcome = await agent.run(THREE, continue_from=stored, session_id=session)
        return outcome.answer

    control = await directly()
    hosted = await caller.send(THREE, session_id=session)
    repeat = await directly()

    exchanges = fake.wire.exchanges
    base = 2 if read is not None else 4
    assert len(exchanges) == base + 6, (
        f"expected 2 model requests per turn, got {len(exchanges)} for {base // 2 + 3} turns"
    )
    first, door, last = (
        exchanges[base : base + 2],
        exchanges[base + 2 : base + 4],
        exchanges[base + 4 :],
    )
    users = door[0].ir.user_texts() if door[0].ir is not None else []
    premise(
        CONTINUES,
        bool(users) and users[0] == BOOK and users[-1] == THREE,
        f"the hosted turn 2 did not continue the session at all (it showed {users})",
    )
    minted = MintedValues.learn(numbered_calls(first), numbered_calls(last))
    differs = minted.difference(numbered_calls(door), numbered_calls(first))
    assert differs is None, (
        "the hosted turn sent other requests than run(message, continue_from=<the stored "
        f"session>, session_id=<the session>) (values the runtime mints aside, "
        f"{minted.describe()}): the host does not continue through the continueFrom door "
        f"(first difference at {differs})"
    )
    assert hosted.output == control == repeat == UPDATED, (
        f"the hosted turn answered {hosted.output!r}, the direct ones {control!r}, {repeat!r}"
    )
