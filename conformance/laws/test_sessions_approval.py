"""A pending approval survives a client's disconnect while the runtime stays up (seed 003,
"What persists, and what doesn't").

"A pending approval can remain on an active runtime after a client disconnects": a
session resumed on the conversation finds it pending and answers it; allowed, the tool
runs once; denied, never.
"""

from __future__ import annotations

import pytest

from ._kit import (
    ApprovalRequestEvent,
    BackendFactory,
    RunningBackend,
    ScriptedProvider,
    SessionAgentSpec,
    SessionOptions,
    ToolName,
    open_new,
    open_resumed,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "approval.survives-disconnect"
KEY = "release-table"
TOOL: ToolName = "call_service"
ASKING = SessionOptions(tools=(TOOL,), needs_approval=(TOOL,))


async def paused_then_dropped(
    fake: ScriptedProvider, new_backend: BackendFactory, message: str
) -> tuple[RunningBackend, str, str]:
    """A turn paused for approval, its client dropped: (backend, conversation, call id)."""
    fake.script([tool_call(TOOL, {"key": KEY}), text("Done, as decided.")])
    backend = await new_backend()
    session = await open_new(
        backend, await backend.create_agent(SessionAgentSpec()), options=ASKING
    )
    await session.send(message)
    paused = await session.stream(wait=20.0)
    asked = [e for e in paused.events if isinstance(e, ApprovalRequestEvent)]
    assert paused.ended == "approval" and len(asked) == 1 and asked[0].tool_name == TOOL, (
        f"the model called {TOOL}, which this session's permission behaviour asks about, "
        f"and the pass ended {paused.ended!r} with {[e.type for e in paused.events]}, not "
        f"paused at one approval request for it"
    )
    ran = fake.service_gate(KEY).calls
    assert len(fake.wire.requests) == 1 and ran == 0, (
        f"while the approval was pending the runtime sent {len(fake.wire.requests) - 1} more "
        f"model request(s) and ran the tool {ran} time(s): the turn did not wait for the person"
    )
    conversation_id = (await session.ids()).conversation_id
    await session.break_connection("drop")
    return backend, conversation_id, asked[0].tool_call_id


@pytest.mark.law("approval.survives-disconnect")
async def test_an_approval_pending_when_the_client_dropped_is_answered_from_a_resumed_session(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    gate = fake.service(KEY)
    backend, conversation_id, call_id = await paused_then_dropped(
        fake, new_backend, "Release my table."
    )
    resumed = await open_resumed(backend, conversation_id, by="conversation", options=ASKING)
    snapshot = await resumed.state()
    pending = [p.tool_call_id for p in snapshot.pending_approvals]
    assert call_id in pending, (
        f"after the client dropped (the runtime still up), the resumed session's snapshot "
        f"shows pending approvals {pending}, not the one for call {call_id!r}"
    )
    await resumed.decide(call_id, True)
    finished = await resumed.stream(wait=20.0)
    assert finished.ended == "result", (
        f"after the approval was answered the turn did not go on to its result (the pass "
        f"ended {finished.ended!r} with {[e.type for e in finished.events]})"
    )
    shown = [
        m.text
        for m in fake.wire.requests[-1].messages
        if m.role == "tool" and m.tool_call_id is not None
    ]
    assert gate.calls == 1 and [gate.reply in s for s in shown] == [True], (
        f"after the approval was allowed the tool ran {gate.calls} time(s) and the model "
        f"was shown tool results {shown}: the approved call should have run once and its "
        f"result {gate.reply!r} been shown"
    )


@pytest.mark.law("approval.survives-disconnect")
async def test_a_denied_approval_shows_the_model_a_denial_and_the_tool_never_runs(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    gate = fake.service(KEY)
    backend, conversation_id, call_id = await paused_then_dropped(
        fake, new_backend, "Release my table, maybe."
    )
    resumed = await open_resumed(backend, conversation_id, by="conversation", options=ASKING)
    pending = [p.tool_call_id for p in (await resumed.state()).pending_approvals]
    assert call_id in pending, (
        f"after the client dropped (the runtime still up), the resumed session's snapshot "
        f"shows pending approvals {pending}, not the one for call {call_id!r}"
    )
    await resumed.decide(call_id, False)
    finished = await resumed.stream(wait=20.0)
    assert finished.ended == "result", (
        f"after the approval was answered the turn did not go on to its result (the pass "
        f"ended {finished.ended!r} with {[e.type for e in finished.events]})"
    )
    results = [m for m in fake.wire.requests[-1].messages if m.role == "tool"]
    assert gate.calls == 0 and len(results) == 1 and gate.reply not in results[0].text, (
        f"after the approval was denied the tool ran {gate.calls} time(s) and the model was "
        f"shown tool results {[r.text for r in results]}: one result for the call, a "
        f"denial, and the tool never run (a detail of the law)"
    )
