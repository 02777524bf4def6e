"""Where a served turn's session id comes from, judged by whose history the model is shown.

"nodeHost reads the JSON body's sessionId and then the x-session-id header — or a cookie
it issues itself". So the body wins over the header, the header over the cookie; a
request that carried none is issued a cookie (cookie mode) and nothing else is; and a
request with no session id at all is answered and stored nowhere. A host that picks the
wrong source answers plausibly from the wrong conversation, which only the wire shows.
"""

from __future__ import annotations

import itertools

import pytest

from ._kit import (
    CONTINUES,
    HostClient,
    HostFactory,
    HostOutcome,
    ScriptedProvider,
    assert_said,
    describe,
    fresh,
    premise,
    request_for,
    strings_in,
    text,
)

pytestmark = pytest.mark.asyncio

COOKIE = "turnlaw_session"
SOURCES = ("body", "header", "cookie")
CARRIED = [combo for size in (1, 2, 3) for combo in itertools.combinations(SOURCES, size)]
"""Every non-empty set of sources: the singletons prove each source is read at all, the
pairs and the triple which one wins."""

PROBE = "What have I told you so far?"
"""A losing session's next turn, where the host offers no read of its store."""


def seeded(session_id: str) -> str:
    return f"Remember: I am the guest of session {session_id}."


async def seed(caller: HostClient, session_id: str) -> None:
    reply = await caller.send(seeded(session_id), session_id=session_id)
    premise(
        CONTINUES,
        reply.answered,
        f"a first turn of {session_id} was {describe(reply)}, not answered",
    )


async def judge_carried(
    fake: ScriptedProvider, caller: HostClient, carried: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """One request carrying a session id by each of `carried`, each source naming a
    session of its own: what it broke of the law's core (whose history the model was
    shown, where the turn was stored), and of its details (status, a cookie issued)."""
    ids = {source: fresh(source) for source in carried}
    for session_id in ids.values():
        await seed(caller, session_id)
    by = " and ".join(carried)
    asked = f"Which guest am I? ({'+'.join(carried)})"
    reply = await caller.send(
        asked,
        session_id=ids.get("body"),
        header_session=ids.get("header"),
        cookie=ids.get("cookie"),
    )
    winner = carried[0]  # SOURCES is in precedence order, and so is every combination
    shown = request_for(fake, asked)
    if shown is None:
        return [f"by {by}: {describe(reply)}, never reaching the model"], []
    core: list[str] = []
    history = shown.user_texts()[:-1]
    if history != [seeded(ids[winner])]:
        core.append(
            f"by {by}: the {winner}'s session must be continued, but the model was shown {history}"
        )
    for loser in carried[1:]:
        read = await caller.read_session(ids[loser])
        if read is None:  # no read offered: the loser's next turn shows what it holds
            before = len(fake.wire.requests)
            await caller.send(PROBE, session_id=ids[loser])
            sent = fake.wire.requests[before:]
            held = sent[-1].user_texts() if sent else []
        else:
            held = strings_in(read.body)
        if asked in held:
            core.append(f"by {by}: the turn was stored in the {loser}'s session too")
    details: list[str] = []
    if not reply.answered:
        details.append(f"by {by}: {describe(reply)}")
    if reply.issued_cookie is not None:
        details.append(f"by {by}: issued a session cookie, though it carried a session id")
    return core, details


@pytest.mark.law("hosting.session-id-sources")
async def test_the_body_wins_over_the_header_and_the_header_over_the_cookie(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """Every set of sources on one host (a host start costs more than the turns): each
    request names sessions no other request used, so the cases cannot see each other."""
    seeds = sum(len(carried) for carried in CARRIED)
    fake.script(
        [text("Noted.")] * seeds + [text("Here you are.")] * len(CARRIED) * 2,
        allow_unused=True,
    )
    host = await new_host(session_cookie=COOKIE)
    core: list[str] = []
    details: list[str] = []
    for carried in CARRIED:
        broke, slipped = await judge_carried(fake, host.caller(), carried)
        core += broke
        details += slipped
    assert not core, "the session id was read from the wrong source:\n" + "\n".join(core)
    assert not details, "\n".join(details)


@pytest.mark.law("hosting.session-id-sources")
async def test_a_request_carrying_no_session_is_issued_a_cookie_that_continues_it(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([text("Booked for two."), text("Three it is."), text("Hello, stranger.")])
    host = await new_host(session_cookie=COOKIE)
    first, stranger = host.caller(), host.caller()
    opened = await first.send("Book me a table for two on Friday.")
    premise(CONTINUES, opened.answered, f"the first turn was {describe(opened)}")
    assert opened.issued_cookie, (
        f"in cookie mode ({COOKIE}) a request carrying no session id was answered without "
        f"a session cookie (Set-Cookie: {opened.set_cookie_header!r})"
    )
    again = await first.send("Make it three.")  # the caller's jar sends the cookie back
    shown = fake.wire.last.turns()
    assert shown[:2] == [
        ("user", "Book me a table for two on Friday."),
        ("assistant", "Booked for two."),
    ], (
        f"the next request carrying the issued cookie did not continue its session: the "
        f"model was shown {shown}"
    )
    assert again.issued_cookie is None, (
        "a request that carried the session cookie was issued another one"
    )
    other = await stranger.send("Hello?")
    assert fake.wire.last.user_texts() == ["Hello?"], (
        "a caller without the cookie was shown another caller's session: "
        f"{fake.wire.last.user_texts()}"
    )
    assert other.issued_cookie and other.issued_cookie != opened.issued_cookie, (
        "a second caller carrying no session id was not issued a session of its own"
    )
    stored = await first.read_session(opened.issued_cookie)
    assert stored is None or stored.found, (
        f"the session the cookie names is not stored ({stored.shown})"
    )
    header = opened.set_cookie_header or ""
    attributes = [part.strip().lower() for part in header.split(";")]
    # The cookie's attributes are the host's own (the seed fixes only that it is issued
    # and read): the default profile's are noted where they differ.
    lacking = [
        wanted for wanted in ("path=/", "httponly", "samesite=lax") if wanted not in attributes
    ]
    if lacking and opened.note is not None:
        opened.note(f"the issued session cookie lacks {', '.join(lacking)}")
    assert header.startswith(f"{COOKIE}="), (
        f"the issued session cookie is not named {COOKIE}: Set-Cookie: {header!r}"
    )


@pytest.mark.law("hosting.session-id-sources")
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_request_with_no_session_id_is_answered_and_stored_nowhere(
    fake: ScriptedProvider, new_host: HostFactory, stream: bool
) -> None:
    fake.script([text("Booked for two."), text("Hello, stranger.")])
    host = await new_host()
    caller = host.caller()
    first = await caller.send("Book me a table for two on Friday.", stream=stream)
    assert_said(first, HostOutcome.ANSWERED, what="a request with no session id")
    assert first.output == "Booked for two.", (
        f"a request with no session id was answered {first.output!r}: it is answered, only "
        "not stored"
    )
    assert first.issued_cookie is None, "a host not in cookie mode issued a session cookie"
    await caller.send("Make it three.", stream=stream)
    shown = fake.wire.last.user_texts()
    assert shown == ["Make it three."], (
        "a request with no session id was stored and continued by the next request "
        f"without one: the model was shown {shown}"
    )
