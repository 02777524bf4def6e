"""Messages sent while a turn is active are queued by the runtime, not dropped (seed 003,
"Guarantees and non-guarantees").

"`send()` transmits the user message (or queues it if a turn is already streaming — the
runtime owns the queue)." The active turn is held at the fake while two more messages
are sent; once it is released, each queued message reaches the model, in the order sent,
with the active turn's completed exchange in view, and the passes that follow account for
every one with a result. What the seed leaves open, and the law does not judge: whether
the runtime runs queued messages as one turn (Letta Code merges a batch) or one turn
each, and what its queue events say.

"`removeQueuedMessage(itemId)` waits for the authoritative queue response" (MAY): when
removal answers true the message never reaches the model, and when it answers false
(the message had left the queue) it does.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BackendFactory,
    Hold,
    RequestIR,
    ScriptedProvider,
    SessionAgentSpec,
    SessionUnderTest,
    StreamPass,
    conversation_shown,
    first_carrying,
    open_new,
    premise,
    results_in,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

QUEUED = "turn.queued-not-dropped"
REMOVABLE = "turn.queued-removable"
ACTIVE = "Book me a table for two on Friday."
ACTIVE_ANSWER = "Booked: two on Friday."
LATER = ("Make it three.", "And add a high chair.")
PASSES = 4
"""Passes read after the release at most: one turn per queued message and one spare."""


async def passes_until_answered(
    fake: ScriptedProvider, session: SessionUnderTest, messages: tuple[str, ...]
) -> list[StreamPass]:
    """Read passes until every message reached the model and every request the fake
    answered has had its result streamed (one request per turn: no tools here), or a pass
    brings nothing new."""
    passes: list[StreamPass] = []
    for _ in range(PASSES):
        stream_pass = await session.stream(wait=10.0)
        passes.append(stream_pass)
        reached = all(first_carrying(fake.wire.requests, m) for m in messages)
        if stream_pass.ended != "result" or (
            reached and len(results_in(passes)) >= len(fake.wire.requests)
        ):
            break
    return passes


def queued_problems(requests: list[RequestIR], sent: tuple[str, ...]) -> list[str]:
    """What the requests show against the law, for messages queued behind ACTIVE."""
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
        if shown[:2] != head:
            problems.append(
                f"{message!r} reached the model in a request showing {shown}, without the "
                f"active turn's completed exchange {head} before it"
            )
        order.append(requests.index(request) * 100 + shown.index(("user", message)))
    if len(order) == len(sent) and order != sorted(order):
        problems.append(f"the queued messages reached the model out of the order sent: {sent}")
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
    assert not problems, "\n".join(problems)


@pytest.mark.law("turn.queued-removable")
async def test_a_removed_queued_message_never_reaches_the_model_and_a_started_one_does(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    removed_text, kept_text = LATER
    hold = Hold(label="active turn", then=text(ACTIVE_ANSWER))
    hold_again = Hold(label="started turn", then=text("Noted, one more."))
    fake.script([hold, text("Noted."), hold_again], allow_unused=True)
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(ACTIVE)
    await hold.arrived(timeout=20.0)
    item = await session.send(removed_text)
    assert item is not None, (
        "a message queued behind an active turn got no queue item id from send(), so "
        "nothing can remove it (the implementation declares session_queue_remove)"
    )
    removed = await session.remove_queued(item)
    await session.send(kept_text)
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
        f"{kept_text!r}, queued after the removed message, never reached the model"
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
