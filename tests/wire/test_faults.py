"""Faults: HTTP errors (and the SDKs' own retries), mid-stream failures, delays."""

from __future__ import annotations

import time

import anthropic
import httpx
import openai
import pytest

from conformance.wire import Fault, ScriptedProvider, StreamError, text
from tests.wire.clients import anthropic_client, ask, chat, openai_client


async def test_sdk_retries_consume_steps(provider: ScriptedProvider) -> None:
    provider.script([Fault(status=429), Fault(status=503), text("third time lucky")])
    reply = await openai_client(provider, max_retries=2).chat.completions.create(
        model="m", messages=ask("x")
    )
    assert reply.choices[0].message.content == "third time lucky"
    assert [e.status for e in provider.wire] == [429, 503, 200]
    assert [e.step.kind for e in provider.wire if e.step] == ["fault", "fault", "text"]
    assert len({r.raw["messages"][0]["content"] for r in provider.wire.requests}) == 1


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
async def test_fault_reaches_the_sdk_as_its_error(
    provider: ScriptedProvider, status: int, error: type[Exception]
) -> None:
    provider.script([Fault(status=status, message=f"scripted {status}")])
    with pytest.raises(error, match=f"scripted {status}"):
        await chat(provider)


async def test_anthropic_fault_and_custom_body(provider: ScriptedProvider) -> None:
    custom = {"type": "error", "error": {"type": "overloaded_error", "message": "custom body"}}
    provider.script([Fault(status=529, body=custom)])
    with pytest.raises(anthropic.APIStatusError, match="custom body") as raised:
        await anthropic_client(provider).messages.create(
            model="c", max_tokens=10, messages=ask("x")
        )
    assert raised.value.status_code == 529


@pytest.mark.parametrize(
    ("step", "says"),
    [
        (StreamError(mode="event", after_events=3, message="exploded"), "exploded"),
        (StreamError(mode="event", after_events=10_000, text="short"), "scripted stream failure"),
    ],
    ids=["after-3-events", "after-more-events-than-the-stream-has"],
)
async def test_stream_error_event(provider: ScriptedProvider, step: StreamError, says: str) -> None:
    provider.script([step])
    client = openai_client(provider)
    stream = await client.chat.completions.create(model="m", messages=ask("x"), stream=True)
    received: list[object] = []

    async def drain() -> None:
        async for chunk in stream:
            received.append(chunk)

    with pytest.raises(openai.APIError, match=says):
        await drain()
    assert received, "the failure comes after some events, not instead of them"


async def test_stream_disconnect(provider: ScriptedProvider) -> None:
    provider.script([StreamError(mode="disconnect", after_events=2)])
    client = anthropic_client(provider)

    async def consume() -> None:
        async with client.messages.stream(model="c", max_tokens=10, messages=ask("x")) as stream:
            await stream.get_final_message()

    with pytest.raises((httpx.HTTPError, anthropic.APIError)):
        await consume()


async def test_stream_error_to_a_non_streaming_request_is_a_500(provider: ScriptedProvider) -> None:
    provider.script([StreamError(message="no stream to break")])
    with pytest.raises(openai.InternalServerError, match="no stream to break"):
        await openai_client(provider).responses.create(model="m", input="x")


async def test_delay(provider: ScriptedProvider) -> None:
    provider.script([text("slow", delay=0.05)])
    started = time.monotonic()
    await chat(provider)
    assert time.monotonic() - started >= 0.05
    exchange = provider.wire.exchanges[0]
    assert exchange.duration is not None and exchange.duration >= 0.05


async def test_a_delay_past_the_clients_timeout_times_out(provider: ScriptedProvider) -> None:
    provider.script([text("too slow", delay=0.5)])
    client = openai.AsyncOpenAI(
        base_url=provider.base_url, api_key="sk-timeout-test-0000", max_retries=0, timeout=0.1
    )
    with pytest.raises(openai.APITimeoutError):
        await client.chat.completions.create(model="m", messages=ask("x"))
