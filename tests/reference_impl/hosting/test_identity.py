"""A session id is caller data, never authentication: with a verifier, the owner is
recorded on the first persisted turn and another principal finds nothing."""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from conformance.wire import ScriptedProvider, text
from reference_impl.hosting import Served

from .conftest import Host

TOKENS = {"tok-ann": "ann", "tok-bob": "bob"}


def verify(headers: Mapping[str, str]) -> str | None:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return TOKENS.get(token) if scheme == "Bearer" else None


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def test_unverified_callers_are_401(loopback_provider: ScriptedProvider, host: Host) -> None:
    async with host(identity=verify) as (_, client):
        none = await client.post("/invoke", json={"input": "Hi.", "sessionId": "s"})
        wrong = await client.post(
            "/invoke", json={"input": "Hi.", "sessionId": "s"}, headers=bearer("forged")
        )
        read = await client.get("/sessions/s")
    for reply in (none, wrong, read):
        assert (reply.status_code, reply.json()["code"]) == (401, "ERR_UNAUTHENTICATED")
    assert len(loopback_provider.wire) == 0


async def test_another_principal_finds_nothing(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked."), text("Three it is.")])
    async with host(identity=verify) as (served, client):
        mine = await client.post(
            "/invoke", json={"input": "Book.", "sessionId": "s"}, headers=bearer("tok-ann")
        )
        theirs = await client.post(
            "/invoke", json={"input": "Cancel it.", "sessionId": "s"}, headers=bearer("tok-bob")
        )
        their_read = await client.get("/sessions/s", headers=bearer("tok-bob"))
        missing = await client.get("/sessions/nobody", headers=bearer("tok-bob"))
        again = await client.post(
            "/invoke", json={"input": "Make it three.", "sessionId": "s"}, headers=bearer("tok-ann")
        )
        identity = _last_identity(served)
    assert mine.status_code == 200 and again.status_code == 200
    assert (theirs.status_code, theirs.json()["code"]) == (404, "ERR_SESSION_NOT_FOUND")
    assert their_read.json() == missing.json() | {"error": their_read.json()["error"]}
    assert their_read.status_code == missing.status_code == 404
    assert len(loopback_provider.wire) == 2  # bob's turn never reached the model
    assert identity == {"conversation_id": "s", "principal": "ann"}


def _last_identity(served: Served) -> dict[str, str]:
    agents = served.core.agents
    last = agents.agent.last_run  # type: ignore[union-attr]
    assert last is not None
    return last.identity.model_dump(exclude_none=True)


async def test_without_a_verifier_the_id_holds_the_session(
    loopback_provider: ScriptedProvider, host: Host
) -> None:
    loopback_provider.script([text("Booked."), text("Cancelled.")])
    async with host() as (_, client):
        await client.post("/invoke", json={"input": "Book.", "sessionId": "s"})
        async with httpx.AsyncClient(base_url=str(client.base_url)) as stranger:
            reply = await stranger.post("/invoke", json={"input": "Cancel.", "sessionId": "s"})
    assert reply.json()["output"] == "Cancelled."
