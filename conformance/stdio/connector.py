"""`--impl "cmd:<command line>"`: a runtime in any language, behind a stdio adapter.

`StdioImplementation` starts the adapter, asks it who it is (`start`), and then is an
ordinary `conformance.adapter.Implementation`: the laws cannot tell it from an in-process
one. One process serves the whole session. When it dies, the request that was waiting
fails as a CRASH with the tail of its stderr; the next request starts it again (after
at most `max_restarts` crashes or protocol errors), replaying `start` and the
`agent.create` of every agent still open, so later tests still have an adapter to talk
to. Backends and sessions (the session door, `_sessions.py`) are not replayed: they are
the runtime's processes and connections, and went with the adapter.

The connector owns each call's deadline (the runner's guard leaves it to it): a request
that misses it, or whose caller gave up on it, cannot be withdrawn from the adapter, so
the adapter is stopped, its whole process group, before the call returns. Nothing it
was doing can then reach a later test's fake provider.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..adapter import (
    DAMAGE_SESSION,
    AgentSpec,
    AgentUnderTest,
    BackendSpec,
    BackendUnderTest,
    Capability,
    Delivery,
    HostSpec,
    HostStarted,
    HostUnderTest,
    Refused,
)
from ..adapter._evolution import closed_fields, not_applicable_for
from ..errors import (
    AdapterCrashed,
    AdapterFailure,
    AdapterGaveUp,
    AdapterProtocolError,
    AdapterStopped,
    AdapterTimeout,
)
from ..wire.ir import Dialect
from ._agent import StdioAgent
from ._channel import Channel, open_channel, outcome_of
from ._host import StdioHost
from ._process import MAX_LINE
from ._reply_line import UnreadableReply, read_reply
from ._sessions import StdioBackend, StdioSession, open_stdio_backend
from ._stderr import StderrTail
from .protocol import (
    DamageSessionRequest,
    ImplementationInfo,
    StartRequest,
    StartResult,
    StopRequest,
    agent_request,
    host_request,
)

REPLY_TIMEOUT = 30.0
"""Seconds for one reply, before --timeout-multiplier. A run is a few model calls
against a local fake; a held run is released by the test within a second."""
START_TIMEOUT = 120.0
"""Seconds for the `start` reply. Starting a runtime may import large SDKs, and suites
starting at once on a shared machine wait for each other; it happens once a session, so
generosity costs nothing."""
MAX_RESTARTS = 2

Build = Callable[[int], Any]


@dataclass(frozen=True)
class ConnectorOptions:
    reply_timeout: float = REPLY_TIMEOUT
    start_timeout: float = START_TIMEOUT
    max_restarts: int = MAX_RESTARTS
    validate: bool = False
    cwd: Path | None = None
    stderr_log: Path | None = None
    max_line: int = MAX_LINE

    def scaled(self, multiplier: float) -> ConnectorOptions:
        return dataclasses.replace(
            self,
            reply_timeout=self.reply_timeout * multiplier,
            start_timeout=self.start_timeout * multiplier,
        )


class CommandSpecError(ValueError):
    """`--impl cmd:...` that cannot be split into a command line: the user's mistake,
    caught before any process starts (a UsageError in the runner)."""


def parse_command(spec: str) -> list[str]:
    """`cmd:node adapter.mjs --flag` -> argv (POSIX shell quoting)."""
    command = spec.removeprefix("cmd:")
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise CommandSpecError(
            f"--impl {spec!r}: cannot split the command line: {error}"
        ) from error
    if not argv:
        raise CommandSpecError(f"--impl {spec!r}: no command after 'cmd:'")
    return argv


class StdioImplementation:
    """An Implementation whose runtime lives in another process, spoken to over stdio."""

    owns_call_deadline = True
    """Read by the runner's guard (conformance.runner.guard.OwnsCallDeadline): only the
    connector can clean up after a missed deadline, so it alone keeps it."""

    def __init__(self, argv: list[str], options: ConnectorOptions | None = None) -> None:
        self.argv = argv
        self.options = options or ConnectorOptions()
        self.stderr = StderrTail(copy_to=self.options.stderr_log)
        self.restarts = 0  # every restart
        self.crashes = 0  # the restarts after a crash or protocol error: these are bounded
        self._lock = threading.Lock()
        self._seq = itertools.count(1)  # never reused, even across restarts
        self._handles = itertools.count(1)
        self._open: dict[str, AgentSpec] = {}
        self._hosts: dict[str, Channel] = {}  # each running host, by the process it is of
        self._channel: Channel | None = None
        started = self._launch()
        self.info: ImplementationInfo = started.implementation
        version = f" {self.info.version}" if self.info.version else ""
        self.name = f"{self.info.name}{version} ({self.info.language}, stdio)"
        self.version: str | None = self.info.version  # the results header's, as in-process
        self.capabilities: frozenset[Capability] = frozenset(started.capabilities)
        self.dialects: frozenset[Dialect] = frozenset(started.dialects)
        self.deliveries: frozenset[Delivery] = frozenset(started.deliveries)
        self.trace_tool: str | None = started.trace_tool
        self.trace_activation: str | None = started.trace_activation
        self.compaction_triggers: tuple[str, ...] = tuple(started.compaction_triggers)
        self.agent_id_pattern: str | None = started.agent_id_pattern
        self.notes: tuple[str, ...] = tuple(started.notes)
        self.revision: int = started.revision

    @property
    def pid(self) -> int | None:
        """The running adapter's pid, also the id of its process group (None if none)."""
        channel = self._channel
        return channel.process.pid if channel is not None else None

    @property
    def channel(self) -> Channel | None:
        """The channel to the adapter process started last (None before the first)."""
        return self._channel

    def mint_handle(self, prefix: str) -> str:
        """A new handle for an instance the suite opens: `prefix` and a number never used
        before in this session (`a1`, `h2`, `b3`, `s4`)."""
        return f"{prefix}{next(self._handles)}"

    # --- process lifetime ------------------------------------------------------------

    def _launch(self) -> StartResult:
        """Start a process and say `start`; replay the agents still open. Under _lock."""
        channel = open_channel(
            self.argv,
            validate=self.options.validate,
            stderr=self.stderr,
            cwd=self.options.cwd,
            max_line=self.options.max_line,
        )
        self._channel = channel
        try:
            started = self._wait(
                channel, StartRequest(seq=next(self._seq)), self.options.start_timeout
            )
            if not isinstance(started, StartResult):
                raise AdapterProtocolError(f"start answered {started!r}, not an implementation")
            for handle, spec in self._open.items():
                create = agent_request("agent.create", seq=next(self._seq), agent=handle, spec=spec)
                self._wait(channel, create, self.options.reply_timeout)
        except BaseException:
            channel.process.kill()  # it answered, wrongly: it must not wait on, or be used
            raise
        return started

    def _wait(self, channel: Channel, request: Any, timeout: float) -> Any:
        """Blocking request/reply, for start-up and restarts."""
        future = channel.submit(request)
        try:
            delivered = future.result(timeout)
        except TimeoutError:
            raise self._timed_out(channel, request, timeout, "") from None
        return outcome_of(request.op, delivered)

    def _timed_out(self, channel: Channel, request: Any, timeout: float, then: str) -> Exception:
        """Stop the adapter that missed a deadline; the failure to raise."""
        channel.abandon(request.seq)
        failure = AdapterTimeout(
            f"Timeout >{timeout:g}s: the adapter did not answer {request.op} "
            f"(seq {request.seq}){self._reply_on_stderr(request.seq)}{then}",
            stderr_tail=self.stderr.text(),
        )
        channel.fail(failure)
        return failure

    def _reply_on_stderr(self, seq: int) -> str:
        """A hint when the missing reply went to stderr (a logger pointed the wrong way)."""
        for line in reversed(self.stderr.lines()):
            if str(seq) not in line:
                continue
            try:
                reply = read_reply(line.encode("utf-8"), validate=False)
            except UnreadableReply:
                continue
            if reply.seq == seq:
                return "; a line on its stderr is that reply: replies belong on stdout"
        return ""

    def _healthy_channel(self) -> Channel:
        """The running process, or a restarted one; a CRASH when the bound is spent."""
        with self._lock:
            channel = self._channel
            if channel is not None and channel.healthy:
                return channel
            # A stop of the suite's own (a timeout, a cancelled or stray request) is no
            # crash: a slow adapter has each of its laws judged, as TIMEOUT, in turn.
            stopped = channel is not None and isinstance(
                channel.failure, AdapterTimeout | AdapterStopped
            )
            if not stopped and self.crashes >= self.options.max_restarts:
                raise AdapterGaveUp(
                    f"the adapter crashed and was restarted {self.crashes} time(s), the "
                    f"limit: no more restarts ({shlex.join(self.argv)})",
                    stderr_tail=self.stderr.text(),
                )
            self.crashes += not stopped
            self.restarts += 1
            if channel is not None:
                channel.process.kill()
            self._launch()
            assert self._channel is not None
            return self._channel

    async def call(self, build: Build, *, timeout: float | None = None) -> Any:
        """Send one request (built with its seq) and await its result, or raise what
        its reply or the process says: Refused, AdapterReportedError, AdapterFailure.
        `timeout`: this request's deadline (default: the reply timeout)."""
        channel = self._channel
        if channel is None or not channel.healthy:
            channel = await asyncio.to_thread(self._healthy_channel)
        request = build(next(self._seq))
        closed = closed_fields(request, self)
        if closed:  # a field this adapter was written before: never sent, the law N/A
            not_applicable_for(closed, "this cmd: adapter")
        future = channel.submit(request)
        timeout = self.options.reply_timeout if timeout is None else timeout
        try:
            delivered = await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except TimeoutError:
            then = "; it was stopped, the next request restarts it"
            raise self._timed_out(channel, request, timeout, then) from None
        except asyncio.CancelledError:
            # The caller gave up (a test's own deadline, a cancelled task). The adapter
            # is still carrying the request out, and only stopping it withdraws it.
            channel.abandon(request.seq)
            channel.fail(
                AdapterStopped(
                    f"the adapter was stopped: {request.op} (seq {request.seq}) was "
                    "cancelled while it waited, and a request can only be withdrawn by "
                    "stopping the adapter",
                    stderr_tail=self.stderr.text(),
                )
            )
            raise
        return outcome_of(request.op, delivered)

    def in_flight(self) -> list[str]:
        """The requests the running adapter has not answered yet, as `op (seq N)`."""
        channel = self._channel
        return channel.waiting() if channel is not None and channel.healthy else []

    def end_stray_requests(self, after: str) -> list[str]:
        """Stop the adapter if a request is still unanswered once `after` (a test) is
        over: nothing a test asked for may run on into the next. The strays, if any."""
        channel = self._channel
        strays = self.in_flight()
        if channel is not None and strays:
            channel.fail(
                AdapterStopped(
                    f"the adapter was stopped: {', '.join(strays)} still unanswered after "
                    f"{after} ended",
                    stderr_tail=self.stderr.text(),
                )
            )
        return strays

    def stop(self, timeout: float = 5.0) -> int | None:
        """Say `stop`, close stdin, and wait for the exit (kill after `timeout`)."""
        with self._lock:
            channel = self._channel
        if channel is None:
            return None
        if channel.healthy:
            with contextlib.suppress(AdapterFailure, Refused):  # a reported error is a failure too
                self._wait(channel, StopRequest(seq=next(self._seq)), timeout)
        channel.process.close_stdin()
        code = channel.process.wait(timeout)
        channel.process.kill()  # after it, or instead of it: its helpers go too
        if code is None:
            code = channel.process.returncode()
        channel.process.drain_stderr()
        self.stderr.close()
        return code

    # --- Implementation ----------------------------------------------------------------

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        handle = self.mint_handle("a")
        self._open[handle] = spec
        try:
            await self.call(
                lambda seq: agent_request("agent.create", seq=seq, agent=handle, spec=spec)
            )
        except BaseException:
            self._open.pop(handle, None)
            raise
        return StdioAgent.open(self, handle)

    async def close_agent(self, handle: str) -> None:
        if self._open.pop(handle, None) is None:
            return
        channel = self._channel
        if channel is None or not channel.healthy:
            return  # its process is gone, and the agent with it: nothing to close
        await self.call(lambda seq: agent_request("agent.close", seq=seq, agent=handle))

    # --- the hosting door --------------------------------------------------------------

    async def start_host(self, spec: HostSpec) -> HostUnderTest:
        """`host.start`, under the start-up deadline: a host is a process of its own,
        which may import as much as the adapter did."""
        handle = self.mint_handle("h")
        started = await self.call(
            lambda seq: host_request("host.start", seq=seq, host=handle, spec=spec),
            timeout=self.options.start_timeout,
        )
        if not isinstance(started, HostStarted):
            raise AdapterProtocolError(f"host.start answered {started!r}, not a base_url")
        channel = self._channel
        if channel is not None:
            self._hosts[handle] = channel
        return StdioHost.open(self, handle, started.base_url, started.wire_profile)

    async def end_host(self, op: str, handle: str) -> None:
        """`host.kill` or `host.stop` for a running host. A host whose adapter process
        is gone (a crash, a restart) went with it: nothing to end."""
        channel = self._hosts.pop(handle, None)
        if channel is None or channel is not self._channel or not channel.healthy:
            return
        await self.call(
            lambda seq: host_request(op, seq=seq, host=handle),
            timeout=self.options.start_timeout,
        )

    async def damage_session(self, store: str, session_id: str) -> None:
        await self.call(
            lambda seq: DamageSessionRequest.model_validate(
                {"op": DAMAGE_SESSION.op, "seq": seq, "store": store, "session_id": session_id}
            )
        )

    # --- the session door ---------------------------------------------------------------

    async def open_backend(self, spec: BackendSpec) -> BackendUnderTest:
        """`backend.open`; the backend's calls and its sessions' are `_sessions.py`'s."""
        return await open_stdio_backend(self, spec)


def start_command(spec: str, options: ConnectorOptions | None = None) -> StdioImplementation:
    """`cmd:...` -> a started implementation (raises AdapterFailure when it cannot)."""
    return StdioImplementation(parse_command(spec), options)


__all__ = [
    "MAX_LINE",
    "AdapterCrashed",
    "CommandSpecError",
    "ConnectorOptions",
    "StdioAgent",
    "StdioBackend",
    "StdioImplementation",
    "StdioSession",
    "parse_command",
    "start_command",
]
