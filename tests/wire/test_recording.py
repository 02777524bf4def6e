"""The recorder: redaction, header allow-list, deterministic export, transport parity."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter

from conformance.wire import Hold, InProcess, LoopbackServer, ScriptedProvider, text, tool_call
from conformance.wire.wirelog import ExchangeRecord
from tests.conftest import API_KEY
from tests.wire.clients import anthropic_client, ask, chat, openai_client


def everything_recorded(provider: ScriptedProvider) -> str:
    """Every form the log takes: the live exchanges (bodies, headers, IR) and the export."""
    return repr(provider.wire.exchanges) + provider.wire.export()


async def test_keys_never_reach_the_log_or_the_export(provider: ScriptedProvider) -> None:
    provider.script([text("a"), text("b")])
    await chat(provider, f"my key is {API_KEY}, keep it safe")
    await anthropic_client(provider).messages.create(model="c", max_tokens=5, messages=ask("hi"))
    recorded = everything_recorded(provider)
    assert API_KEY not in recorded
    openai_exchange, anthropic_exchange = provider.wire.exchanges
    assert openai_exchange.headers["authorization"] == "<redacted>"
    assert anthropic_exchange.headers["authorization"] == "<redacted>"  # anthropic>=2 sends Bearer
    assert "anthropic-version" in anthropic_exchange.headers
    assert "user-agent" not in openai_exchange.headers  # not on the allow-list
    assert provider.wire.last.raw["messages"][0]["content"] == "hi"
    assert openai_exchange.body["messages"][0]["content"] == "my key is <redacted>, keep it safe"


@pytest.mark.parametrize("header", ["api-key", "x-api-key", "X-Api-Key"])
async def test_other_credential_headers_are_redacted(header: str) -> None:
    provider = ScriptedProvider([text("a")])
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{provider.base_url}/chat/completions",
                headers={header: "plain-SECRET-key-value"},
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            )
    assert response.status_code == 200
    assert "plain-SECRET-key-value" not in everything_recorded(provider)
    assert provider.wire.exchanges[0].headers[header.lower()] == "<redacted>"


async def scenario(provider: ScriptedProvider) -> None:
    client = openai_client(provider)
    tools: Any = [{"type": "function", "function": {"name": "echo", "parameters": {}}}]
    first = await client.chat.completions.create(
        model="m",
        messages=[
            {"role": "system", "content": "Session 3f2b8c1e-0d4a-4b7e-9c6f-2a1b3c4d5e6f"},
            {"role": "user", "content": f"sent at 2026-11-30T03:44:14Z from {provider.base_url}"},
        ],
        tools=tools,
    )
    call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
    await client.chat.completions.create(
        model="m",
        stream=True,
        messages=[
            {"role": "user", "content": "again"},
            first.choices[0].message.model_dump(exclude_none=True),  # type: ignore[list-item]
            {"role": "tool", "tool_call_id": call.id, "content": "echoed"},
        ],
        tools=tools,
    )


async def export_after(transport: type) -> str:
    provider = ScriptedProvider([tool_call("echo", {"text": "x"}), text("done")])
    with transport(provider):
        await scenario(provider)
    provider.verify()
    return provider.wire.export()


async def test_export_is_deterministic_and_identical_across_transports(snapshot: Any) -> None:
    in_process = await export_after(InProcess)
    again = await export_after(InProcess)
    loopback = await export_after(LoopbackServer)
    assert in_process == again
    assert in_process == loopback
    for volatile in ("3f2b8c1e", "03:44:14", "turnlaw.test", "127.0.0.1"):
        assert volatile not in in_process
    for marker in ("<uuid-1>", "<timestamp-1>", "<provider>/v1"):
        assert marker in in_process
    assert in_process == snapshot  # the string, so the body keeps its key order
    records = TypeAdapter(list[ExchangeRecord]).validate_json(in_process)
    assert [r.seq for r in records] == [1, 2]


@pytest.mark.parametrize("transport", [InProcess, LoopbackServer])
async def test_ports_are_normalized(transport: type) -> None:
    provider = ScriptedProvider([text("a")])
    with transport(provider):
        await chat(provider, "see http://127.0.0.1:51234/x")
    assert "127.0.0.1:<port>" in provider.wire.export()
    assert "51234" not in provider.wire.export()


@pytest.mark.parametrize("transport", [InProcess, LoopbackServer])
async def test_a_repeated_credential_header_is_redacted_every_time(transport: type) -> None:
    provider = ScriptedProvider([text("a")])
    first, second = "zz-first-secret-AAAAAAAA", "zz-second-secret-BBBBBBBB"
    with transport(provider):
        async with httpx.AsyncClient() as client:
            await client.post(
                f"{provider.base_url}/chat/completions",
                headers=httpx.Headers([("X-API-KEY", first), ("x-Api-Key", second)]),
                json={"model": "m", "messages": [{"role": "user", "content": f"{first} {second}"}]},
            )
    recorded = everything_recorded(provider)
    assert first not in recorded and second not in recorded
    assert provider.wire.exchanges[0].headers["x-api-key"] == "<redacted>"


async def test_volatile_values_are_numbered_so_equality_survives() -> None:
    provider = ScriptedProvider([text("a")])
    same, other = "3f2b8c1e-0d4a-4b7e-9c6f-2a1b3c4d5e6f", "00000000-1111-4222-8333-444455556666"
    run = "ba976035c2d14e0f"
    message = f"a={same} b={other} again={same} run={run} at http://[::1]:51234/v1"
    with InProcess(provider):
        await chat(provider, message)
    exported = provider.wire.export_data()[0]["body"]["messages"][0]["content"]
    assert exported == "a=<uuid-1> b=<uuid-2> again=<uuid-1> run=<hex-1> at http://[::1]:<port>/v1"


async def test_a_recorded_exchange_never_changes_and_its_delivery_is_kept_apart(
    provider: ScriptedProvider,
) -> None:
    hold = Hold(then=text("late"), label="parked")
    provider.script([hold])
    call = asyncio.create_task(chat(provider))
    await hold.arrived()
    (exchange,) = provider.wire.exchanges  # recorded at arrival, complete but for delivery
    assert (exchange.status, exchange.step and exchange.step.label) == (200, "parked")
    assert exchange.finished_at is None and exchange.duration is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        exchange.status = 500  # type: ignore[misc]
    before = provider.wire.export()
    hold.release()
    await call
    assert exchange.finished_at is not None and exchange.duration is not None
    assert provider.wire.exchanges[0] is exchange and provider.wire.export() == before


def test_a_step_whose_rendering_raises_is_still_recorded_as_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exchange is built once, after the step was decided: a reply that cannot be
    rendered is a 500 finding, and the recording still says which step it used up."""
    from conformance.wire import provider as provider_module
    from conformance.wire._plan import RawRequest

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("cannot render")

    monkeypatch.setattr(provider_module, "render_step", broken)
    fake = ScriptedProvider([text("never rendered")], allow_unused=True)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    plan = fake.respond(
        RawRequest(
            "POST", "/v1/chat/completions", [("content-type", "application/json")], body.encode()
        )
    )
    assert plan.status == 500
    (exchange,) = fake.wire
    assert exchange.step is not None and exchange.step.index == 0
    assert [f.kind for f in exchange.findings] == ["internal"]
