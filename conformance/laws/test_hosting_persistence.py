"""Persists what the run left behind before answering: a crash loses no answered turn.

A reply is the host's word that the turn happened, so a host killed right after it
continues with that turn once started again on its store; and a host killed mid-turn
stores no half of it.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from ._kit import (
    BOOK,
    BOOKED,
    CONTINUES,
    REPLIES,
    SYSTEM,
    THREE,
    Hold,
    HostFactory,
    LawViolation,
    ScriptedProvider,
    answered,
    premise,
    strings_in,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "hosting.persists-before-reply"
UPDATED = "Done: a table for three."
KILLS = 3
"""Held kills in one test: each is a fresh chance for a host that writes half a turn."""


@pytest.mark.law("hosting.persists-before-reply")
@pytest.mark.parametrize("stream", [False, True], ids=REPLIES.values())
async def test_a_host_killed_right_after_its_reply_continues_the_answered_turn(
    fake: ScriptedProvider, new_host: HostFactory, stream: bool
) -> None:
    fake.script([text(BOOKED), text(UPDATED)])
    host = await new_host(system=SYSTEM)
    session = "persists-before-reply"
    answered(await host.caller().send(BOOK, session_id=session, stream=stream), BOOKED, "turn 1")
    await host.kill()  # at once: a host that persists after replying has not yet
    again = await new_host(system=SYSTEM, store=host.store)
    # The core is what the store kept through the kill (read back, no model call); that
    # the next turn then shows it verbatim is session-continues' statement.
    # A host that offers no read is judged by what turn 2 shows the model.
    read = await again.caller().read_session(session)
    reply = await again.caller().send(THREE, session_id=session)
    shown = fake.wire.last.turns()
    expected = [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]
    if read is None:
        kept = [said for _, said in shown[:-1]]
        how = "turn 2 showed the model"
    else:
        kept = strings_in(read.checkpoint) if read.found else []
        how = f"the session read back {read.shown} (turn 2 then showed the model"
    assert any(BOOK in said for said in kept) and any(BOOKED in said for said in kept), (
        f"after a {REPLIES[stream]} reply to turn 1, a kill and a restart on the same store, "
        f"{how} {shown}{'' if read is None else ')'} without the answered turn: the host "
        "replied before it had persisted what the run left behind"
    )
    premise(CONTINUES, shown == expected, f"turn 2 showed {shown}, not {expected}")
    answered(reply, UPDATED, "turn 2 after the restart")


@pytest.mark.law("hosting.persists-before-reply")
@pytest.mark.timeout(120)
async def test_a_kill_while_a_turn_is_at_the_model_loses_no_turn_and_stores_no_half(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    session = "killed-while-held"
    rounds = [(f"{BOOK} (round {n})", f"Round {n} booked.") for n in range(KILLS + 1)]
    holds = [Hold(then=text("too late"), label=f"held-{n}") for n in range(KILLS)]
    # One script in the order the requests come: a turn answered, then one held and killed.
    steps = [step for n in range(KILLS) for step in (text(rounds[n][1]), holds[n])]
    fake.script([*steps, text(rounds[KILLS][1])])
    host = await new_host(system=SYSTEM)
    completed: list[tuple[str, str]] = []  # the conversation the law says is stored
    lost: list[str] = []  # completed turns a later request did not show
    halves: list[str] = []  # held turns a later request showed
    for n, (message, answer) in enumerate(rounds):
        reply = await host.caller().send(message, session_id=session)
        shown = fake.wire.last.turns()
        users = [said for role, said in shown if role == "user"]
        lost += [said for role, said in completed if role == "user" and said not in users]
        halves += [said for said in users if said.startswith(THREE) and said not in halves]
        answered(reply, answer, f"round {n}'s turn")
        completed = [*shown, ("assistant", answer)]
        if n == KILLS:
            break
        sending = asyncio.create_task(host.caller().send(f"{THREE} (held {n})", session_id=session))
        await holds[n].arrived()
        await host.kill()
        holds[n].release()
        with contextlib.suppress(Exception):  # the caller saw its connection drop
            await sending
        host = await new_host(system=SYSTEM, store=host.store)
    if lost or halves:
        raise LawViolation(
            LAW,
            f"over {KILLS} kills while a turn was held at the model, then a restart on the "
            f"same store: {len(lost)} completed turns were lost ({lost}) and {len(halves)} "
            f"unfinished turns were stored ({halves}); the last request showed "
            f"{fake.wire.last.turns()}",
        )
