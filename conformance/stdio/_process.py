"""One adapter subprocess: its process group, pipes, reader threads and exit watcher.

Threads rather than asyncio pipes because the suite awaits from more than one event loop
(pytest-asyncio gives each test its own, and the model-based test drives the adapter
from a worker thread), while one process serves the whole session. Nothing here is
bound to a loop; the channel above hands replies to whichever loop is waiting.

The adapter starts in a session (and process group) of its own, so stopping it stops
every process it started: a helper that inherited its stdout cannot outlive it, hold
the pipe open, or make a late model call in a later test. Its exit is watched on its
own, not inferred from EOF, which such a helper would delay forever. (A helper that
leaves the group itself, with setsid, is beyond reach short of a cgroup.)
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ._stderr import StderrTail

MAX_LINE = 64 * 1024 * 1024
"""Default bytes of one stdout line (a reply): generous, since a checkpoint can be large;
`--adapter-max-line` changes it. Reading never holds more than this of one line."""
_CHUNK = 1 << 16
_STOP = b""
_READERS_DONE = 5.0
"""Seconds the exit watcher waits for stdout to be read to its end after an exit, so
replies written just before it are delivered, not reported unanswered."""


class StreamHandler(Protocol):
    """What the process reports, from its own threads. None of these may block long."""

    def line(self, raw: bytes) -> None:
        """One complete stdout line (newline included, if it had one)."""

    def too_long(self, start: bytes, limit: int) -> None:
        """A stdout line over `limit` bytes; `start` is its beginning. The rest of it is
        read and dropped."""

    def stdout_closed(self) -> None:
        """EOF on stdout (the process may still be running)."""

    def exited(self, code: int) -> None:
        """The process exited with `code`; its group was stopped and its pipes drained."""


class AdapterProcess:
    """Start the command; report its stdout lines and its end to a `StreamHandler`.

    Construction only starts the process; `start(handler)` starts the threads, so no
    report can reach a handler that is not fully built yet."""

    def __init__(
        self,
        argv: list[str],
        *,
        stderr: StderrTail,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        max_line: int = MAX_LINE,
    ) -> None:
        self.argv = argv
        self.stderr = stderr
        self.max_line = max_line
        self._writes: queue.Queue[bytes] = queue.Queue()
        self._exited = threading.Event()
        self._code: int | None = None
        self._popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        self._threads: dict[str, threading.Thread] = {}

    def start(self, handler: StreamHandler) -> None:
        targets: dict[str, Callable[[], None]] = {
            "out": lambda: self._read_stdout(handler),
            "err": self._read_stderr,
            "in": self._write_stdin,
            "exit": lambda: self._watch_exit(handler),
        }
        for name, target in targets.items():
            thread = threading.Thread(target=target, name=f"turnlaw-adapter-{name}", daemon=True)
            self._threads[name] = thread
            thread.start()

    @property
    def pid(self) -> int:
        """The adapter's pid, which is also its process group's id."""
        return self._popen.pid

    def send(self, line: bytes) -> None:
        """Queue one line for stdin; never blocks the caller on a full pipe."""
        self._writes.put(line)

    def returncode(self) -> int | None:
        return self._code

    def alive(self) -> bool:
        return not self._exited.is_set()

    def wait(self, timeout: float) -> int | None:
        """The exit status, waiting up to `timeout` seconds for it; None if still running."""
        self._exited.wait(timeout)
        return self._code

    def kill(self) -> None:
        """Stop the process and everything in its group (SIGKILL), and wait for its exit."""
        self._kill_group()
        if not self._exited.is_set():
            with contextlib.suppress(OSError):
                self._popen.kill()  # in case it left its own group
        self._exited.wait(5)
        self._writes.put(_STOP)

    def drain_stderr(self, timeout: float = 1.0) -> None:
        """Wait (briefly) until stderr is read to its end, so a crash report has the
        adapter's last words."""
        thread = self._threads.get("err")
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def close_stdin(self) -> None:
        self._writes.put(_STOP)

    def _kill_group(self) -> None:
        # The group outlives its leader while any member lives, and its id cannot be
        # reused by another process meanwhile, so this is safe after the leader exited.
        with contextlib.suppress(OSError):
            os.killpg(self._popen.pid, signal.SIGKILL)

    def _watch_exit(self, handler: StreamHandler) -> None:
        code = self._popen.wait()
        self._code = code
        self._exited.set()
        self._kill_group()  # its helpers go with it, and release the pipes they hold
        reader = self._threads.get("out")
        if reader is not None:
            reader.join(_READERS_DONE)
        self.drain_stderr()
        handler.exited(code)

    def _read_stdout(self, handler: StreamHandler) -> None:
        stdout = self._popen.stdout
        assert stdout is not None
        limit = self.max_line
        try:
            while True:
                line = stdout.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(b"\n"):
                    handler.too_long(line[:300], limit)
                    while line and not line.endswith(b"\n"):  # drop the rest of it
                        line = stdout.readline(_CHUNK)
                    continue
                if not line.isspace():
                    handler.line(line)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                stdout.close()
            handler.stdout_closed()

    def _read_stderr(self) -> None:
        stderr = self._popen.stderr
        assert isinstance(stderr, io.BufferedReader)  # bufsize=-1: read1 takes what is there
        try:
            while chunk := stderr.read1(_CHUNK):
                self.stderr.feed(chunk)
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                stderr.close()
            self.stderr.finish()

    def _write_stdin(self) -> None:
        stdin = self._popen.stdin
        assert stdin is not None
        while True:
            line = self._writes.get()
            if line == _STOP:
                break
            try:
                stdin.write(line)
                stdin.flush()
            except (OSError, ValueError):
                break  # it is gone or not reading: the exit watcher reports that
        with contextlib.suppress(OSError):
            stdin.close()
