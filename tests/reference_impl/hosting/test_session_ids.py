"""Where a session id comes from (body > header > cookie) and when a cookie is issued."""

from __future__ import annotations

from urllib.parse import quote

from conformance.wire import ScriptedProvider, text

from .conftest import Host


async def test_body_wins_over_header_and_header_over_cookie(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("one"), text("two"), text("three")])
    async with host(session_cookie="sid") as (_, client):
        client.cookies.set("sid", "from-cookie")
        body = await client.post(
            "/invoke", json={"input": "a", "sessionId": "from-body"}, headers={"x-session-id": "h"}
        )
        header = await client.post("/invoke", json={"input": "b"}, headers={"x-session-id": "h"})
        cookie = await client.post("/invoke", json={"input": "c"})
    assert [r.json()["sessionId"] for r in (body, header, cookie)] == [
        "from-body",
        "h",
        "from-cookie",
    ]
    assert all("set-cookie" not in r.headers for r in (body, header, cookie))


async def test_a_cookie_is_issued_only_to_a_request_that_carried_none(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked."), text("Three it is.")])
    async with host(session_cookie="sid") as (_, client):
        first = await client.post("/invoke", json={"input": "Book for two."})
        second = await client.post("/invoke", json={"input": "Make it three."})  # the jar sends it
    issued = first.headers["set-cookie"]
    name_value, *attributes = [part.strip() for part in issued.split(";")]
    name, _, value = name_value.partition("=")
    assert name == "sid" and len(value) == 36
    assert {a.lower() for a in attributes} == {"path=/", "httponly", "samesite=lax"}
    assert first.json()["sessionId"] == value == second.json()["sessionId"]
    assert "set-cookie" not in second.headers
    assert loopback_provider.wire.last.user_texts() == ["Book for two.", "Make it three."]


async def test_a_cookie_outside_cookie_mode_is_not_a_session(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Hello.")])
    async with host() as (_, client):
        client.cookies.set("sid", "ignored")
        reply = await client.post("/invoke", json={"input": "Hi."})
    assert reply.json()["sessionId"] is None and "set-cookie" not in reply.headers


async def test_an_empty_session_id_from_any_source_is_400_and_not_run(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    async with host(session_cookie="sid") as (_, client):
        body = await client.post("/invoke", json={"input": "Hi.", "sessionId": ""})
        header = await client.post("/invoke", json={"input": "Hi."}, headers={"x-session-id": ""})
        cookie = await client.post("/invoke", json={"input": "Hi."}, headers={"cookie": "sid="})
    for reply, named in ((body, "sessionId"), (header, "x-session-id"), (cookie, "sid")):
        assert (reply.status_code, reply.json()["code"]) == (400, "ERR_INVALID_REQUEST")
        assert f"`{named}`" in reply.json()["error"] and "empty" in reply.json()["error"]
        assert "pydantic" not in reply.text and "set-cookie" not in reply.headers
    assert len(loopback_provider.wire) == 0


CONTROL_IDS = ("a\r\nb", "line\nbreak", "tab\tnul\x00esc\x1b", "ends\n", "\n")


async def test_a_session_id_with_control_characters_is_kept_and_read_back(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text(f"Answer {n}.") for n in range(len(CONTROL_IDS))])
    async with host() as (_, client):
        turns = [
            await client.post("/invoke", json={"input": "Hi.", "sessionId": sid})
            for sid in CONTROL_IDS
        ]
        reads = [await client.get(f"/sessions/{quote(sid, safe='')}") for sid in CONTROL_IDS]
    assert [t.json()["sessionId"] for t in turns] == list(CONTROL_IDS)
    assert [r.status_code for r in reads] == [200] * len(CONTROL_IDS), [r.text for r in reads]
    assert [r.json()["sessionId"] for r in reads] == list(CONTROL_IDS)
    answers = [r.json()["checkpoint"]["history"][-1]["text"] for r in reads]
    assert answers == [f"Answer {n}." for n in range(len(CONTROL_IDS))]


async def test_a_read_of_an_id_and_a_newline_is_not_the_id(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked.")])
    async with host() as (_, client):
        await client.post("/invoke", json={"input": "Book.", "sessionId": "a"})
        other = await client.get("/sessions/a%0A")
    assert (other.status_code, other.json()["code"]) == (404, "ERR_SESSION_NOT_FOUND")


async def test_dot_segment_session_ids_are_refused_before_the_first_turn(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    async with host() as (_, client):
        replies = [
            await client.post("/invoke", json={"input": "Hi.", "sessionId": "."}),
            await client.post("/invoke", json={"input": "Hi.", "sessionId": ".."}),
            await client.post("/invoke", json={"input": "Hi."}, headers={"x-session-id": ".."}),
        ]
        read = await client.get("/sessions/%2E%2E")
    for reply in replies:
        assert (reply.status_code, reply.json()["code"]) == (400, "ERR_INVALID_REQUEST")
        assert "GET /sessions/" in reply.json()["error"]
    assert len(loopback_provider.wire) == 0
    assert read.status_code == 404
