"""Messages sent while a turn is active are queued by the runtime, not dropped (seed 003,
"Guarantees and non-guarantees").

"`send()` … queues it if a turn is already streaming — the runtime owns the queue": each
queued message reaches the model once, in the order sent, and is accounted for by a
result, also behind an aborted turn.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    BackendFactory,
    Capability,
    Hold,
    Implementation,
    PremiseNotMet,
    Refused,
    RequestIR,
    ScriptedProvider,
    SessionAgentSpec,
    SessionUnderTest,
    StreamPass,
    conversation_shown,
    declares,
    first_carrying,
    last_user_carries,
    open_new,
    premise,
    results_in,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

QUEUED = "turn.queued-not-dropped"
REMOVABLE = "turn.queued-removable"
ABORT = "turn.abort-keeps-session"
ACTIVE = "Book me a table for two on Friday."
ACTIVE_ANSWER = "Booked: two on Friday."
LATER = ("Make it three.", "And add a high chair.")
STILL_THERE = "Are you still there?"
"""Sent after an abort whose queued messages did not run: whether the session runs any
turn tells the queue's failure from the abort's."""
PASSES = 4
"""Passes read after the release at most: one turn per queued message and one spare."""


async def passes_until_answered(
    fake: ScriptedProvider,
    session: SessionUnderTest,
    messages: tuple[str, ...],
    *,
    answered: int = 0,
) -> list[StreamPass]:
    """Read passes until every message reached the model and every request the fake
    answered has had its result streamed (one request per turn: no tools here; `answered`
    of them had theirs read already), or a pass brings nothing new."""
    passes: list[StreamPass] = []
    for _ in range(PASSES):
        stream_pass = await session.stream(wait=10.0)
        passes.append(stream_pass)
        reached = all(first_carrying(fake.wire.requests, m) for m in messages)
        if stream_pass.ended != "result" or (
            reached and answered + len(results_in(passes)) >= len(fake.wire.requests)
        ):
            break
    return passes


def queued_problems(
    requests: list[RequestIR], sent: tuple[str, ...], *, aborted: bool = False
) -> list[str]:
    """What the requests show against the law, for messages queued behind ACTIVE (whose
    completed exchange they show, unless it was `aborted`: what a request then shows of
    the aborted message the seed leaves open)."""
    vocabulary = (ACTIVE, *LATER)
    problems = []
    order: list[int] = []
    for message in sent:
        request = first_carrying(requests, message)
        if request is None:
            problems.append(f"{message!r}, sent while a turn was active, never reached the model")
            continue
        shown = conversation_shown(request, vocabulary)
        head = [("user", ACTIVE), ("assistant", ACTIVE_ANSWER)]
        if not aborted and shown[:2] != head:
            problems.append(
                f"{message!r} reached the model in a request showing {shown}, without the "
                f"active turn's completed exchange {head} before it"
            )
        order.append(requests.index(request) * 100 + shown.index(("user", message)))
    if len(order) == len(sent) and order != sorted(order):
        problems.append(f"the queued messages reached the model out of the order sent: {sent}")
    return problems


def asking_for(message: str) -> Callable[[RequestIR], bool]:
    """A script matcher: the requests for `message`'s turn."""
    return lambda request: last_user_carries(request, message)


async def listed_as_waiting(session: SessionUnderTest, answered: tuple[str, ...]) -> list[str]:
    """The conversation's messages once the turns that carried `answered` completed: each
    is listed once. Listed twice, a message the runtime took up is still shown as waiting
    for a turn (a merge that settled only the first message's receipt leaves the others
    `received` for ever)."""
    listed = await session.list_messages()
    problems = []
    for message in answered:
        times = sum(1 for m in listed if m.role == "user" and message in m.text)
        if times > 1:
            problems.append(
                f"{message!r} is listed {times} times among the conversation's messages after "
                f"the turn that carried it was answered: it is still shown as waiting, as if "
                f"it had not reached the model"
            )
    return problems


@pytest.mark.law("turn.queued-not-dropped")
async def test_messages_sent_during_a_turn_each_reach_the_model_after_it_in_order(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    hold = Hold(label="active turn", then=text(ACTIVE_ANSWER))
    fake.script([hold, *(text(f"Noted: {m}") for m in LATER)], allow_unused=True)
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(ACTIVE)
    await hold.arrived(timeout=20.0)
    for message in LATER:
        await session.send(message)  # while the first turn is held at the fake
    early = [m for m in LATER if first_carrying(fake.wire.requests, m) is not None]
    hold.release()
    passes = await passes_until_answered(fake, session, LATER)

    first = passes[0]
    premise(
        "turn.one-result",
        first.ended == "result" and first.result is not None,
        f"the active turn's pass ended {first.ended!r}",
    )
    problems = [
        f"{m!r} reached the model while the active turn was still held there" for m in early
    ]
    problems += queued_problems(fake.wire.requests, LATER)
    answered = len(results_in(passes))
    if answered < 2:
        problems.append(
            f"after the queued messages reached the model, the passes gave {answered} "
            f"result(s): the active turn's and none for the queued messages"
        )
    elif not problems:
        problems += await listed_as_waiting(session, LATER)
    assert not problems, "\n".join(problems)


@pytest.mark.law("turn.queued-not-dropped")
async def test_messages_queued_behind_an_aborted_turn_each_reach_the_model_after_it(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    """abort() takes the active turn, not the queue behind it: the messages waiting there
    when it comes still reach the model, in order, each accounted for by a result. A
    session that runs no turn at all after the abort (a new message fails too) is the
    abort law's failure, not the queue's: a premise here."""
    if not declares(implementation, Capability.SESSION_ABORT):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}aborting a turn needs the session_abort capability")
    hold = Hold(label="turn to abort", then=text("Never told."))
    fake.script([hold], when=lambda r: last_user_carries(r, ACTIVE), allow_unused=True)
    for message in (*LATER, STILL_THERE):
        fake.script([text(f"Noted: {message}")], when=asking_for(message), allow_unused=True)
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(ACTIVE)
    await hold.arrived(timeout=20.0)
    for message in LATER:
        await session.send(message)  # while the turn to abort is held at the fake
    early = [m for m in LATER if first_carrying(fake.wire.requests, m) is not None]
    try:
        await session.abort()
        aborted = await session.stream(wait=5.0)
        hold.release()
        if aborted.ended != "result":  # a runtime that waits the turn out ends it later
            aborted = await session.stream(wait=20.0)
    except Refused as refused:
        raise PremiseNotMet(ABORT, f"after abort() the session refused ({refused})") from None
    finally:
        hold.release()
    premise(
        ABORT,
        aborted.ended == "result",
        f"the aborted turn's pass ended {aborted.ended!r}, not with its result",
    )
    passes = await passes_until_answered(fake, session, LATER, answered=1)

    problems = [
        f"{m!r} reached the model while the turn it was queued behind was still held there"
        for m in early
    ]
    problems += queued_problems(fake.wire.requests, LATER, aborted=True)
    turns = len([r for r in fake.wire.requests if any(last_user_carries(r, m) for m in LATER)])
    answered = len([r for r in results_in(passes) if r.success])
    if not problems and answered < turns:
        problems.append(
            f"the messages queued behind the aborted turn reached the model in {turns} "
            f"request(s), and the passes after the abort gave {answered} successful result(s)"
        )
    if problems:
        try:
            await session.send(STILL_THERE)
            after: StreamPass | None = await session.stream(wait=20.0)
        except Refused:
            after = None
        premise(
            ABORT,
            after is not None and after.result is not None and after.result.success,
            f"after the abort the session ran no turn at all (a new message failed too: "
            f"{'refused' if after is None else [e.type for e in after.events]}), so what "
            f"became of the messages queued behind the aborted turn is the abort's doing: "
            f"{problems}",
        )
    assert not problems, "\n".join(problems)


@pytest.mark.law("turn.queued-removable")
async def test_a_removed_queued_message_never_reaches_the_model_and_a_started_one_does(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    kept_text, removed_text = LATER  # the later of two waiting is the one removed
    hold = Hold(label="active turn", then=text(ACTIVE_ANSWER))
    hold_again = Hold(label="started turn", then=text("Noted, one more."))
    fake.script([hold, text("Noted."), hold_again], allow_unused=True)
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(ACTIVE)
    await hold.arrived(timeout=20.0)
    await session.send(kept_text)
    item = await session.send(removed_text)
    assert item is not None, (
        "a message queued behind an active turn got no queue item id from send(), so "
        "nothing can remove it (the implementation declares session_queue_remove)"
    )
    removed = await session.remove_queued(item)
    hold.release()
    await passes_until_answered(fake, session, (kept_text,))
    reached = first_carrying(fake.wire.requests, removed_text) is not None
    assert removed != reached, (
        f"remove_queued answered {removed} for a message still queued behind a held turn, "
        f"and the message {'reached' if reached else 'never reached'} the model"
        + ("" if removed else " (removal of a message that never left the queue must work)")
    )
    assert removed, f"remove_queued answered false for {removed_text!r}, still queued"
    assert first_carrying(fake.wire.requests, kept_text) is not None, (
        f"{kept_text!r}, queued before the removed message, never reached the model"
    )

    # A message whose turn has started has left the queue: removing it answers false.
    late = "One more thing."
    started_item = await session.send(late)
    await hold_again.arrived(timeout=20.0)
    if started_item is not None:
        too_late = await session.remove_queued(started_item)
        hold_again.release()
        await session.stream(wait=10.0)
        assert not too_late, (
            f"remove_queued answered true for {late!r} after its turn reached the model"
        )
    else:
        hold_again.release()
        await session.stream(wait=10.0)
