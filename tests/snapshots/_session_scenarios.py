"""Seed 003's sessions, played by the reference session runtime against the fake.

Each scenario drives the runtime through the reference's session door (`open_backend`:
the runtime on a real loopback socket, its client over HTTP and a WebSocket per session)
and asserts its own key facts: what each request showed the model, the ids, the queue
events. The fake's whole wire log is the snapshot, as for the agent and served scenarios
beside it, so a runtime that changes what reaches the model changes a committed
recording. No id the runtime mints reaches the wire, so the recordings hold none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from conformance.adapter import (
    BackendUnderTest,
    QueueEvent,
    SessionAgentSpec,
    SessionUnderTest,
    StreamPass,
)
from conformance.wire import Hold, ScriptedProvider, text


class BackendOpener(Protocol):
    """`await open_backend(store_name)`: the reference runtime on that store."""

    def __call__(self, store: str) -> Awaitable[BackendUnderTest]: ...


SessionScenario = Callable[[BackendOpener, ScriptedProvider], Awaitable[None]]

SYSTEM = "You take restaurant bookings. Be brief."
MEMORY = {"human": "Ada. Vegetarian; likes a quiet table."}
BLOCK = '<memory_blocks>\n<block label="human">\nAda. Vegetarian; likes a quiet table.\n</block>'
BOOK = "Book a table for two on Friday."
BOOKED = "Booked: two, Friday, a quiet table."
SUNDAY = "A birthday dinner on Sunday: what do you have?"
THREE = "Make it three."
THREE_IT_IS = "Three it is, on Friday."
CHAIR = "And a high chair, please."
CHAIR_NOTED = "A high chair is noted."


async def _turn(session: SessionUnderTest, message: str) -> StreamPass:
    await session.send(message)
    return await session.stream()


def _queue(passed: StreamPass) -> list[tuple[str, tuple[str, ...]]]:
    return [(e.action, e.item_ids) for e in passed.events if isinstance(e, QueueEvent)]


async def session_conversations(open_backend: BackendOpener, provider: ScriptedProvider) -> None:
    """An agent with a memory block; two conversations made by `create_session`; one of
    them closed and resumed by its conversation id; a message sent while that session's
    turn is held at the fake, which reaches the model after the active turn, as its own."""
    held = Hold(then=text(THREE_IT_IS), label="active-turn")
    provider.script(
        [text(BOOKED), text("Sunday: the garden room seats eight."), held, text(CHAIR_NOTED)]
    )
    backend = await open_backend("store")
    try:
        agent = await backend.create_agent(SessionAgentSpec(system=SYSTEM, memory=MEMORY))
        friday = await backend.create_session(agent)
        assert (await _turn(friday, BOOK)).result is not None
        birthday = await backend.create_session(agent)
        assert (await _turn(birthday, SUNDAY)).result is not None
        friday_ids, birthday_ids = await friday.ids(), await birthday.ids()
        await friday.close()
        resumed = await backend.resume_session(friday_ids.conversation_id)
        resumed_ids = await resumed.ids()
        await resumed.send(THREE)
        await held.arrived()
        queued_item = await resumed.send(CHAIR)
        assert queued_item is not None, "the reference names a queue item for every send"
        held.release()
        active, queued = await resumed.stream(), await resumed.stream()
        conversations = await backend.list_conversations(agent)
    finally:
        await backend.close()

    assert agent.startswith("agent-")
    assert {friday_ids.agent_id, birthday_ids.agent_id, resumed_ids.agent_id} == {agent}
    assert friday_ids.conversation_id != birthday_ids.conversation_id
    assert resumed_ids == friday_ids, "resuming by conversation id opened another conversation"
    assert conversations[1:] == [friday_ids.conversation_id, birthday_ids.conversation_id]
    assert len(conversations) == 3, "the default conversation and the two created"

    seen = provider.wire.requests
    assert len(seen) == 4, f"expected 4 model requests, the fake saw {len(seen)}"
    assert [r.turns() for r in seen] == [
        [("user", BOOK)],
        [("user", SUNDAY)],  # a new conversation: nothing of the other one
        [("user", BOOK), ("assistant", BOOKED), ("user", THREE)],  # resumed by its id
        [  # the queued message, after the active turn and its answer
            ("user", BOOK),
            ("assistant", BOOKED),
            ("user", THREE),
            ("assistant", THREE_IT_IS),
            ("user", CHAIR),
        ],
    ], "a request showed the model another conversation, or the queue out of order"
    assert all(r.system.startswith(SYSTEM) and BLOCK in r.system for r in seen), (
        "the agent's memory block is missing from a conversation's system prompt"
    )

    assert active.result is not None and active.result.text == THREE_IT_IS
    assert queued.result is not None and queued.result.text == CHAIR_NOTED
    assert active.result.success and queued.result.success
    assert ("enqueued", (queued_item,)) in _queue(active), "the queued send was not told queued"
    assert _queue(queued)[:1] == [("dequeued", (queued_item,))]


SESSIONS: dict[str, SessionScenario] = {
    "session-conversations": session_conversations,
}
