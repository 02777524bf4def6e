"""Every way an adapter can fail the suite, as one tree.

The guard (conformance.runner.guard), the stdio connector (conformance.stdio) and any
later client of an adapter raise from here, so the runner has one place to look when it
decides what a failure means::

    AdapterFailure                 the adapter, not the runtime's judgment, went wrong
    ├── AdapterTimeout             TIMEOUT  no answer within the call's deadline
    ├── AdapterCrashed             ERROR    CRASH: the process exited, or never started
    │   ├── AdapterGaveUp          ERROR    CRASH: too many crashes, no more restarts
    │   └── AdapterStopped         ERROR    CRASH: the suite stopped it (a cancelled or
    │                                       stray request)
    ├── AdapterProtocolError       ERROR    PROTOCOL: a line that is not a v1 reply
    ├── AdapterContractError       ERROR    an in-process adapter returned the wrong type
    ├── AdapterReportedError       ERROR    the adapter answered `error` (its traceback)
    └── DeclaredButMissing         FAIL     a declared capability raised NotImplementedError
                                            (the FAIL of its door's law: runner/doors.py)

The outcome column is decided by the exception's other base, which is why each keeps
it: the runner's collector (conformance.runner.collect) reports a `TimeoutError` as
TIMEOUT and an `AssertionError` as FAIL — declaring a capability is a claim the law holds
the runtime to — and anything else as ERROR. `label`, where a class has one, leads the
detail of a test that failed because the adapter *process* did (see
conformance.stdio.plugin); the others carry their own evidence (the adapter's
traceback, the call and field at fault) and no label.
"""

from __future__ import annotations

from typing import ClassVar


class AdapterFailure(Exception):
    """The adapter, not the runtime's judgment, is what went wrong."""

    label: ClassVar[str | None] = None
    """The detail's first word when a process failed this way (None: no label)."""

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        text = message
        if stderr_tail:
            text += "\n--- adapter stderr (tail) ---\n" + stderr_tail.rstrip()
        super().__init__(text)
        self.stderr_tail = stderr_tail


class AdapterTimeout(AdapterFailure, TimeoutError):
    """No answer within the call's deadline. Raised by the guard for an in-process
    adapter, and by the connector for a `cmd:` one (which it then stops: its message
    starts `Timeout >` like pytest-timeout's)."""

    label = "TIMEOUT"


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


class AdapterProtocolError(AdapterFailure):
    """A line on the adapter's stdout that is not a valid reply: not JSON, not the shape
    of protocol v1, a seq nobody is waiting for, or a result of the wrong shape."""

    label = "PROTOCOL"


class AdapterContractError(AdapterFailure, TypeError):
    """An adapter returned something the protocol does not allow, at a named field."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem} (see conformance.adapter for the protocol)")
        self.where = where
        self.problem = problem


class AdapterReportedError(AdapterFailure):
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


class DeclaredButMissing(AdapterFailure, AssertionError):
    """A call the implementation's declared capabilities promise raised NotImplementedError."""


__all__ = [
    "AdapterContractError",
    "AdapterCrashed",
    "AdapterFailure",
    "AdapterGaveUp",
    "AdapterProtocolError",
    "AdapterReportedError",
    "AdapterStopped",
    "AdapterTimeout",
    "DeclaredButMissing",
]
