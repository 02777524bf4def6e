"""The service the `call_service` catalog tool calls: the fake, over plain HTTP.

A law about "while a tool is running" needs a tool the suite can hold mid-run in any
language, and a law about failure paths needs a tool that raises; both are a tool that
asks someone else and waits. So `call_service(key)` GETs `{base_url}/_turnlaw/tools/<key>`
and the fake decides the answer per key: at once by default (200, `reply`), held until
the test releases it (`held=True`), or failing (`fails=True`: a 500 whose body the tool
raises with). Tool calls are not model calls: they are counted here, never recorded in
the wire log, so "nothing reached the model" stays a statement about the model.
"""

from __future__ import annotations

import threading

from ._signals import Gate, Signal

SERVICE_PATH = "/_turnlaw/tools/"
"""Under the provider's base URL: `{base_url}/_turnlaw/tools/<key>` (GET)."""

SERVICE_FAILURE = "turnlaw: the service failed (scripted)"
"""The body of a failing key's 500, and so the message the tool raises with."""


class ServiceGate(Gate):
    """How the fake answers `call_service(key)` for one key, and what it saw."""

    def __init__(
        self, key: str, *, reply: str | None = None, held: bool = False, fails: bool = False
    ) -> None:
        self.key = key
        self.reply = reply if reply is not None else f"{key}: done"
        self.fails = fails
        self._arrived = Signal()
        self._released = Signal()
        self._lock = threading.Lock()
        self._calls = 0
        if not held:
            self._released.set()

    @property
    def calls(self) -> int:
        """How many times the tool called the service with this key."""
        return self._calls

    async def arrived(self, timeout: float = 10.0) -> None:
        """Wait until the tool has called the service (its call is then running)."""
        if not await self._arrived.wait_async(timeout):
            raise TimeoutError(
                f"service {self.key!r}: call_service was not called within {timeout:g}s; "
                "did the model's tool call run, and does the adapter offer call_service?"
            )

    async def answer(self, limit: float) -> tuple[int, str]:
        """The status and text to answer one call with, once released (or after
        `limit` seconds, so a call nobody releases still ends)."""
        with self._lock:
            self._calls += 1
        self._arrived.set()
        await self._released.wait_async(limit)
        return (500, SERVICE_FAILURE) if self.fails else (200, self.reply)


__all__ = ["SERVICE_FAILURE", "SERVICE_PATH", "ServiceGate"]
