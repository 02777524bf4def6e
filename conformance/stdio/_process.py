"""One adapter subprocess: pipes, reader threads, and the tail of its stderr.

Threads rather than asyncio pipes because the suite awaits from more than one event loop
(pytest-asyncio gives each test its own, and the model-based test drives the adapter
from a worker thread), while one process serves the whole session. Nothing here is
bound to a loop; the channel above hands replies to whichever loop is waiting.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

STDERR_TAIL_LINES = 60
_STOP = b""


class StderrTail:
    """The last lines the adapter wrote on stderr: evidence, never a verdict."""

    def __init__(self, lines: int = STDERR_TAIL_LINES, copy_to: Path | None = None) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=lines)
        self._lock = threading.Lock()
        self.written = 0  # lines ever added: a mark for "since this test began"
        self._copy = copy_to.open("a", encoding="utf-8") if copy_to else None

    def add(self, line: str) -> None:
        with self._lock:
            self._lines.append(line)
            self.written += 1
            if self._copy is not None:
                self._copy.write(line)
                self._copy.flush()

    def text(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def since(self, mark: int) -> str:
        """The kept lines added after `mark` (a value of `written`)."""
        with self._lock:
            fresh = min(self.written - mark, len(self._lines))
            return "".join(list(self._lines)[len(self._lines) - fresh :]) if fresh > 0 else ""

    def close(self) -> None:
        with self._lock:
            if self._copy is not None:
                self._copy.close()
                self._copy = None


class AdapterProcess:
    """Start the command; feed stdout lines to `on_line`, then call `on_eof` once."""

    def __init__(
        self,
        argv: list[str],
        *,
        on_line: Callable[[bytes], None],
        on_eof: Callable[[], None],
        stderr: StderrTail,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.argv = argv
        self.stderr = stderr
        self._on_line = on_line
        self._on_eof = on_eof
        self._writes: queue.Queue[bytes] = queue.Queue()
        self._popen = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            bufsize=0,
        )
        self._threads = [
            threading.Thread(target=self._read_stdout, name="turnlaw-adapter-out", daemon=True),
            threading.Thread(target=self._read_stderr, name="turnlaw-adapter-err", daemon=True),
            threading.Thread(target=self._write_stdin, name="turnlaw-adapter-in", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self._popen.pid

    def send(self, line: bytes) -> None:
        """Queue one line for stdin; never blocks the caller on a full pipe."""
        self._writes.put(line)

    def returncode(self) -> int | None:
        return self._popen.poll()

    def alive(self) -> bool:
        return self._popen.poll() is None

    def wait(self, timeout: float) -> int | None:
        try:
            return self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self._popen.poll() is None:
            self._popen.kill()
        self.wait(5)
        self._writes.put(_STOP)

    def drain_stderr(self, timeout: float = 1.0) -> None:
        """Wait (briefly) until stderr is read to its end, so a crash report has the
        adapter's last words; stderr ends when the process exits."""
        self._threads[1].join(timeout)

    def close_stdin(self) -> None:
        self._writes.put(_STOP)

    def _read_stdout(self) -> None:
        stdout = self._popen.stdout
        assert stdout is not None
        try:
            for line in stdout:
                if line.strip():
                    self._on_line(line)
        except (OSError, ValueError):
            pass
        finally:
            # EOF usually means exit: give the exit code a moment to be known
            self.wait(1.0)
            self._on_eof()

    def _read_stderr(self) -> None:
        stderr = self._popen.stderr
        assert stderr is not None
        try:
            for line in stderr:
                self.stderr.add(line.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass

    def _write_stdin(self) -> None:
        stdin = self._popen.stdin
        assert stdin is not None
        while True:
            line = self._writes.get()
            if line is _STOP or line == _STOP:
                break
            try:
                stdin.write(line)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break  # the reader sees EOF and reports the crash
        with contextlib.suppress(OSError):
            stdin.close()
