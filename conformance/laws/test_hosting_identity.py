"""A hosting session is a conversation: the served run's namespace is its session.

"standingAgent passes the session id on every run and resume", so a tool is told the
session id and no identity (nobody named one), and memory recalls across one session's
turns, after a restart too, and never into another session.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._kit import (
    BOOK,
    BOOKED,
    CONTINUES,
    OTHER,
    SYSTEM,
    THREE,
    Capability,
    HostFactory,
    Implementation,
    RequestIR,
    ScriptedProvider,
    answered,
    case_needs,
    premise,
    text,
    tool_call,
    whoami_report,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "hosting.session-identity"
DONE = "Done."


def told(request: RequestIR) -> list[dict[str, Any]]:
    """What each `whoami` call of the request's own turn was told, parsed, in call order."""
    start = max(i for i, m in enumerate(request.messages) if m.role == "user")
    own = request.messages[start:]
    calls = [c.id for m in own for c in m.tool_calls if c.name == "whoami"]
    results = {m.tool_call_id: m.text for m in own if m.role == "tool"}
    reports = []
    for call in calls:
        shown = whoami_report(results.get(call, ""))
        assert shown is not None, (
            f"whoami returned {results.get(call)!r}, not {{'identity': ..., 'session_id': ...}}"
        )
        reports.append(shown)
    return reports


@pytest.mark.law("hosting.session-identity")
async def test_a_served_runs_tools_see_the_session_and_no_synthesized_identity(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([tool_call("whoami"), text(DONE)] * 3)
    host = await new_host(tools=("whoami",))
    caller = host.caller()
    first, second = "identity-session-1", "identity-session-2"
    turns = [(first, BOOK), (second, OTHER), (first, THREE)]
    for number, (session, message) in enumerate(turns, start=1):
        answered(await caller.send(message, session_id=session), DONE, f"turn {number}")
        reports = told(fake.wire.last)
        assert len(reports) == 1, (
            f"turn {number} ({session!r}) showed the model {len(reports)} whoami results "
            "for its one call"
        )
        (report,) = reports
        assert report["session_id"] == session, (
            f"a tool of turn {number}, served for session {session!r}, was told the session "
            f"{report['session_id']!r}: the host passes the session id on every run"
        )
        assert report["identity"] is None, (
            f"a tool of turn {number} ({session!r}) was told the identity "
            f"{report['identity']!r}, yet nobody named one: the session's namespace is "
            "synthesized, and a synthesized namespace is never published to tools"
        )


@pytest.mark.law("hosting.session-identity")
async def test_memory_recalls_across_one_sessions_turns_and_a_restart_never_across_sessions(
    fake: ScriptedProvider, new_host: HostFactory, implementation: Implementation
) -> None:
    case_needs(implementation, Capability.MEMORY, case="a served session's memory")
    answers = [BOOKED, "We open at noon.", "Three it is.", "Still three.", "Noon."]
    fake.script([text(answer) for answer in answers])
    host = await new_host(system=SYSTEM, memory=True)
    caller = host.caller()
    mine, theirs = "memory-session-1", "memory-session-2"

    answered(await caller.send(BOOK, session_id=mine), BOOKED, "the first session's turn 1")
    answered(await caller.send(OTHER, session_id=theirs), answers[1], "another session's turn")
    premise(
        CONTINUES,
        BOOK not in fake.wire.last.user_texts(),
        f"another session's turn was shown session {mine!r}'s message as a turn",
    )
    # The system prompt holds BOOK only if memory brought it back (SYSTEM does not say it).
    assert BOOK not in fake.wire.last.system, (
        f"another session's first turn recalled {BOOK!r}, said in session {mine!r}: a "
        f"session's memory namespace is its own (system prompt: {fake.wire.last.system!r})"
    )
    answered(await caller.send(THREE, session_id=mine), answers[2], "the first session's turn 2")
    assert BOOK in fake.wire.last.system, (
        "turn 2 of a served session with memory did not recall turn 1 in its system prompt: "
        f"the session id is the run's namespace (system prompt: {fake.wire.last.system!r})"
    )
    await host.kill()
    again = await new_host(system=SYSTEM, memory=True, store=host.store)
    caller = again.caller()
    answered(await caller.send(THREE, session_id=mine), answers[3], "turn 3 after a restart")
    assert BOOK in fake.wire.last.system, (
        "after a restart, a served session's memory did not recall its earlier turn: a "
        "served session's memory is durable"
    )
    answered(await caller.send(OTHER, session_id=theirs), answers[4], "the other session again")
    assert BOOK not in fake.wire.last.system, (
        f"after a restart, session {theirs!r} recalled {BOOK!r} from session {mine!r}"
    )
