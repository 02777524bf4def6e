"""`Accept: text/event-stream`: chunk(s) then one terminal event; a refusal before the
run is plain JSON with its status."""

from __future__ import annotations

import json

import httpx

from conformance.wire import Fault, ScriptedProvider, text, tool_call

from .conftest import Host

STREAM = {"accept": "text/event-stream"}


async def events(client: httpx.AsyncClient, body: dict[str, str]) -> list[tuple[str, object]]:
    reply = await client.post("/invoke", json=body, headers=STREAM)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith(
        "text/event-stream"
    )
    found: list[tuple[str, object]] = []
    for block in reply.text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            found.append((fields["event"], json.loads(fields["data"])))
    return found


async def test_an_answer_streams_chunk_then_complete(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked.")])
    async with host() as (_, client):
        found = await events(client, {"input": "Book.", "sessionId": "s"})
    assert found == [
        ("chunk", {"text": "Booked."}),
        ("complete", {"output": "Booked.", "sessionId": "s"}),
    ]


async def test_a_pause_streams_awaiting(loopback_provider: ScriptedProvider, host: Host) -> None:
    loopback_provider.script([tool_call("approve_refund", {"order": 2})])
    async with host() as (_, client):
        found = await events(client, {"input": "Refund 2.", "sessionId": "s"})
    assert [name for name, _ in found] == ["awaiting"]
    assert found[0][1]["question"] == "Approve a refund for order 2?"  # type: ignore[index]


async def test_a_failed_run_streams_error(loopback_provider: ScriptedProvider, host: Host) -> None:
    loopback_provider.script([Fault(status=400, message="no")])
    async with host() as (_, client):
        found = await events(client, {"input": "Book.", "sessionId": "s"})
    assert [(name, data["code"]) for name, data in found] == [  # type: ignore[index]
        ("error", "ERR_RUN_FAILED")
    ]


async def test_a_refusal_before_the_run_is_plain_json(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    async with host() as (_, client):
        bad = await client.post("/invoke", content=b"{", headers=STREAM)
        nothing = await client.post(
            "/invoke", json={"decision": "yes", "sessionId": "s"}, headers=STREAM
        )
    assert (bad.status_code, bad.json()["code"]) == (400, "ERR_INVALID_REQUEST")
    assert (nothing.status_code, nothing.json()["code"]) == (409, "ERR_NO_PENDING_ASK")
