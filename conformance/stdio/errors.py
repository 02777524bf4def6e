"""What can go wrong across the process boundary, as typed exceptions.

Each names the adapter as the culprit and says what to look at. The runner reports them
as ERROR (a reply timeout as TIMEOUT) with a label first in the detail: `CRASH:`,
`PROTOCOL:` or `TIMEOUT:` (see `label`), so a report reader sees at once that the
adapter, not a law, is what failed.
"""

from __future__ import annotations


class AdapterFailure(Exception):
    """The adapter process, not the runtime's judgment, is what went wrong."""

    label = "ADAPTER"

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        text = message
        if stderr_tail:
            text += "\n--- adapter stderr (tail) ---\n" + stderr_tail.rstrip()
        super().__init__(text)
        self.stderr_tail = stderr_tail


class AdapterCrashed(AdapterFailure):
    """The adapter exited or closed its stdout (EOF) while requests were waiting, or
    before it could be started."""

    label = "CRASH"


class AdapterGaveUp(AdapterCrashed):
    """The adapter crashed more often than the restart bound allows; no more restarts."""


class AdapterStopped(AdapterCrashed):
    """The suite stopped the adapter (a request of it was cancelled, or outlived its
    test): what else was waiting fails with this. Like a timeout, and unlike a crash,
    the restart after it does not count against the restart bound."""


class AdapterTimeout(AdapterFailure, TimeoutError):
    """No reply within the call timeout; the adapter was stopped. The message starts
    `Timeout >` like pytest-timeout's, so the runner's classifier reports it as TIMEOUT."""

    label = "TIMEOUT"


class AdapterProtocolError(AdapterFailure):
    """A line on the adapter's stdout that is not a valid reply: not JSON, not the shape
    of protocol v1, a seq nobody is waiting for, or a result of the wrong shape."""

    label = "PROTOCOL"


class AdapterReportedError(Exception):
    """The adapter answered `error`: its runtime (or the adapter code) raised. Carries
    the adapter's own message and traceback."""

    def __init__(self, op: str, message: str, traceback: str) -> None:
        text = f"the adapter reported an error for {op}: {message}"
        if traceback:
            text += "\n--- adapter traceback ---\n" + traceback.rstrip()
        super().__init__(text)
        self.op = op
        self.message = message
        self.traceback = traceback


class CommandSpecError(ValueError):
    """`--impl cmd:...` that cannot be split into a command line."""
