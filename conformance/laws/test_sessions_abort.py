"""Abort cancels the active turn and keeps the session (seed 003, "Interruption and
cleanup").

"`abort()` requests cancellation of the active turn without closing the session": the
pass still ends with a terminal result that is not a success, and the same session then
runs a new turn.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BackendFactory,
    Hold,
    Refused,
    ResultEvent,
    ScriptedProvider,
    SessionAgentSpec,
    StreamPass,
    last_carrying,
    open_new,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "turn.abort-keeps-session"
ABORTED = "Book me a table for two on Friday."
HELD_ANSWER = "Booked: two on Friday."
NEXT = "Actually, what time do you open?"
NEXT_ANSWER = "We open at noon."
CANCEL_WAIT = 5.0
"""Seconds the aborted turn's result may take while the model is still silent."""


@pytest.mark.law("turn.abort-keeps-session")
async def test_an_aborted_turn_ends_with_its_result_and_the_session_runs_the_next_turn(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    hold = Hold(label="turn to abort", then=text(HELD_ANSWER))
    fake.script([hold, text(NEXT_ANSWER)], allow_unused=True)
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(ABORTED)
    await hold.arrived(timeout=20.0)
    await session.abort()
    try:
        passes: list[StreamPass] = [await session.stream(wait=CANCEL_WAIT)]
        cancelled_in_time = passes[-1].ended == "result"
        if not cancelled_in_time:
            hold.release()  # a runtime that waits the turn out still ends it, later
            passes.append(await session.stream(wait=20.0))
    except Refused as refused:
        raise AssertionError(
            f"after abort() the session refused to stream the aborted turn's end ({refused}): "
            f"abort cancels the turn without closing the session"
        ) from None
    finally:
        hold.release()
    events = [e for p in passes for e in p.events]
    results = [e for e in events if isinstance(e, ResultEvent)]
    assert passes[-1].ended == "result" and len(results) == 1, (
        f"after abort() the stream did not end with the turn's terminal result (passes "
        f"ended {[p.ended for p in passes]}, {len(results)} results, events "
        f"{[e.type for e in events]})"
    )
    assert not results[0].success, (
        f"the aborted turn's result says success (text {results[0].text!r}): the turn "
        f"was not cancelled but answered"
    )

    try:
        await session.send(NEXT)
        after = await session.stream(wait=20.0)
    except Refused as refused:
        raise AssertionError(
            f"after abort() the session refused the next message ({refused}): abort cancels "
            f"the turn without closing the session"
        ) from None
    request = last_carrying(fake.wire.requests, NEXT)
    assert request is not None and after.result is not None and after.result.success, (
        f"the session that aborted a turn could not run the next one: the next message "
        f"{'never reached' if request is None else 'reached'} the model and its pass ended "
        f"{after.ended!r} with "
        f"{[e.model_dump() for e in after.events if e.type in ('error', 'result')]}"
    )
    assert cancelled_in_time, (
        "abort() did not cancel the turn: its result came only after the model answered "
        f"(no result within {CANCEL_WAIT:g}s while the model was silent) (a detail of the law)"
    )
