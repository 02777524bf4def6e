"""The hand-off between the provider and a transport.

`RawRequest` is what a transport read off the wire; `Plan` is what it must send back:
status, headers, body pieces, and what to wait for first. Waiting comes in two forms
because respx may call us from a synchronous client's thread or from an event loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .dialects._base import SseEvent, json_body

if TYPE_CHECKING:
    from ._signals import Signal
    from .script import Hold
    from .wirelog import Delivery, Finding


@dataclass(frozen=True, slots=True)
class BodyCut:
    """Why a transport did not read a request's whole body (so `RawRequest.body` is empty).

    `too_large`: more than `limit` bytes were declared or sent; `aborted`: the client closed
    the connection before the body was complete; `stalled`: the body stopped arriving and
    the server cut the connection (`detail` says after how long).
    """

    reason: Literal["too_large", "aborted", "stalled"]
    received: int
    declared: int | None = None
    limit: int | None = None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class RawRequest:
    method: str
    path: str
    headers: Sequence[tuple[str, str]]  # every value: a repeated header is not collapsed
    body: bytes
    cut: BodyCut | None = None


@dataclass(slots=True)
class Plan:
    status: int
    headers: list[tuple[str, str]]
    chunks: list[bytes]
    disconnect: bool = False
    delay: float = 0.0
    hold: Hold | None = None
    hold_limit: float = 60.0
    hold_at_end: bool = False  # the hold parks the stream before its last event, not the reply
    seq: int | None = None  # the exchange this answers
    delivery: Delivery | None = field(default=None, repr=False)  # told when the reply is out
    recorded: Signal | None = field(default=None, repr=False)  # set once on disk
    report: Callable[[Finding], None] | None = field(default=None, repr=False)

    @classmethod
    def sse(cls, events: list[SseEvent], *, disconnect: bool = False) -> Plan:
        headers = [("content-type", "text/event-stream"), ("cache-control", "no-cache")]
        return cls(200, headers, [e.encode() for e in events], disconnect=disconnect)

    @property
    def waits(self) -> bool:
        return self.delay > 0 or self.hold is not None or self.recorded is not None

    def wait_sync(self, read_timeout: float | None = None) -> bool:
        """Wait out the log write, the hold and the delay; False when the client's read
        timeout came first (the in-process transport then raises its ReadTimeout)."""
        started = time.monotonic()
        if self.recorded is not None:
            self.recorded.wait()
        hold = None if self.hold_at_end else self.hold
        if hold is not None and not self._held(hold, read_timeout):
            return False
        if self.delay:
            left = self._left(read_timeout, started)
            time.sleep(min(self.delay, left))
            return self.delay <= left
        return True

    async def wait_async(self, read_timeout: float | None = None) -> bool:
        """`wait_sync` for event loops."""
        started = time.monotonic()
        if self.recorded is not None:
            await self.recorded.wait_async()
        hold = None if self.hold_at_end else self.hold
        if hold is not None and not await self._held_async(hold, read_timeout):
            return False
        if self.delay:
            left = self._left(read_timeout, started)
            await asyncio.sleep(min(self.delay, left))
            return self.delay <= left
        return True

    def end_held_sync(self, read_timeout: float | None = None) -> bool:
        """Before a stream's last event: say everything else is out, wait for release
        (a `Hold(at="stream_end")`); False when the client's read timeout came first."""
        if self.hold is None or not self.hold_at_end:
            return True
        self.hold._mark_streamed()
        return self._held(self.hold, read_timeout)

    async def end_held_async(self, read_timeout: float | None = None) -> bool:
        """`end_held_sync` for event loops."""
        if self.hold is None or not self.hold_at_end:
            return True
        self.hold._mark_streamed()
        return await self._held_async(self.hold, read_timeout)

    def _held(self, hold: Hold, read_timeout: float | None) -> bool:
        """Wait for `hold`'s release; False when the client's read timeout came first."""
        limit = self._hold_wait(read_timeout)
        return self._answer_now(hold._released.wait(limit), limit)

    async def _held_async(self, hold: Hold, read_timeout: float | None) -> bool:
        """`_held` for event loops."""
        limit = self._hold_wait(read_timeout)
        return self._answer_now(await hold._released.wait_async(limit), limit)

    def _hold_wait(self, read_timeout: float | None) -> float:
        return self.hold_limit if read_timeout is None else min(self.hold_limit, read_timeout)

    def _answer_now(self, released: bool, limit: float) -> bool:
        """After a hold's wait: released, or past the hold's own limit (a finding), the reply
        goes out; stopped by the shorter client read timeout, it does not."""
        if released:
            return True
        if limit < self.hold_limit:
            return False
        self._hold_expired()
        return True

    @staticmethod
    def _left(read_timeout: float | None, started: float) -> float:
        if read_timeout is None:
            return float("inf")
        return max(0.0, read_timeout - (time.monotonic() - started))

    def finished(self) -> None:
        """The reply's last byte is going out now (see `Delivery`)."""
        if self.delivery is not None:
            self.delivery.finish(time.monotonic())

    def _hold_expired(self) -> None:
        """A hold nobody released: answer anyway so nothing hangs, and say so."""
        if self.hold is not None:
            self.hold.release()  # reported here, so not again as unreleased
        name = f" '{self.hold.label}'" if self.hold and self.hold.label else ""
        self.late_finding(
            "hold_expired", f"hold{name} was never released within {self.hold_limit:g}s"
        )

    def late_finding(self, kind: Any, message: str) -> None:
        """A finding about this request that arose after it was recorded. It goes to the
        provider, not into the exchange: a recorded exchange never changes, so the log file
        written at arrival and the export agree."""
        from .wirelog import Finding

        if self.report is not None:
            self.report(Finding(kind=kind, seq=self.seq, message=message))


def json_plan(status: int, body: Any) -> Plan:
    return Plan(status, [("content-type", "application/json")], [json_body(body)])
