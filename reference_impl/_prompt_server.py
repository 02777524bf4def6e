"""`PromptServer`: uvicorn's server, stopping as soon as it is told to.

uvicorn notices `should_exit` on a 0.1 s tick, then sleeps a fixed 0.1 s after asking its
connections to close and polls every 0.1 s until they have: a server with nothing left to
do took 0.15-0.2 s to stop. The reference starts and stops one for every served session
backend and every host a test opens (hundreds in a conformance run: 7.5 of the 28 s the
session laws take in one dialect went to these sleeps). Here a stop wakes the main loop
at once and the drain is polled every few milliseconds; the order and meaning of the
steps are uvicorn's: stop accepting, ask each connection to finish, wait for them (at most
`timeout_graceful_shutdown`), then for the tasks they left.

Like the servers it replaces, it leaves signals alone: whoever owns the process decides
when to stop, so a library user's handlers are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

TICK = 0.1
"""uvicorn's own tick: its Date header is refreshed every ten."""
DRAIN_POLL = 0.005
"""How often a stopping server looks whether its connections and tasks are gone."""


class PromptServer(uvicorn.Server):
    """uvicorn.Server whose `should_exit = True` takes effect at once."""

    def __init__(self, config: uvicorn.Config) -> None:
        self._exit_asked: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._should_exit = False
        super().__init__(config)

    @property
    def should_exit(self) -> bool:
        return self._should_exit

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._should_exit = value
        event, loop = self._exit_asked, self._loop
        if not value or event is None or loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:  # another thread (a test's, a signal's): wake the loop safely
            with contextlib.suppress(RuntimeError):  # it closed in between
                loop.call_soon_threadsafe(event.set)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._exit_asked = asyncio.Event()
        if self._should_exit:
            self._exit_asked.set()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._exit_asked.wait(), TICK)
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
