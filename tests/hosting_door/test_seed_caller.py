"""The seed-wire caller against a real HTTP host (a Starlette app in the test): each reply
kind, SSE, cookies, and replies that are not the wire, as typed findings."""

from __future__ import annotations

import json

import pytest

from conformance.hosting import (
    AwaitingQuestion,
    HostOutcome,
    HostUnreachable,
    NotTheWire,
    SeedWireCaller,
    assert_said,
)

from .served import COOKIE, SEEN, served


async def test_an_answer_a_pause_and_a_refusal_are_read_off_the_wire() -> None:
    async with served() as url:
        caller = SeedWireCaller(url, session_cookie=COOKIE)
        answered = await caller.send("Book it", session_id="s1")
        assert (answered.status, answered.output) == (200, "echo Book it")
        assert answered.said == {HostOutcome.ANSWERED}
        paused = await caller.send("pause", session_id="s1")
        assert paused.status == 202 and paused.said == {HostOutcome.PAUSED}
        assert paused.awaiting == AwaitingQuestion("s1", "ask_person", "Which day?", "call_1")
        refused = await caller.send("busy", session_id="s1")
        assert (refused.status, refused.said) == (409, {HostOutcome.BUSY})
        assert "s1 busy" in refused.evidence
        decided = await caller.decide("Friday", session_id="s1")
        assert decided.output == "echo Friday"
        assert SEEN[-1]["body"] == {"decision": "Friday", "sessionId": "s1"}
        await caller.aclose()


async def test_session_ids_travel_as_the_seed_names_them() -> None:
    async with served() as url:
        caller = SeedWireCaller(url, session_cookie=COOKIE)
        await caller.send("a", header_session="h1")
        assert SEEN[-1]["sid"] == "h1" and "sessionId" not in SEEN[-1]["body"]
        await caller.send("a", session_id="b1", header_session="h1", cookie="c1")
        assert SEEN[-1]["sid"] == "b1"
        assert SEEN[-1]["headers"]["x-session-id"] == "h1"
        assert SEEN[-1]["headers"]["cookie"] == f"{COOKIE}=c1"
        await caller.aclose()


async def test_a_caller_keeps_the_cookie_it_was_issued_and_another_caller_does_not() -> None:
    async with served() as url:
        learned: list[str] = []
        first = SeedWireCaller(url, session_cookie=COOKIE, learn=learned.append)
        issued = await first.send("hello")
        assert issued.issued_cookie is not None and learned == [issued.issued_cookie]
        assert issued.set_cookie_header is not None and "HttpOnly" in issued.set_cookie_header
        again = await first.send("again")
        assert SEEN[-1]["sid"] == issued.issued_cookie and again.issued_cookie is None
        second = SeedWireCaller(url, session_cookie=COOKIE)
        other = await second.send("hello")
        assert other.issued_cookie not in (None, issued.issued_cookie)
        await first.aclose()
        await second.aclose()


async def test_a_bearer_token_is_sent_on_every_request() -> None:
    async with served() as url:
        caller = SeedWireCaller(url, token="t-1")
        assert (await caller.send("auth")).output == "Bearer t-1"
        assert (await SeedWireCaller(url).send("auth")).output == "nobody"
        await caller.aclose()


async def test_a_stream_is_read_by_its_events_terminal_last() -> None:
    async with served() as url:
        caller = SeedWireCaller(url)
        streamed = await caller.send("Book", session_id="s1", stream=True)
        assert [name for name, _ in streamed.events] == ["chunk", "chunk", "complete"]
        assert streamed.output == "Booked for Friday." and streamed.status == 200
        paused = await caller.send("pause", session_id="s1", stream=True)
        assert paused.awaiting is not None and paused.events[-1][0] == "awaiting"
        refused = await caller.send("busy", session_id="s1", stream=True)  # plain JSON
        assert (refused.status, refused.said, refused.events) == (409, {HostOutcome.BUSY}, [])
        await caller.aclose()


async def test_raw_bytes_and_session_reads() -> None:
    async with served() as url:
        caller = SeedWireCaller(url)
        bad = await caller.raw(b"{not json", headers={"x-session-id": "s"})
        assert (bad.status, bad.said) == (400, {HostOutcome.INVALID_REQUEST})
        read = await caller.read_session("s1")
        assert read is not None and read.found and read.checkpoint == {"messages": ["s1"]}
        missing = await caller.read_session("missing")
        assert missing is not None and missing.said == {HostOutcome.NOT_FOUND}
        await caller.aclose()


@pytest.mark.parametrize(
    ("said", "stream", "shown"),
    [
        ("text", False, "b'hello'"),
        ("teapot", False, "status 418"),
        ("missing", False, "status 200"),
        ("badcode", False, "status 409"),
        ("unterminated", True, "chunk"),
        ("twice", True, "complete"),
    ],
)
async def test_a_reply_its_profile_cannot_classify_is_the_hosts_finding(
    said: str, stream: bool, shown: str
) -> None:
    async with served() as url:
        caller = SeedWireCaller(url)
        reply = await caller.send(said, session_id="s", stream=stream)
        assert reply.said == frozenset() and shown in reply.evidence
        with pytest.raises(NotTheWire, match="does not classify") as caught:
            assert_said(reply, HostOutcome.ANSWERED, what="the turn")
        assert isinstance(caught.value, AssertionError)  # a law's FAIL, not an ERROR
        assert shown in str(caught.value)  # the reply is shown
        await caller.aclose()


async def test_events_before_the_last_are_the_hosts_own_business() -> None:
    """A piece of a stream that is not JSON is no outcome: only the last event says one."""
    async with served() as url:
        caller = SeedWireCaller(url)
        reply = await caller.send("notjson", session_id="s", stream=True)
        assert reply.said == {HostOutcome.ANSWERED} and reply.output == "a"
        assert reply.events[0] == ("chunk", "{nope")
        await caller.aclose()


async def test_a_host_that_is_gone_is_unreachable_not_a_finding() -> None:
    async with served() as url:
        pass
    caller = SeedWireCaller(url)
    with pytest.raises(HostUnreachable) as caught:
        await caller.send("hello")
    assert not isinstance(caught.value, AssertionError)
    await caller.aclose()


def test_the_wire_schema_is_exported() -> None:
    from conformance.hosting import hosting_wire_schema

    schema = hosting_wire_schema()
    assert set(schema["messages"]) >= {"invoke_request", "reply_202", "event_complete"}
    json.dumps(schema)


def test_the_wire_schema_file_is_fresh() -> None:
    from pathlib import Path

    from conformance.hosting import hosting_wire_schema

    path = Path(__file__).resolve().parents[2] / "schemas" / "hosting-wire-v1.json"
    assert json.loads(path.read_text()) == hosting_wire_schema(), (
        "schemas/hosting-wire-v1.json is stale: "
        "python -m conformance schema hosting > schemas/hosting-wire-v1.json"
    )


async def test_a_stream_asked_for_and_answered_whole_is_noted_not_failed() -> None:
    async with served() as url:
        notes: list[str] = []
        caller = SeedWireCaller(url, note=notes.append)
        whole = await caller.send("auth", stream=True)  # this route never streams
        assert whole.answered and whole.events == []
        refused = await caller.send("busy", session_id="s1", stream=True)
        assert refused.said == {HostOutcome.BUSY}
        assert notes == [
            "answers a request asking for a stream (Accept: text/event-stream) whole"
        ]  # once: a refusal before the run is whole on the default wire too
        await caller.aclose()
