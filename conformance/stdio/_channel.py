"""Pairing replies with requests by `seq`, for one adapter process.

Requests are written as soon as they are made; each waits on its own future, which the
stdout reader resolves when the reply with its seq arrives, in whatever order replies
come. A line that cannot be trusted (not JSON, not a reply, too long, a seq nobody
waits for) poisons the whole stream: every waiting request fails with the protocol
error and the process is stopped, so the next request starts a fresh one. Whatever a
line holds, it resolves something or is counted as a late reply: no reader thread is
ever lost to it, and no waiter is left waiting.
"""

from __future__ import annotations

import signal
import threading
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError
from pydantic_core import to_json

from ..adapter import Refused, RunFailed
from ..adapter._evolution import wire_data
from ..errors import AdapterCrashed, AdapterFailure, AdapterProtocolError, AdapterReportedError
from ._process import MAX_LINE, AdapterProcess
from ._reply_line import UnreadableReply, clip, read_reply, read_result, summary
from ._stderr import StderrTail
from .protocol import REQUESTS, FailedReply, OkReply, RefusedReply, Reply

_EXIT_AFTER_EOF = 1.0
"""Seconds to wait for an exit after stdout closed, to tell a crash (which reports its
exit status) from an adapter that closed stdout and runs on."""


class Process(Protocol):
    """What the channel needs of its process (an AdapterProcess, or a stand-in)."""

    @property
    def pid(self) -> int: ...
    def send(self, line: bytes) -> None: ...
    def alive(self) -> bool: ...
    def returncode(self) -> int | None: ...
    def wait(self, timeout: float) -> int | None: ...
    def kill(self) -> None: ...
    def drain_stderr(self, timeout: float = 1.0) -> None: ...
    def close_stdin(self) -> None: ...


@dataclass(frozen=True)
class Delivered:
    """A reply, and for an ok reply its result validated for the request's op."""

    reply: Reply
    result: Any = None


class Channel:
    """One process's requests and replies. Build it with `open_channel`."""

    def __init__(self, process: Process, *, validate: bool, stderr: StderrTail) -> None:
        self.process = process
        self.validate = validate
        self.stderr = stderr
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[str, Future[Delivered]]] = {}
        self._abandoned: set[int] = set()
        self.failure: AdapterFailure | None = None

    @property
    def healthy(self) -> bool:
        return self.failure is None and self.process.alive()

    def submit(self, request: BaseModel) -> Future[Delivered]:
        """Write the request now and return the future its reply will resolve."""
        seq: int = getattr(request, "seq")  # noqa: B009 - every request model has one
        op: str = getattr(request, "op")  # noqa: B009
        line = to_json(wire_data(request)).decode("utf-8")  # new fields at default left out
        if self.validate:
            try:
                REQUESTS.validate_json(line, strict=True)
            except ValidationError as error:  # the suite's own bug, but say so clearly
                raise AdapterProtocolError(
                    f"the connector built an invalid {op}: {summary(error)}"
                ) from error
        future: Future[Delivered] = Future()
        with self._lock:
            if self.failure is not None:
                future.set_exception(self.failure)
                return future
            self._waiting[seq] = (op, future)
        self.process.send(line.encode("utf-8") + b"\n")
        return future

    def waiting(self) -> list[str]:
        """The requests still waiting for a reply, as `op (seq N)`."""
        with self._lock:
            return [f"{op} (seq {seq})" for seq, (op, _) in sorted(self._waiting.items())]

    def abandon(self, seq: int) -> None:
        """Stop waiting for `seq`; a late reply for it is then ignored, not an error."""
        with self._lock:
            self._waiting.pop(seq, None)
            self._abandoned.add(seq)

    def fail(self, failure: AdapterFailure, *, kill: bool = True) -> None:
        """Stop the process (by default), then fail every waiting request with
        `failure`: a caller hears of the failure only once the adapter is stopped. The
        first failure is the one the channel keeps."""
        with self._lock:
            if self.failure is None:
                self.failure = failure
        if kill:
            self.process.kill()
        with self._lock:
            waiting = list(self._waiting.values())
            self._waiting.clear()
        for _, future in waiting:
            _settle(future, exception=failure)

    # --- StreamHandler: called from the process's threads ------------------------------

    def line(self, raw: bytes) -> None:
        """One stdout line. Never raises: a reader thread that died would leave every
        waiting request waiting."""
        if self.failure is not None:
            return  # a poisoned stream: nothing after the bad line is trusted
        try:
            self._deliver(raw)
        except Exception as error:  # a defect here must still end the waiting
            self._poison(
                f"the connector could not read a line from the adapter "
                f"({type(error).__name__}: {error}): {clip(raw)}"
            )

    def too_long(self, start: bytes, limit: int) -> None:
        self._poison(
            f"the adapter wrote a line longer than the limit of {limit} bytes on stdout "
            f"(raise --adapter-max-line if replies this large are meant): {clip(start)}"
        )

    def stdout_closed(self) -> None:
        if self.process.wait(_EXIT_AFTER_EOF) is not None:
            return  # an exit: `exited` reports it, with its status
        self.fail(
            AdapterCrashed(
                f"the adapter closed its stdout but kept running{self._unanswered()}; "
                "it was stopped",
                stderr_tail=self._tail(),
            )
        )

    def exited(self, code: int) -> None:
        self.fail(
            AdapterCrashed(
                f"the adapter {_how_it_ended(code)}{self._unanswered()}",
                stderr_tail=self.stderr.text(),
            ),
            kill=False,
        )

    # --- reading -----------------------------------------------------------------------

    def _deliver(self, raw: bytes) -> None:
        try:
            reply = read_reply(raw, validate=self.validate)
        except UnreadableReply as error:
            self._poison(str(error))
            return
        with self._lock:
            entry = self._waiting.pop(reply.seq, None)
            late = reply.seq in self._abandoned
            waiting = sorted(self._waiting)
        if entry is None:
            if not late:
                self._poison(
                    f"the adapter replied with seq {reply.seq}, but no request {reply.seq} is "
                    f"waiting (waiting: {waiting or 'none'}): replies must echo their "
                    f"request's seq: {clip(raw)}"
                )
            return
        op, future = entry
        if not isinstance(reply, OkReply):
            _settle(future, result=Delivered(reply))
            return
        try:
            result = read_result(op, reply.result, validate=self.validate)
        except ValidationError as error:
            _settle(
                future,
                exception=AdapterProtocolError(
                    f"the adapter's ok reply to {op} (seq {reply.seq}) has a result of the "
                    f"wrong shape: {summary(error)}",
                    stderr_tail=self.stderr.text(),
                ),
            )
            return
        _settle(future, result=Delivered(reply, result))

    def _poison(self, message: str) -> None:
        self.fail(AdapterProtocolError(message, stderr_tail=self.stderr.text()))

    def _unanswered(self) -> str:
        waiting = self.waiting()
        return f"; unanswered: {', '.join(waiting)}" if waiting else ""

    def _tail(self) -> str:
        self.process.drain_stderr(0.2)
        return self.stderr.text()


def open_channel(
    argv: list[str],
    *,
    validate: bool,
    stderr: StderrTail,
    cwd: Path | None = None,
    max_line: int = MAX_LINE,
) -> Channel:
    """Start the adapter and the channel to it (AdapterCrashed if it cannot be run)."""
    try:
        process = AdapterProcess(argv, stderr=stderr, cwd=cwd, max_line=max_line)
    except OSError as error:
        raise AdapterCrashed(f"cannot start the adapter {argv!r}: {error}") from error
    channel = Channel(process, validate=validate, stderr=stderr)
    process.start(channel)  # only now can its threads report to the channel
    return channel


def outcome_of(op: str, delivered: Delivered) -> Any:
    """An ok reply's result; a refusal or an error reply raised as what it says."""
    reply = delivered.reply
    if isinstance(reply, OkReply):
        return delivered.result
    if isinstance(reply, RefusedReply):
        raise Refused(reply.kind, reply.message)
    if isinstance(reply, FailedReply):
        raise RunFailed(reply.message, reply.checkpoint, cause=reply.cause)
    raise AdapterReportedError(op, reply.message, reply.traceback)


def _how_it_ended(code: int) -> str:
    if code >= 0:
        return f"exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"was killed by {name}"


def _settle(
    future: Future[Delivered],
    *,
    result: Delivered | None = None,
    exception: BaseException | None = None,
) -> None:
    """Resolve a future unless its waiter already gave up (timed out, cancelled)."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)  # type: ignore[arg-type]
    except InvalidStateError:
        pass
