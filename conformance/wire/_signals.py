"""A one-shot signal that threads and event loops can all wait on.

The fake provider answers from the caller's loop (respx, async clients), from a
caller's thread (respx, sync clients) or from the loopback server's own loop thread,
while the test waits in yet another loop. `asyncio.Event` belongs to one loop and
`threading.Event` cannot be awaited, so holds need this small bridge.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading


class Signal:
    """Set once, from any thread; waited on synchronously or from any event loop."""

    __slots__ = ("_event", "_lock", "_waiters")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def is_set(self) -> bool:
        return self._event.is_set()

    def set(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            # RuntimeError: that loop is closed, so nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_resolve, future)

    def wait(self, timeout: float | None = None) -> bool:
        """Block this thread until set; False on timeout."""
        return self._event.wait(timeout)

    async def wait_async(self, timeout: float | None = None) -> bool:
        """Suspend this task until set; False on timeout."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._event.is_set():
                return True
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, future))
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            return False
        return True


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Gate:
    """What a test waits to see arrive and then lets go: a held reply, a held service call."""

    _arrived: Signal
    _released: Signal

    @property
    def has_arrived(self) -> bool:
        return self._arrived.is_set()

    @property
    def is_released(self) -> bool:
        return self._released.is_set()

    def release(self) -> None:
        self._released.set()
