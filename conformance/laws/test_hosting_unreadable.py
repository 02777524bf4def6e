"""It hydrates the session: a stored conversation that cannot be read is not an absent one.

Starting an unreadable session afresh answers the caller as if it never happened, then
overwrites the only copy: so it is refused before the model, stays refused, and an absent
session still starts fresh.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    BOOKED,
    CONTINUES,
    OTHER,
    SYSTEM,
    THREE,
    UNANSWERED,
    HostClient,
    HostFactory,
    HostOutcome,
    ScriptedProvider,
    answered,
    assert_said,
    premise,
    strings_in,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "hosting.unreadable-is-not-absent"
PERSISTS = "hosting.persists-before-reply"
KEPT = "Your other booking is unchanged."
FRESH = "Hello, how can I help?"


async def read_back(caller: HostClient, session: str, when: str) -> None:
    """Read back (where the host offers a read), a damaged session is neither absent
    nor a fresh conversation."""
    read = await caller.read_session(session)
    if read is None:
        return
    assert HostOutcome.NOT_FOUND not in read.said, (
        f"a read of a session whose stored conversation is unreadable ({when}) was "
        f"{read.shown}: an unreadable session was served as an absent one"
    )
    assert not read.found or BOOK in strings_in(read.checkpoint), (
        f"a read of a session whose stored conversation is unreadable ({when}) served "
        f"{read.checkpoint!r}: a fresh conversation in place of the damaged one"
    )


@pytest.mark.law("hosting.unreadable-is-not-absent")
@pytest.mark.timeout(120)  # three host starts: a start is a process of its own
async def test_an_unreadable_session_is_refused_and_kept_and_an_absent_one_starts_fresh(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([text(BOOKED), text(BOOKED), text(KEPT), text(FRESH)])
    host = await new_host(system=SYSTEM)
    damaged, intact = "unreadable-session", "intact-session"
    answered(await host.caller().send(BOOK, session_id=damaged), BOOKED, "the damaged one's turn")
    answered(await host.caller().send(BOOK, session_id=intact), BOOKED, "the intact one's turn")
    await host.kill()
    # Both turns must be in the store before one is damaged: that they survive a kill is
    # persists-before-reply's statement, so it is read back first (no model call).
    # A host that offers no read is trusted here: persists-before-reply judges it.
    kept = await new_host(system=SYSTEM, store=host.store)
    for session in (damaged, intact):
        read = await kept.caller().read_session(session)
        premise(
            PERSISTS,
            read is None or read.found,
            f"session {session!r} was not stored after a reply and a kill "
            f"({read.shown if read is not None else ''})",
        )
    await kept.kill()
    await kept.damage(damaged)
    again = await new_host(system=SYSTEM, store=host.store)
    caller = again.caller()
    await read_back(caller, damaged, "before its next turn")

    for attempt, stream in (("first", False), ("second (streamed)", True)):
        before = len(fake.wire.requests)
        reply = await caller.send(THREE, session_id=damaged, stream=stream)
        assert len(fake.wire.requests) == before, (
            f"the {attempt} turn of a session whose stored conversation is unreadable called "
            f"the model, showing it {fake.wire.last.turns()}: an unreadable session was "
            "hydrated as an absent one (a fresh start), or its row was overwritten by one"
        )
        assert HostOutcome.NOT_FOUND not in reply.said, (
            f"the {attempt} turn of an unreadable session was {reply.shown}: an unreadable "
            "session was refused as an absent one"
        )
        assert_said(
            reply,
            HostOutcome.UNREADABLE,
            what=f"the {attempt} turn of an unreadable session",
            core=UNANSWERED - {HostOutcome.NOT_FOUND},
        )

    await read_back(caller, damaged, "after two turns were refused")
    answered(await caller.send(THREE, session_id=intact), KEPT, "the intact session's turn 2")
    expected = [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]
    premise(
        CONTINUES,
        fake.wire.last.turns() == expected,
        f"the undamaged session showed {fake.wire.last.turns()} after the restart",
    )
    answered(await caller.send(OTHER, session_id="never-stored"), FRESH, "an absent session")
    assert fake.wire.last.turns() == [("user", OTHER)], (
        f"a session never stored showed the model {fake.wire.last.turns()}, not a fresh "
        "start: only an unreadable session is refused, an absent one starts fresh"
    )
