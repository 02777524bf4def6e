"""What uvicorn leaves open: a deadline for a request's headers, and quiet accept errors.

uvicorn's one connection timeout is keep-alive: armed after a response and cancelled by any
byte (Kludex/uvicorn#157 lists request-start and request-complete timeouts as not done).
So a client that connects and sends nothing, or trickles its headers or its body a byte at
a time (slowloris), held a connection and its file descriptor forever. `GuardedH11Protocol`
is uvicorn's own h11 protocol with one more timer, for a request's head and then its body;
idle keep-alive connections keep uvicorn's timer.

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


STALLED = "turnlaw.stalled"
"""Set in the request's ASGI scope when its body deadline cut the connection, so the app
records why the body never came (uvicorn then reports a plain disconnect)."""


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request is too slow to arrive:
    its head within `header_timeout` (from connecting, or from the first incomplete piece
    of a later head), its body within `body_timeout` of the head.

    A timer runs only while a request is incomplete after a read: a request that arrives
    in one piece, the usual case, costs no timer at all.
    """

    header_timeout: float = 10.0  # both set on a subclass per server (`guarded_protocol`)
    body_timeout: float = 30.0
    _deadline: asyncio.TimerHandle | None = None
    _waiting_for: Any = None  # h11.IDLE (a head) or h11.SEND_BODY (a body)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(h11.IDLE)  # a connection that never sends a byte is cut too

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.IDLE or state is h11.SEND_BODY:
            if self._waiting_for is not state:  # a new wait begins: its own deadline
                self._arm(state)
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, state: Any) -> None:
        self._disarm()
        seconds = self.header_timeout if state is h11.IDLE else self.body_timeout
        self._waiting_for = state
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self._waiting_for = None

    def _expired(self) -> None:
        waited_for, self._deadline, self._waiting_for = self._waiting_for, None, None
        if self.conn.their_state is not waited_for or self.transport.is_closing():
            return
        if waited_for is h11.SEND_BODY and self.scope is not None:
            self.scope[STALLED] = self.body_timeout  # type: ignore[literal-required]
        self.transport.close()


def guarded_protocol(header_timeout: float, body_timeout: float) -> type[GuardedH11Protocol]:
    """The protocol class for one server (uvicorn builds it from the class alone)."""
    timeouts = {"header_timeout": header_timeout, "body_timeout": body_timeout}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), timeouts)


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
