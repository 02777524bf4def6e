"""The wire log written as it happens, one JSON line per exchange, so a kill loses nothing.

`serve --log FILE` used to write the log at exit, so a server killed after a slow SIGTERM
lost all of it. Now each exchange is one line of JSON Lines (an `ExchangeRecord`, the same
normalized form as `WireLog.export()`), appended in sequence order by a writer thread and
flushed to the OS before the reply to that request leaves: a killed server loses at most the
requests still in flight. The thread keeps serialization and disk writes off the event loop.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._signals import Signal

if TYPE_CHECKING:
    from .wirelog import Exchange


class LogFile:
    """Append exchanges to `path` from a background thread, in the order submitted."""

    def __init__(self, path: Path, render: Callable[[Exchange], Any]) -> None:
        self.path = path
        self.error: Exception | None = None
        self._render = render
        self._file = open(path, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        self._queue: queue.SimpleQueue[tuple[Exchange, Signal] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="turnlaw-log-file", daemon=True)
        self._thread.start()

    def submit(self, exchange: Exchange) -> Signal:
        """Queue one exchange (call in sequence order); the Signal is set once it is written."""
        written = Signal()
        self._queue.put((exchange, written))
        return written

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            exchange, written = item
            try:
                if self.error is None:
                    line = json.dumps(self._render(exchange), ensure_ascii=False)
                    self._file.write(line + "\n")
                    self._file.flush()
            except Exception as error:  # disk full, file gone: say so at exit, keep serving
                self.error = error
            finally:
                written.set()

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self._queue.put(None)
        self._thread.join()
        self._file.close()
