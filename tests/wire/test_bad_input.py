"""Bad input gets a clear answer and a finding; the server never dies on it."""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import httpx
import pytest

from conformance.wire import (
    LoopbackServer,
    ScriptedProvider,
    text,
)
from tests.wire.clients import anthropic_client, ask, chat, openai_client


async def test_garbage_then_good_requests_on_one_server() -> None:
    provider = ScriptedProvider([text("still alive")])
    with LoopbackServer(provider):
        async with httpx.AsyncClient(base_url=provider.base_url or "") as client:
            not_json = await client.post("/chat/completions", content=b"{nope")
            no_messages = await client.post("/chat/completions", json={"model": "m"})
            unknown = await client.post("/embeddings", json={})
            wrong_method = await client.get("/chat/completions")
            truncated = await client.post(
                "/messages", content=b'{"model": "c", "messages": [', headers={"x-api-key": "k"}
            )
        good = await chat(provider)
    assert good.choices[0].message.content == "still alive"
    assert not_json.status_code == 400 and "not valid JSON" in not_json.text
    assert no_messages.status_code == 400 and "messages" in no_messages.json()["error"]["message"]
    assert unknown.status_code == 404
    served = unknown.json()["error"]["message"]
    for endpoint in ("POST /v1/chat/completions", "POST /v1/responses", "POST /v1/messages"):
        assert endpoint in served
    assert wrong_method.status_code == 405
    assert truncated.status_code == 400 and truncated.json()["type"] == "error"
    kinds = [f.kind for f in provider.findings]
    assert kinds == ["malformed", "malformed", "unknown_endpoint", "unknown_endpoint", "malformed"]


async def test_malformed_body_names_the_field() -> None:
    from conformance.wire import InProcess

    provider = ScriptedProvider([text("never sent")], allow_unused=True)
    with InProcess(provider), pytest.raises(anthropic.BadRequestError, match="max_tokens"):
        await anthropic_client(provider).messages.create(
            model="c",
            max_tokens=5,
            messages=ask("x"),
            extra_body={"max_tokens": "lots"},
        )
    (finding,) = provider.findings
    assert finding.kind == "malformed" and "max_tokens" in finding.message


async def test_models_endpoint_speaks_both_dialects(provider: ScriptedProvider) -> None:
    provider.script([], model="gpt-test")
    listed = [m.id async for m in openai_client(provider).models.list()]
    anthropic_listed = [m.id async for m in anthropic_client(provider).models.list()]
    assert listed == anthropic_listed == ["gpt-test"]


async def test_a_listed_model_joins_the_models_scripts_name(provider: ScriptedProvider) -> None:
    """A runtime that checks its model against the provider's list (Letta Code) is given
    the model the suite lists, whichever script answers it."""
    assert provider.models == ["turnlaw-fake"]  # nothing named: the default list
    provider.list_model("turnlaw-model")
    assert [m.id async for m in openai_client(provider).models.list()] == ["turnlaw-model"]
    provider.script([], model="gpt-test")
    provider.list_model("turnlaw-model")  # twice is once
    assert [m.id async for m in openai_client(provider).models.list()] == [
        "gpt-test",
        "turnlaw-model",
    ]
    with pytest.raises(ValueError, match="non-empty string"):
        provider.list_model("")


@pytest.mark.parametrize("name", ["script-file", "wire-log"])
def test_committed_schemas_are_current(name: str) -> None:
    from conformance.wire.__main__ import SCHEMAS

    committed = Path(__file__).parents[2] / "schemas" / f"{name}-v1.json"
    assert json.loads(committed.read_text()) == SCHEMAS[name](), (
        f"schemas/{name}-v1.json is stale: "
        f"python -m conformance.wire schema {name} > schemas/{name}-v1.json"
    )


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b'{"model": "m", "metadata": ' + b"[" * 3000 + b"]" * 3000 + b"}", "nested deeper"),
        (b'{"model": "m", "temperature": NaN, "messages": []}', "NaN is not JSON"),
        ('{"model": "café"'.encode("latin-1"), "not UTF-8"),
    ],
)
async def test_hostile_bodies_are_refused_recorded_and_survived(body: bytes, why: str) -> None:
    provider = ScriptedProvider([text("still alive")])
    with LoopbackServer(provider):
        async with httpx.AsyncClient(base_url=provider.base_url or "") as client:
            refused = await client.post("/chat/completions", content=body)
            fine = await client.post(
                "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            )
    assert refused.status_code == 400 and why in refused.json()["error"]["message"]
    assert fine.status_code == 200
    first = provider.wire.exchanges[0]
    assert isinstance(first.body, str) and first.body, "the evidence is kept, as text"
    assert [f.kind for f in provider.findings] == ["malformed"]


async def test_a_react_step_that_returns_garbage_is_a_finding() -> None:
    from conformance.wire import InProcess, React

    provider = ScriptedProvider([React(fn=lambda request: None)])  # type: ignore[arg-type,return-value]
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{provider.base_url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            )
    assert response.status_code == 500 and "expected a step" in response.text
    assert [f.kind for f in provider.findings] == ["react_failed"]
    assert len(provider.wire) == 1


async def test_a_hold_made_by_a_react_step_can_be_released() -> None:
    import asyncio

    from conformance.wire import Hold, InProcess, React

    provider = ScriptedProvider([React(fn=lambda request: Hold(label="late", then=text("held")))])
    with InProcess(provider):
        async with httpx.AsyncClient() as client:
            task = asyncio.create_task(
                client.post(
                    f"{provider.base_url}/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
                )
            )
            while len(provider.wire) == 0:
                await asyncio.sleep(0.005)
            await provider.hold("late").arrived()
            provider.hold("late").release()
            assert (await task).json()["choices"][0]["message"]["content"] == "held"
    provider.verify()


def test_duplicate_hold_labels_are_refused() -> None:
    from conformance.wire import Hold

    provider = ScriptedProvider([Hold(label="gate", then=text("a"))])
    with pytest.raises(ValueError, match="'gate' is used twice"):
        provider.script([Hold(label="gate", then=text("b"))])


def test_a_single_step_instead_of_a_list_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="must be a list of steps"):
        ScriptedProvider(text("a"))  # type: ignore[arg-type]


async def test_a_hold_nobody_released_fails_verification() -> None:
    import asyncio

    from conformance.wire import Hold, InProcess

    hold = Hold(label="forgotten", then=text("x"))
    provider = ScriptedProvider([hold])
    with InProcess(provider):
        task = asyncio.create_task(chat(provider))
        await hold.arrived()
    await task  # leaving InProcess released it
    assert [f.kind for f in provider.findings] == ["hold_unreleased"]
