"""The session door of a `cmd:` adapter: its backends and sessions, each call a request.

The methods are derived from the session door's op tables (conformance.adapter.BACKEND
and SESSION). The connector chooses every handle: `backend.open` names the new backend,
and a backend's `create_session` / `resume_session` name the new session, so a request
never waits for an id the adapter made up. Each call is held to its deadline
(`session_call_deadline`: the start-up deadline for an op that starts or ends runtime
processes, `wait` on top of the reply timeout for `stream`).

A backend or session lives in the adapter process that opened it. When that process is
gone (a crash, a stop after a timeout, a restart), so is everything it held: a call on
it is a CRASH naming the handle, never a request the new process could not place, and
ending it (kill, close) is a no-op. So is ending it a second time: the adapter forgot
the handle at the first end, as it forgets a closed agent or a stopped host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..adapter import (
    BACKEND,
    SESSION,
    BackendSpec,
    BackendUnderTest,
    Op,
    SessionUnderTest,
    session_call_deadline,
)
from ..errors import AdapterCrashed
from ._channel import Channel
from .protocol import backend_request, session_request

if TYPE_CHECKING:
    from .connector import StdioImplementation


class _Held:
    """What a backend and a session share: the adapter process that holds them."""

    kind = ""

    def __init__(self, implementation: StdioImplementation, handle: str, channel: Channel) -> None:
        self._impl = implementation
        self.handle = handle
        self._channel = channel
        self.ended = False

    def _unneeded_end(self, op: Op, ends: bool) -> bool:
        """Is `op` an end (`ends`) of an instance already ended or gone? Marks it ended."""
        if not ends:
            return False
        unneeded = self.ended or self._gone()
        self.ended = True
        return unneeded

    def _gone(self) -> bool:
        """Is the adapter process that opened this instance no longer the one running?"""
        return self._channel is not self._impl.channel or not self._channel.healthy

    def _lost(self, op: Op) -> AdapterCrashed:
        return AdapterCrashed(
            f"{op.op} on {self.kind} {self.handle!r}: the adapter process that opened it is "
            "gone (it crashed or was stopped), and everything it held went with it",
            stderr_tail=self._impl.stderr.text(),
        )

    def _deadline(self, op: Op, params: dict[str, Any]) -> float:
        options = self._impl.options
        return session_call_deadline(op, params, options.reply_timeout, options.start_timeout)


class StdioSession(_Held):
    """conformance.adapter.SessionUnderTest, one request per call (see `open`)."""

    kind = "session"

    @classmethod
    def open(
        cls, implementation: StdioImplementation, handle: str, channel: Channel
    ) -> SessionUnderTest:
        """The session `handle`, typed as what it is: its methods come from the op table,
        which a test holds to the Protocol."""
        return cast(SessionUnderTest, cls(implementation, handle, channel))

    async def request(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        params = op.bind(args, kwargs)
        if self._unneeded_end(op, op is SESSION.close):
            return None
        if self._gone():
            raise self._lost(op)
        return await self._impl.call(
            lambda seq: session_request(op.op, seq=seq, session=self.handle, **params),
            timeout=self._deadline(op, params),
        )


SESSION.derive_methods(StdioSession, "request")


class StdioBackend(_Held):
    """conformance.adapter.BackendUnderTest, one request per call (see `open`)."""

    kind = "backend"

    @classmethod
    def open(
        cls, implementation: StdioImplementation, handle: str, channel: Channel
    ) -> BackendUnderTest:
        """The backend `handle`, typed as what it is (its methods come from the table)."""
        return cast(BackendUnderTest, cls(implementation, handle, channel))

    async def request(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        params = op.bind(args, kwargs)
        if self._unneeded_end(op, op is BACKEND.close or op is BACKEND.by_op["backend.kill"]):
            return None
        if self._gone():
            raise self._lost(op)
        if op.opens is None:
            return await self._impl.call(
                lambda seq: backend_request(op.op, seq=seq, backend=self.handle, **params),
                timeout=self._deadline(op, params),
            )
        session = self._impl.mint_handle("s")
        await self._impl.call(
            lambda seq: backend_request(
                op.op, seq=seq, backend=self.handle, session=session, **params
            ),
            timeout=self._deadline(op, params),
        )
        return StdioSession.open(self._impl, session, self._channel)


BACKEND.derive_methods(StdioBackend, "request")


async def open_stdio_backend(
    implementation: StdioImplementation, spec: BackendSpec
) -> BackendUnderTest:
    """`backend.open`, under the start-up deadline: a backend may start a runtime
    process of its own, which imports as much as the adapter did."""
    handle = implementation.mint_handle("b")
    params = {"spec": spec}
    await implementation.call(
        lambda seq: backend_request(BACKEND.create.op, seq=seq, backend=handle, **params),
        timeout=session_call_deadline(
            BACKEND.create,
            params,
            implementation.options.reply_timeout,
            implementation.options.start_timeout,
        ),
    )
    channel = implementation.channel
    if channel is None:  # it answered, so a process ran: only a stop since can unset it
        raise AdapterCrashed(f"backend.open {handle!r}: the adapter is gone")
    return StdioBackend.open(implementation, handle, channel)
