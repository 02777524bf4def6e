"""The tail of an adapter's stderr: evidence for a report, kept in bounded memory.

An adapter may log without limit (an honest runtime wrote 100 MB in one run), so stderr
is read in large chunks as fast as it comes and only the last lines are kept, each
clipped to `LINE_LIMIT` characters; `--adapter-stderr FILE` gets every byte.
"""

from __future__ import annotations

import collections
import threading
from pathlib import Path
from typing import BinaryIO

STDERR_TAIL_LINES = 60
LINE_LIMIT = 4096
"""Bytes of one stderr line kept in the tail; the rest is counted, not kept."""


class StderrTail:
    """The last lines the adapter wrote on stderr: evidence, never a verdict."""

    def __init__(self, lines: int = STDERR_TAIL_LINES, copy_to: Path | None = None) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=lines)
        self._lock = threading.Lock()
        self._partial = bytearray()  # the line being written, up to LINE_LIMIT bytes
        self._clipped = 0  # bytes of that line beyond LINE_LIMIT
        self.written = 0  # lines ever completed: a mark for "since this test began"
        self._copy: BinaryIO | None = copy_to.open("ab") if copy_to else None

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the stream, wherever lines begin or end in them."""
        if not chunk:
            return
        pieces = chunk.split(b"\n")
        with self._lock:
            if self._copy is not None:
                self._copy.write(chunk)
                self._copy.flush()
            self._extend(pieces[0])
            if len(pieces) == 1:
                return
            self._complete()
            complete = pieces[1:-1]
            skipped = max(len(complete) - (self._lines.maxlen or 0), 0)
            self.written += skipped  # lines that would fall out of the tail at once
            for line in complete[skipped:]:
                self._extend(line)
                self._complete()
            self._extend(pieces[-1])

    def finish(self) -> None:
        """The stream ended: keep its last line, even without a newline."""
        with self._lock:
            if self._partial or self._clipped:
                self._complete()

    def text(self) -> str:
        with self._lock:
            return "".join(self._lines)

    def lines(self) -> list[str]:
        with self._lock:
            return list(self._lines)

    def since(self, mark: int) -> str:
        """The kept lines completed after `mark` (a value of `written`)."""
        with self._lock:
            fresh = min(self.written - mark, len(self._lines))
            return "".join(list(self._lines)[len(self._lines) - fresh :]) if fresh > 0 else ""

    def close(self) -> None:
        with self._lock:
            if self._copy is not None:
                self._copy.close()
                self._copy = None

    def _extend(self, piece: bytes) -> None:
        room = LINE_LIMIT - len(self._partial)
        if len(piece) <= room:
            self._partial += piece
        else:
            self._partial += piece[: max(room, 0)]
            self._clipped += len(piece) - max(room, 0)

    def _complete(self) -> None:
        text = self._partial.decode("utf-8", errors="replace")
        if self._clipped:
            text += f" […{self._clipped} bytes clipped]"
        self._lines.append(text + "\n")
        self.written += 1
        self._partial = bytearray()
        self._clipped = 0
