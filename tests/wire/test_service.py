"""The call_service tool's service, and the hold at a stream's end: the two moments of a
run in flight that a held request cannot reach (its tool running; its answer streamed)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from conformance.catalog import service_url
from conformance.wire import SERVICE_FAILURE, Hold, ScriptedProvider, text
from tests.wire.clients import ask, chat, openai_client


async def test_a_held_stream_end_sends_the_whole_answer_first(provider: ScriptedProvider) -> None:
    hold = Hold(then=text("all of it"), at="stream_end")
    provider.script([hold])
    client = openai_client(provider)
    got: list[str] = []

    async def consume() -> None:
        stream = await client.chat.completions.create(model="m", messages=ask("x"), stream=True)
        async for chunk in stream:  # one by one: what has arrived is seen before the end
            got.extend(choice.delta.content or "" for choice in chunk.choices)

    task = asyncio.create_task(consume())
    await hold.streamed(timeout=5)
    try:  # the client reads the text while the end is held (it arrives when it arrives)
        async with asyncio.timeout(30):
            while "".join(got) != "all of it":
                assert not task.done(), "the stream must not end before release()"
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"the answer's text must be out before the end is held; got {got}")
    assert not task.done(), "the stream must not end before release()"
    hold.release()
    await asyncio.wait_for(task, 5)


async def test_a_stream_end_hold_on_a_reply_that_is_not_streamed_holds_it_whole(
    provider: ScriptedProvider,
) -> None:
    hold = Hold(then=text("whole"), at="stream_end")
    provider.script([hold])
    task = asyncio.create_task(chat(provider))
    assert not (await hold.arrived(timeout=5)).stream
    await asyncio.sleep(0.05)
    assert not task.done()
    hold.release()
    assert (await asyncio.wait_for(task, 5)).choices[0].message.content == "whole"


async def test_the_service_answers_holds_and_fails_per_key_and_records_no_model_call(
    loopback_provider: ScriptedProvider,
) -> None:
    base = loopback_provider.base_url or ""
    held = loopback_provider.service("slow", held=True, reply="finally")
    loopback_provider.service("broken", fails=True)
    async with httpx.AsyncClient(timeout=10) as client:
        quick = await client.get(service_url(base, "anything"))
        assert (quick.status_code, quick.text) == (200, "anything: done")
        waiting = asyncio.create_task(client.get(service_url(base, "slow")))
        await held.arrived(timeout=5)
        await asyncio.sleep(0.05)
        assert not waiting.done(), "a held key must not answer before release()"
        held.release()
        assert (await asyncio.wait_for(waiting, 5)).text == "finally"
        failed = await client.get(service_url(base, "broken"))
        assert (failed.status_code, failed.text) == (500, SERVICE_FAILURE)
    assert held.calls == 1 and loopback_provider.service_gate("anything").calls == 1
    assert len(loopback_provider.wire) == 0, "a tool's call to the service is not a model call"


def test_a_key_is_scripted_once(loopback_provider: ScriptedProvider) -> None:
    loopback_provider.service("k")
    with pytest.raises(ValueError, match="scripted twice"):
        loopback_provider.service("k")
