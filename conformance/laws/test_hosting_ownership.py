"""A session id is caller data, never authentication.

"authenticate the caller by your own means, then check they are allowed the session they
claimed": a turn without credentials is refused before the model, a session claimed by
another principal answers as a missing one, and the run carries the principal.
"""

from __future__ import annotations

import pytest

from ._kit import (
    CONTINUES,
    HostFactory,
    HostOutcome,
    ScriptedProvider,
    assert_said,
    describe,
    fresh,
    premise,
    strings_in,
    text,
    tool_call,
    tool_results,
    whoami_report,
)

pytestmark = pytest.mark.asyncio

PRINCIPALS = {"tok-a": "alice", "tok-b": "bob"}
ALICE_SAYS = "Book me a table for two; my card ends 4242."
BOB_SAYS = "Cancel everything in this session."


@pytest.mark.law("hosting.session-id-is-not-auth")
@pytest.mark.parametrize("token", [None, "tok-unknown"], ids=["no-credentials", "unknown"])
async def test_a_turn_without_valid_credentials_is_401_and_never_reaches_the_model(
    fake: ScriptedProvider, new_host: HostFactory, token: str | None
) -> None:
    host = await new_host(principals=PRINCIPALS)
    reply = await host.caller(token=token).send(ALICE_SAYS, session_id=fresh("anon"))
    assert len(fake.wire.requests) == 0, (
        f"a turn with {'no credentials' if token is None else 'an unknown token'} reached "
        f"the model ({describe(reply)})"
    )
    assert_said(reply, HostOutcome.UNAUTHENTICATED, what="a turn the verifier refused")


@pytest.mark.law("hosting.session-id-is-not-auth")
async def test_another_principal_claiming_a_session_is_told_it_does_not_exist(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([text("Booked for two."), text("Three it is.")])
    host = await new_host(principals=PRINCIPALS)
    alice, bob = host.caller(token="tok-a"), host.caller(token="tok-b")
    session_id = fresh("alice-owned")
    opened = await alice.send(ALICE_SAYS, session_id=session_id)
    premise(CONTINUES, opened.answered, f"alice's first turn was {describe(opened)}")
    sent = len(fake.wire.requests)
    turn = await bob.send(BOB_SAYS, session_id=session_id)
    read = await bob.read_session(session_id)
    missing = await bob.read_session(fresh("never-used"))
    assert len(fake.wire.requests) == sent, (
        f"bob's turn in alice's session reached the model ({describe(turn)}): the session "
        "id was taken as the right to it"
    )
    assert_said(turn, HostOutcome.NOT_FOUND, what="bob's turn in alice's session")
    if read is not None and missing is not None:  # a host that serves its store back
        assert ALICE_SAYS not in strings_in(read.body), (
            "bob read alice's session: the stored conversation was served to another principal"
        )
        assert_said(missing, HostOutcome.NOT_FOUND, what="a read of a never-used id")
        assert (read.status, read.said) == (missing.status, missing.said), (
            f"bob's read of alice's session was {read.shown}, not what a read of a session "
            f"that does not exist is ({missing.shown}): the answer tells a prober the "
            "session exists"
        )
    again = await alice.send("Make it three.", session_id=session_id)
    premise(CONTINUES, again.answered, f"alice's second turn was {describe(again)}")
    shown = fake.wire.last.user_texts()
    assert shown == [ALICE_SAYS, "Make it three."], (
        f"alice's next turn was shown {shown}: her history must be untouched by bob's claim"
    )


@pytest.mark.law("hosting.session-id-is-not-auth")
async def test_the_served_run_carries_the_verified_principal(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([tool_call("whoami"), text("You are Alice.")])
    host = await new_host(tools=("whoami",), principals=PRINCIPALS)
    session_id = fresh("whoami")
    reply = await host.caller(token="tok-a").send("Who am I?", session_id=session_id)
    premise(CONTINUES, reply.answered, f"the turn was {describe(reply)}")
    report = whoami_report(tool_results(fake.wire.last)[0]) or {}
    identity = report.get("identity") or {}
    assert isinstance(identity, dict) and identity.get("principal") == "alice", (
        f"a turn verified as alice ran under the identity {identity!r}: the run's identity "
        "must carry the verified principal"
    )
    assert identity.get("conversation_id") == session_id, (
        f"the served run's identity names the conversation {identity.get('conversation_id')!r}"
        f", not its session {session_id!r}"
    )
