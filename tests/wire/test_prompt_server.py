"""PromptServer stops when told, not on uvicorn's tick, and still stops gracefully.

The tick is patched to an hour: a stop that waited for it would hang, and the bound on
each wait (generous, never a speed claim) turns that hang into a failure.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from conformance import _prompt_server
from conformance._prompt_server import PromptServer

BOUND = 10.0
"""Seconds any step may take before the test calls it a hang."""


class SlowApp:
    """Answers every request once `release` is set; counts the answers it finished."""

    def __init__(self) -> None:
        self.arrived = asyncio.Event()
        self.release = asyncio.Event()
        self.finished = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.arrived.set()
        await self.release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"done"})
        self.finished += 1


@pytest.fixture(autouse=True)
def hour_long_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_prompt_server, "TICK", 3600.0)


async def _started(
    app: Any, graceful: int | None = None
) -> tuple[PromptServer, asyncio.Task[None]]:
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        lifespan="off",
        log_level="warning",
        http="h11",
        timeout_graceful_shutdown=graceful,
    )
    server = PromptServer(config)
    task = asyncio.ensure_future(server.serve())
    async with asyncio.timeout(BOUND):
        while not server.started:
            assert not task.done(), "the server did not start"
            await asyncio.sleep(0.005)
    return server, task


def _url(server: PromptServer) -> str:
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    return f"http://{host}:{port}/"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=BOUND) as opened:
        yield opened


async def test_a_stop_asked_on_the_loop_ends_the_server_without_waiting_for_the_tick() -> None:
    server, task = await _started(SlowApp())
    server.should_exit = True
    await asyncio.wait_for(task, BOUND)


async def test_a_stop_asked_from_another_thread_wakes_the_loop() -> None:
    server, task = await _started(SlowApp())
    asker = threading.Thread(target=setattr, args=(server, "should_exit", True))
    asker.start()
    await asyncio.wait_for(task, BOUND)
    asker.join()


async def test_a_stop_asked_before_serving_still_ends_it() -> None:
    config = uvicorn.Config(SlowApp(), host="127.0.0.1", port=0, lifespan="off")
    server = PromptServer(config)
    server.should_exit = True
    await asyncio.wait_for(server.serve(), BOUND)


async def test_a_request_in_flight_when_the_stop_comes_is_answered_first(
    client: httpx.AsyncClient,
) -> None:
    app = SlowApp()
    server, task = await _started(app)
    request = asyncio.create_task(client.get(_url(server)))
    await asyncio.wait_for(app.arrived.wait(), BOUND)
    server.should_exit = True
    await asyncio.sleep(0.05)
    assert not task.done(), "the server stopped with a request still being answered"
    app.release.set()
    response = await asyncio.wait_for(request, BOUND)
    await asyncio.wait_for(task, BOUND)
    assert (response.status_code, response.content, app.finished) == (200, b"done", 1)


async def test_a_request_that_outlasts_the_graceful_timeout_is_cancelled(
    client: httpx.AsyncClient,
) -> None:
    app = SlowApp()  # never released
    server, task = await _started(app, graceful=1)
    request = asyncio.create_task(client.get(_url(server)))
    await asyncio.wait_for(app.arrived.wait(), BOUND)
    server.should_exit = True
    await asyncio.wait_for(task, BOUND)
    assert app.finished == 0
    try:  # uvicorn answers 500 for an app it cancelled before it answered
        response = await asyncio.wait_for(request, BOUND)
    except httpx.HTTPError:
        return
    assert response.status_code == 500


async def test_new_connections_are_refused_once_stopped(client: httpx.AsyncClient) -> None:
    server, task = await _started(SlowApp())
    url = _url(server)
    server.should_exit = True
    await asyncio.wait_for(task, BOUND)
    with pytest.raises(httpx.ConnectError):
        await client.get(url)
