"""Holds park a reply until the test releases it: the timing laws rest on this."""

from __future__ import annotations

import asyncio
import threading

import pytest

from conformance.wire import Hold, HoldTimeoutError, ScriptedProvider, text
from tests.wire.clients import ask, chat, openai_client, openai_sync


async def test_hold_parks_one_request_while_another_is_answered(
    provider: ScriptedProvider,
) -> None:
    hold = Hold(then=text("first, eventually"), label="slow")
    provider.script([hold, text("second, at once")])
    client = openai_client(provider)
    first = asyncio.create_task(client.chat.completions.create(model="m", messages=ask("one")))
    arrived = await hold.arrived(timeout=5)
    assert arrived.user_texts() == ["one"]
    second = await client.chat.completions.create(model="m", messages=ask("two"))
    assert second.choices[0].message.content == "second, at once"
    await asyncio.sleep(0.05)
    assert not first.done(), "the held reply must stay parked until release()"
    hold.release()
    reply = await asyncio.wait_for(first, 5)
    assert reply.choices[0].message.content == "first, eventually"
    assert [e.seq for e in provider.wire] == [1, 2]
    held, quick = provider.wire.exchanges
    assert held.finished_at is not None and quick.finished_at is not None
    assert held.finished_at > quick.finished_at


async def test_held_stream(provider: ScriptedProvider) -> None:
    hold = Hold(then=text("streamed after release"))
    provider.script([hold])
    client = openai_client(provider)

    async def consume() -> str:
        stream = await client.chat.completions.create(model="m", messages=ask("x"), stream=True)
        return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])

    task = asyncio.create_task(consume())
    await hold.arrived()
    hold.release()
    assert await asyncio.wait_for(task, 5) == "streamed after release"


def test_hold_with_a_sync_client_in_a_thread(provider: ScriptedProvider) -> None:
    hold = Hold(then=text("sync ok"))
    provider.script([hold])
    client = openai_sync(provider)
    result: list[str | None] = []
    worker = threading.Thread(
        target=lambda: result.append(
            client.chat.completions.create(model="m", messages=ask("x")).choices[0].message.content
        )
    )
    worker.start()
    assert hold.wait_arrived(timeout=5).user_texts() == ["x"]
    assert worker.is_alive()
    hold.release()
    worker.join(5)
    assert result == ["sync ok"]


async def test_waiting_for_a_request_that_never_comes_times_out_clearly() -> None:
    hold = Hold(then=text("never"), label="lonely")
    provider = ScriptedProvider([hold], allow_unused=True)
    with pytest.raises(HoldTimeoutError, match="hold 'lonely': no request reached"):
        await hold.arrived(timeout=0.05)
    assert not provider.findings


async def test_a_hold_nobody_releases_answers_after_the_limit_and_is_a_finding() -> None:
    from conformance.wire import InProcess

    hold = Hold(then=text("late"), label="forgotten")
    provider = ScriptedProvider([hold], hold_limit=0.05)
    with InProcess(provider):
        reply = await chat(provider)
    assert reply.choices[0].message.content == "late"
    assert [f.kind for f in provider.findings] == ["hold_expired"]
