"""What uvicorn leaves open: a deadline for a request's headers, and quiet accept errors.

uvicorn's one connection timeout is keep-alive: armed after a response and cancelled by any
byte (Kludex/uvicorn#157 lists request-start and request-complete timeouts as not done).
So a client that connects and sends nothing, or trickles its headers a byte at a time
(slowloris), held a connection and its file descriptor forever. `GuardedH11Protocol` is
uvicorn's own h11 protocol with one more timer: a request's head must be complete within
`header_timeout` of its first byte (of the connection opening, for the first request).
Bodies have their own deadline in the app, which reads them; idle keep-alive connections
keep uvicorn's timer.

When the process runs out of file descriptors, asyncio (3.11) logs an error for every one of
`backlog` accept attempts per wake-up, schedules as many retries, and each retry still
pending at shutdown logs a traceback: thousands of lines a second. `AcceptErrors` turns
that into one warning and a count, and the server's backlog is kept at the listening
socket's 128 (uvicorn's default is 2048), which bounds the attempts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

_LOGGER = logging.getLogger("uvicorn.error")


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is too slow."""

    header_timeout: float = 10.0  # set on a subclass per server (`guarded_protocol`)
    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends a byte is cut too

    def data_received(self, data: bytes) -> None:
        if self._head_deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first byte of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head is in: the app reads the body, with its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_expired)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_expired(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(header_timeout: float) -> type[GuardedH11Protocol]:
    """The protocol class for one server (uvicorn builds it from the class alone)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"header_timeout": header_timeout})


class AcceptErrors:
    """A loop exception handler: one warning for running out of file descriptors, then a
    count; everything else goes to asyncio's default handler."""

    MESSAGE = "socket.accept() out of system resource"

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        retry = "_start_serving" in repr(context.get("handle"))  # a retry, its socket closed
        if context.get("message") != self.MESSAGE and not retry:
            loop.default_exception_handler(context)
            return
        self.count += 1
        if self.count == 1:
            _LOGGER.warning(
                "turnlaw: cannot accept connections: %s; new connections wait until "
                "others close (said once; idle connections are cut after their timeouts)",
                context.get("exception"),
            )
