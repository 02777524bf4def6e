"""The seed's served walkthroughs, played by the reference host against the fake.

Each scenario talks the seed's HTTP wire to a real host process (`start_host`, the
reference's hosting door) and asserts its own key facts: the status codes and what the
model was shown. The fake's whole wire log is the snapshot, as for the agent scenarios
beside it, so a host that changes what reaches the model changes a committed recording.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import httpx

from conformance.wire import RequestIR, ScriptedProvider, text, tool_call


class RunningHost(Protocol):
    base_url: str

    async def kill(self) -> None: ...

    async def stop(self) -> None: ...


class HostStarter(Protocol):
    """`await start_host(store_name, tools=(...))`: a host on that store (same name: a
    restart on the same file)."""

    def __call__(self, store: str, **agent: Any) -> Awaitable[RunningHost]: ...


HostedScenario = Callable[[HostStarter, ScriptedProvider], Awaitable[None]]

SYSTEM = "You take restaurant bookings. Be brief."
BOOK = "Book me a table for two on Friday."
THREE = "Make it three."
CHAIR = "And a high chair, please."
REFUND = "Please refund order 7."
QUESTION = "Approve a refund for order 7?"
DIFFERENT = "never mind, different question"


async def _invoke(host: RunningHost, **body: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=host.base_url, timeout=30) as client:
        return await client.post("/invoke", json=body)


def _turns(request: RequestIR) -> list[tuple[str, str]]:
    return request.turns()


async def served_session(start_host: HostStarter, provider: ScriptedProvider) -> None:
    """Two turns of one session, a SIGKILL, a restart on the same file, a third turn."""
    provider.script([text("Booked: two, Friday."), text("Three it is."), text("High chair noted.")])
    host = await start_host("sessions.db", system=SYSTEM)
    first = await _invoke(host, input=BOOK, sessionId="table-4")
    second = await _invoke(host, input=THREE, sessionId="table-4")
    await host.kill()
    again = await start_host("sessions.db", system=SYSTEM)
    third = await _invoke(again, input=CHAIR, sessionId="table-4")
    await again.stop()
    assert [r.status_code for r in (first, second, third)] == [200, 200, 200]
    assert third.json()["output"] == "High chair noted."
    assert _turns(provider.wire.last) == [
        ("user", BOOK),
        ("assistant", "Booked: two, Friday."),
        ("user", THREE),
        ("assistant", "Three it is."),
        ("user", CHAIR),
    ], "the restarted host did not continue the stored session"


async def served_approval(start_host: HostStarter, provider: ScriptedProvider) -> None:
    """A served pause: 202 with the question, a message meanwhile refused without a
    model call, the decision answered as the asking tool's result."""
    provider.script(
        [
            tool_call("ask_person", {"question": QUESTION}),
            text("Refunded order 7."),
        ]
    )
    host = await start_host("sessions.db", system=SYSTEM, tools=("ask_person",))
    paused = await _invoke(host, input=REFUND, sessionId="order-7")
    refused = await _invoke(host, input=DIFFERENT, sessionId="order-7")
    seen_while_paused = len(provider.wire.requests)
    decided = await _invoke(host, decision="yes", sessionId="order-7")
    await host.stop()
    assert paused.status_code == 202
    assert paused.json()["awaiting"]["question"] == QUESTION
    assert (refused.status_code, refused.json()["code"]) == (409, "ERR_AWAITING_DECISION")
    assert seen_while_paused == 1, "a message while paused reached the model"
    assert decided.status_code == 200 and decided.json()["output"] == "Refunded order 7."
    results = [m.text for m in provider.wire.last.messages if m.role == "tool"]
    assert results == ["yes"], f"the decision was not the asking tool's result: {results}"


HOSTED: dict[str, HostedScenario] = {
    "served-session": served_session,
    "served-approval": served_approval,
}
