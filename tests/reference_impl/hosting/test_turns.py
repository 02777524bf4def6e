"""A served conversation, turn by turn: each status row of docs/hosting.md, judged on the
fake's recording and the store."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from conformance.wire import Fault, ScriptedProvider, text, tool_call
from reference_impl.store import damage_session, sqlite_sessions

from .conftest import Host


def stored(path: Path, session_id: str) -> dict[str, object] | None:
    """The checkpoint the store holds, read from the file itself."""
    store = sqlite_sessions(str(path))
    try:
        row = store.load(session_id)
        return None if row is None else json.loads(row.checkpoint)
    finally:
        store.close()


async def test_turn_two_continues_turn_one(loopback_provider: ScriptedProvider, host: Host) -> None:
    wire = loopback_provider
    wire.script([text("Booked for two."), text("Three it is.")])
    async with host() as (_, client):
        first = await client.post("/invoke", json={"input": "Book for two.", "sessionId": "s1"})
        second = await client.post("/invoke", json={"input": "Make it three.", "sessionId": "s1"})
    assert (first.status_code, first.json()) == (
        200,
        {"output": "Booked for two.", "sessionId": "s1"},
    )
    assert second.json()["output"] == "Three it is."
    assert wire.wire.last.turns() == [
        ("user", "Book for two."),
        ("assistant", "Booked for two."),
        ("user", "Make it three."),
    ]


async def test_stored_before_the_reply(
    loopback_provider: ScriptedProvider, host: Host, tmp_path: Path
) -> None:
    loopback_provider.script([text("Booked.")])
    async with host() as (_, client):
        reply = await client.post("/invoke", json={"input": "Book.", "sessionId": "s1"})
        checkpoint = stored(tmp_path / "sessions.db", "s1")  # read while the host still runs
    assert reply.status_code == 200
    assert checkpoint is not None and checkpoint["turns"] == 1


async def test_no_session_id_is_answered_and_not_stored(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Hello."), text("Hello again.")])
    async with host() as (_, client):
        first = await client.post("/invoke", json={"input": "Hi."})
        second = await client.post("/invoke", json={"input": "Hi again."})
    assert first.json() == {"output": "Hello.", "sessionId": None}
    assert second.status_code == 200
    assert loopback_provider.wire.last.turns() == [("user", "Hi again.")]


async def test_pause_is_served_kept_and_resumed(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([tool_call("approve_refund", {"order": 7}), text("Refunded.")])
    async with host() as (_, client):
        paused = await client.post("/invoke", json={"input": "Refund 7.", "sessionId": "p"})
        refused = await client.post("/invoke", json={"input": "Anything else?", "sessionId": "p"})
        calls_while_paused = len(wire.wire)
        kept = await client.get("/sessions/p")
        resumed = await client.post("/invoke", json={"decision": "approved", "sessionId": "p"})
    assert paused.status_code == 202
    awaiting = paused.json()["awaiting"]
    assert awaiting["sessionId"] == "p" and awaiting["tool"] == "approve_refund"
    assert awaiting["question"] == "Approve a refund for order 7?" and awaiting["toolCallId"]
    assert (refused.status_code, refused.json()["code"]) == (409, "ERR_AWAITING_DECISION")
    assert calls_while_paused == 1  # the message while paused never reached the model
    assert kept.json()["checkpoint"]["pending"]["tool_name"] == "approve_refund"
    assert (resumed.status_code, resumed.json()["output"]) == (200, "Refunded.")
    last = wire.wire.last.messages[-1]
    assert (last.role, last.text) == ("tool", "approved")


async def test_decision_with_nothing_paused(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked.")])
    async with host() as (_, client):
        await client.post("/invoke", json={"input": "Book.", "sessionId": "d"})
        decided = await client.post("/invoke", json={"decision": "yes", "sessionId": "d"})
        fresh = await client.post("/invoke", json={"decision": "yes", "sessionId": "none-yet"})
    for reply in (decided, fresh):
        assert (reply.status_code, reply.json()["code"]) == (409, "ERR_NO_PENDING_ASK")
    assert len(loopback_provider.wire) == 1


async def test_pause_without_a_session_is_not_carried(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([tool_call("approve_refund", {"order": 1})])
    async with host() as (_, client):
        reply = await client.post("/invoke", json={"input": "Refund 1."})
    assert (reply.status_code, reply.json()["code"]) == (409, "ERR_PAUSE_NOT_CARRIED")


async def test_invalid_requests_are_400(loopback_provider: ScriptedProvider, host: Host) -> None:
    bodies: list[bytes] = [
        b"{not json",
        b"[]",
        b'{"input": 3}',
        b'{"input": "hi", "sessionId": 5}',
        b'{"sessionId": "s"}',
        b'{"input": "hi", "decision": "yes"}',
    ]
    async with host() as (_, client):
        replies = [await client.post("/invoke", content=body) for body in bodies]
    for reply in replies:
        assert (reply.status_code, reply.json()["code"]) == (400, "ERR_INVALID_REQUEST"), reply.text
    assert len(loopback_provider.wire) == 0


async def raw_exchange(url: str, request: bytes) -> tuple[bytes, bytes]:
    """Send `request` as it is on a socket of its own; the reply's head and body."""
    host, _, port = url.removeprefix("http://").rpartition(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    head, _, body = (await reader.read()).partition(b"\r\n\r\n")
    writer.close()
    return head, body


async def test_a_request_http_cannot_read_is_still_refused_as_the_wire(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    cookie = b"cookie: sid=" + b"x" * 20_000 + b"\r\n"  # no end of head: h11 gives up on it
    async with host(session_cookie="sid") as (served, _):
        pieces = await raw_exchange(served.url, b"POST /invoke HTTP/1.1\r\nhost: x\r\n" + cookie)
        garbled = await raw_exchange(served.url, b"POST /invoke HTTP/1.1\r\nnot a header\r\n\r\n")
    for (head, body), words in ((pieces, "16 KiB"), (garbled, "malformed")):
        assert head.startswith(b"HTTP/1.1 400 "), head
        assert b"content-type: application/json" in head.lower()
        refusal = json.loads(body)
        assert refusal["code"] == "ERR_INVALID_REQUEST" and words in refusal["error"], refusal
    assert len(loopback_provider.wire) == 0


async def test_a_head_over_the_limit_that_arrives_whole_is_refused_alike(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Hello.")])
    async with host(session_cookie="sid") as (_, client):
        reply = await client.post(
            "/invoke", json={"input": "Hi."}, headers={"cookie": "sid=" + "x" * 20_000}
        )
        under = await client.post(
            "/invoke", json={"input": "Hi."}, headers={"cookie": "sid=" + "y" * 15_000}
        )
    assert (reply.status_code, reply.json()["code"]) == (400, "ERR_INVALID_REQUEST"), reply.text
    assert "16 KiB" in reply.json()["error"]
    assert under.json()["sessionId"] == "y" * 15_000
    assert len(loopback_provider.wire) == 1


async def test_unreadable_session_is_500_never_fresh(
    loopback_provider: ScriptedProvider, host: Host, tmp_path: Path
) -> None:
    loopback_provider.script([text("Booked.")])
    store = tmp_path / "sessions.db"
    async with host(store=store) as (_, client):
        await client.post("/invoke", json={"input": "Book.", "sessionId": "u"})
    damage_session(str(store), "u")
    async with host(store=store) as (_, client):
        reply = await client.post("/invoke", json={"input": "Again.", "sessionId": "u"})
        read = await client.get("/sessions/u")
    assert (reply.status_code, reply.json()["code"]) == (500, "ERR_SESSION_UNREADABLE")
    assert read.status_code == 500
    assert len(loopback_provider.wire) == 1


async def test_failed_run_is_502_and_keeps_the_last_turn(
    loopback_provider: ScriptedProvider, host: Host, tmp_path: Path
) -> None:
    loopback_provider.script([text("Booked."), Fault(status=400, message="model fell over")])
    async with host() as (_, client):
        await client.post("/invoke", json={"input": "Book.", "sessionId": "f"})
        failed = await client.post("/invoke", json={"input": "Again.", "sessionId": "f"})
        kept = await client.get("/sessions/f")
    assert (failed.status_code, failed.json()["code"]) == (502, "ERR_RUN_FAILED")
    assert kept.json()["checkpoint"]["turns"] == 1


async def test_stopping_host_is_503(loopback_provider: ScriptedProvider, host: Host) -> None:
    async with host() as (served, client):
        served.core.begin_shutdown()
        reply = await client.post("/invoke", json={"input": "Hi.", "sessionId": "x"})
    assert (reply.status_code, reply.json()["code"]) == (503, "ERR_SHUTTING_DOWN")


async def test_health_and_sessions(loopback_provider: ScriptedProvider, host: Host) -> None:
    loopback_provider.script([text("Booked.")])
    async with host() as (_, client):
        health = await client.get("/health")
        await client.post("/invoke", json={"input": "Book.", "sessionId": "a/b é"})
        found = await client.get("/sessions/a%2Fb%20%C3%A9")
        missing = await client.get("/sessions/nobody")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert found.json()["sessionId"] == "a/b é"
    first = found.json()["checkpoint"]["history"][0]
    assert (first["role"], first["text"]) == ("user", "Book.")
    assert (missing.status_code, missing.json()["code"]) == (404, "ERR_SESSION_NOT_FOUND")


async def test_one_sessions_pause_never_refuses_another_on_a_shared_agent(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    wire = loopback_provider
    wire.script([tool_call("approve_refund", {"order": 7}), text("Booked."), text("Refunded.")])
    async with host() as (_, client):
        paused = await client.post("/invoke", json={"input": "Refund 7.", "sessionId": "p"})
        other = await client.post("/invoke", json={"input": "Book.", "sessionId": "q"})
        resumed = await client.post("/invoke", json={"decision": "yes", "sessionId": "p"})
    assert [paused.status_code, other.status_code, resumed.status_code] == [202, 200, 200]
    assert wire.wire.last.user_texts() == ["Refund 7."]


async def test_a_crash_is_still_the_wire_and_names_only_its_type(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    from reference_impl.hosting import StandingAgent

    class Crashing(StandingAgent):
        async def invoke(self, incoming: object) -> object:  # type: ignore[override]
            raise RuntimeError("sk-what-it-read")

    async with host(standing_class=Crashing) as (_, client):
        reply = await client.post("/invoke", json={"input": "Book for two.", "sessionId": "s1"})
    assert reply.status_code == 500
    assert reply.json() == {"error": "the host failed: RuntimeError", "code": "ERR_INTERNAL"}
    assert "sk-what-it-read" not in reply.text
