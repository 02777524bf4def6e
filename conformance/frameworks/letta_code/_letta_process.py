"""One Letta Code CLI process in headless stream-json mode, and its pipes.

The CLI is the runtime (the SDK spawns one per session), so this is the connection too:
its stdout lines are read by a task of the event loop that started it, parsed into
`CliLine`s and handed out in order by `next_line()`; its stderr is kept as a bounded tail
for error messages. It runs in a process group of its own, so that SIGKILL reaches
everything it started (`kill`).

The pipes are the adapter's own (`os.pipe`, wrapped with asyncio's public pipe
transports) rather than `asyncio.subprocess.PIPE`, because breaking a connection the way
a dying client breaks it (`drop`) means closing the read end of stdout as well as
stdin, and asyncio's `Process` offers no public way to close its stdout pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections import deque
from collections.abc import Sequence

from ._letta_home import LettaHome
from ._letta_lines import ClientLine, CliLine, LettaLineError, parse_cli_line

LINE_LIMIT = 64 * 1024 * 1024
"""The longest stdout line read (a `list_messages` answer carries whole messages)."""

STDERR_TAIL = 8 * 1024
"""How much of the CLI's stderr is kept for error messages (the end of it)."""

TERM_GRACE = 5.0
"""Seconds a closed session's process gets to exit on SIGTERM before it is SIGKILLed."""


class TransportClosedError(Exception):
    """The connection to the CLI is closed (dropped, killed, closed, or the CLI exited):
    nothing can be written to it. The SDK's `write` raises "Transport not connected"."""


class StdoutClosed:
    """The end of stdout, in the line queue."""


CLOSED = StdoutClosed()


class LettaProcess:
    """A running CLI: write lines, read lines, break or end the connection."""

    def __init__(self, process: asyncio.subprocess.Process, home: LettaHome) -> None:
        self._process = process
        self.home = home
        self.pid = process.pid
        self._lines: asyncio.Queue[CliLine | LettaLineError | StdoutClosed] = asyncio.Queue()
        self._stderr: deque[bytes] = deque()
        self._stderr_size = 0
        self._stdin: asyncio.WriteTransport | None = None
        self._stdout: asyncio.ReadTransport | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._exited = asyncio.Event()
        self.connected = True

    @classmethod
    async def start(cls, home: LettaHome, args: Sequence[str]) -> LettaProcess:
        """`letta <args>` with HOME set to the store, in its own process group."""
        loop = asyncio.get_running_loop()
        home.workdir.mkdir(parents=True, exist_ok=True)
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        try:
            process = await asyncio.create_subprocess_exec(
                *home.install.command(*args),
                stdin=stdin_r,
                stdout=stdout_w,
                stderr=stderr_w,
                cwd=home.workdir,
                env=home.environment(),
                start_new_session=True,
            )
        except BaseException:
            for fd in (stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w):
                os.close(fd)
            raise
        for fd in (stdin_r, stdout_w, stderr_w):
            os.close(fd)
        self = cls(process, home)
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        self._stdout, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(stdout_r, "rb", buffering=0)
        )
        errors = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(errors), os.fdopen(stderr_r, "rb", buffering=0)
        )
        self._stdin, _ = await loop.connect_write_pipe(
            asyncio.BaseProtocol, os.fdopen(stdin_w, "wb", buffering=0)
        )
        self._tasks = [
            asyncio.create_task(self._read_stdout(reader)),
            asyncio.create_task(self._read_stderr(errors)),
            asyncio.create_task(self._watch_exit()),
        ]
        return self

    # -- reading ------------------------------------------------------------------------

    async def _read_stdout(self, reader: asyncio.StreamReader) -> None:
        try:
            while raw := await reader.readline():
                text = raw.decode("utf-8", "replace").strip()
                if not text:
                    continue
                try:
                    line = parse_cli_line(text)
                except LettaLineError as error:
                    self._lines.put_nowait(error)
                    continue
                if line is not None:
                    self._lines.put_nowait(line)
        except (ValueError, OSError, asyncio.LimitOverrunError) as error:
            self._keep_stderr(f"\n[turnlaw: stdout unreadable: {error!r}]".encode())
        finally:
            self.connected = False
            self._lines.put_nowait(CLOSED)

    async def _read_stderr(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := await reader.read(4096):
                self._keep_stderr(chunk)

    def _keep_stderr(self, chunk: bytes) -> None:
        self._stderr.append(chunk)
        self._stderr_size += len(chunk)
        while self._stderr_size - len(self._stderr[0]) > STDERR_TAIL:
            self._stderr_size -= len(self._stderr.popleft())

    async def _watch_exit(self) -> None:
        await self._process.wait()
        self._exited.set()

    async def next_line(self, timeout: float | None = None) -> CliLine | StdoutClosed:
        """The next stdout line (CLOSED once stdout ended, again on every later call);
        raises `LettaLineError` for a line it could not read, and TimeoutError."""
        item = await asyncio.wait_for(self._lines.get(), timeout)
        if isinstance(item, StdoutClosed):
            self._lines.put_nowait(item)
        if isinstance(item, LettaLineError):
            raise item
        return item

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")[-STDERR_TAIL:]

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    # -- writing and ending ---------------------------------------------------------------

    def write(self, line: ClientLine) -> None:
        """Queue one line for the CLI's stdin (the pipe transport buffers; never blocks)."""
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or not self.connected:
            raise TransportClosedError(
                f"Letta Code's connection is closed (pid {self.pid}, exit code {self.returncode})"
            )
        stdin.write(line.as_line().encode("utf-8"))

    async def drop(self) -> None:
        """Close the client's ends of both pipes, as a client that dies does; the CLI is
        not signalled and goes on (CLI 0.34.12 ends the turn it is in, then exits).

        Returns once both file descriptors are closed: asyncio closes a transport's pipe
        on the loop's next turn, and a CLI write that lands before that succeeds, so a
        test that released a held turn right after the drop raced its own loop (the CLI
        then stored the answer it otherwise dies before storing: an unexpected pass of
        connection.no-replay-reconcile in one CI run of many). Unsent input is discarded
        (`abort`), as a dead client's is."""
        self.connected = False
        pipes = []
        if self._stdin is not None:
            self._stdin.abort()
            pipes.append(self._stdin.get_extra_info("pipe"))
        if self._stdout is not None:
            self._stdout.close()  # a read pipe has nothing to flush: close is at once
            pipes.append(self._stdout.get_extra_info("pipe"))
        while not all(pipe is None or pipe.closed for pipe in pipes):
            await asyncio.sleep(0)

    async def kill(self) -> None:
        """SIGKILL the CLI's process group and reap it."""
        self.connected = False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        await self._reap()

    async def close(self) -> None:
        """What the SDK's `close()` does: end stdin and SIGTERM the CLI; then reap it
        (SIGKILL to the group if it is still there after `TERM_GRACE`)."""
        self.connected = False
        if self._stdin is not None:
            self._stdin.close()
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), TERM_GRACE)
        await self.kill()

    async def _reap(self) -> None:
        await self._exited.wait()
        for transport in (self._stdin, self._stdout):
            if transport is not None:
                transport.close()
        for task in self._tasks:
            if task is not asyncio.current_task():
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await asyncio.wait_for(asyncio.shield(task), 1.0)

    async def wait_exit(self, timeout: float | None = None) -> int | None:
        """Wait (at most `timeout`) for the CLI to exit on its own; its exit code."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._exited.wait(), timeout)
        return self._process.returncode


__all__ = ["CLOSED", "LettaProcess", "StdoutClosed", "TransportClosedError"]
