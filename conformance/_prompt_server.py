"""`PromptServer`: uvicorn's server, stopping as soon as it is told to.

uvicorn notices `should_exit` on a 0.1 s tick, then sleeps a fixed 0.1 s after asking its
connections to close and polls every 0.1 s until they have: a server with nothing left to
do waits out those sleeps. The suite starts and stops one for every session backend and
every host the reference opens for a test, and one fake per run, so the sleeps add up
to a large share of the session laws' wall time. Here a stop wakes the main loop at
once and the drain is polled every few milliseconds; the steps and their order are
uvicorn's: stop accepting, ask each connection to finish, wait for them and the tasks they
left (at most `timeout_graceful_shutdown`, then cancel what is left).

Shared by the fake's loopback server and the reference's servers (like `_tls`): one place
that knows uvicorn's stopping internals (`server_state`, `servers`, `lifespan`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

TICK = 0.1
"""uvicorn's own tick, kept for `on_tick` (its Date header is refreshed every ten)."""
DRAIN_POLL = 0.005
"""How often a stopping server looks whether its connections and tasks are gone."""


class PromptServer(uvicorn.Server):
    """uvicorn.Server whose `should_exit = True` takes effect at once.

    `signals=False` (the default) leaves signal handling alone: whoever owns the process
    decides when to stop, so a library user's handlers are kept and a SIGTERM'd command
    line exits 0 instead of re-raising the signal. `signals=True` keeps uvicorn's
    (SIGINT/SIGTERM stop the server, then are raised again), for a command line that
    relies on them.
    """

    def __init__(self, config: uvicorn.Config, *, signals: bool = False) -> None:
        self._signals = signals
        self._should_exit = False
        self._wake: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        super().__init__(config)

    @property
    def should_exit(self) -> bool:
        return self._should_exit

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._should_exit = value
        if value and self._wake is not None:
            loop, event = self._wake
            # thread- and signal-safe, as asyncio's own signal handling is: the callback
            # is queued and the loop's self-pipe written, so a waiting select returns now
            with contextlib.suppress(RuntimeError):  # the loop has closed: nothing waits
                loop.call_soon_threadsafe(event.set)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if self._signals:
            with super().capture_signals():
                yield
        else:
            yield

    async def main_loop(self) -> None:
        event = asyncio.Event()
        self._wake = (asyncio.get_running_loop(), event)
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), TICK)
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                await self._drained()
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()

    async def _drained(self) -> None:
        """Until every connection has closed and every task it left has ended."""
        while self.server_state.connections and not self.force_exit:
            await asyncio.sleep(DRAIN_POLL)
        while self.server_state.tasks and not self.force_exit:
            await asyncio.sleep(DRAIN_POLL)
        for server in self.servers:
            await server.wait_closed()
