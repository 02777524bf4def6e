"""A served conversation, turn by turn: answered, continued, stored before the reply."""

from __future__ import annotations

from conformance.wire import ScriptedProvider, text

from .conftest import Host


async def test_second_turn_continues_the_first(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([text("Booked for two."), text("Three it is.")])
    async with host() as (served, client):
        first = await client.post("/invoke", json={"input": "Book for two.", "sessionId": "s1"})
        second = await client.post("/invoke", json={"input": "Make it three.", "sessionId": "s1"})
    assert first.status_code == 200 and first.json() == {
        "output": "Booked for two.",
        "sessionId": "s1",
    }
    assert second.json()["output"] == "Three it is."
    assert wire.wire.last.turns() == [
        ("user", "Book for two."),
        ("assistant", "Booked for two."),
        ("user", "Make it three."),
    ]
