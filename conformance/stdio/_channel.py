"""Pairing replies with requests by `seq`, for one adapter process.

Requests are written as soon as they are made; each waits on its own future, which the
stdout reader resolves when the reply with its seq arrives, in whatever order replies
come. A line that cannot be trusted (not JSON, not a reply, a seq nobody waits for)
poisons the whole stream: every waiting request fails with the protocol error and the
process is stopped, so the next request starts a fresh one.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, StrictBool, TypeAdapter, ValidationError

from ..adapter import JSON, IdentityReport, RunOutcome
from ._process import AdapterProcess, StderrTail
from .errors import AdapterCrashed, AdapterFailure, AdapterProtocolError
from .protocol import REPLIES, REQUESTS, RESULTS, OkReply, Reply, StartResult

_FIELDS = {
    "ok": ("seq", "status", "result"),
    "refused": ("seq", "status", "kind", "message"),
    "error": ("seq", "status", "message", "traceback"),
}
"""Without --validate-protocol, unknown reply fields are ignored; with it, refused."""

LENIENT_RESULTS: dict[str, TypeAdapter[Any]] = {
    "start": TypeAdapter(StartResult),
    "agent.create": TypeAdapter(Any),
    "run": TypeAdapter(RunOutcome),
    "follow_up": TypeAdapter(RunOutcome),
    "checkpoint": TypeAdapter(JSON),
    "resume": TypeAdapter(RunOutcome),
    "abandon_pause": TypeAdapter(dict[str, str] | None),
    "can_explain": TypeAdapter(StrictBool),  # "no" must not read as a yes or a no
    "last_identity": TypeAdapter(IdentityReport | None),
    "agent.close": TypeAdapter(Any),
    "stop": TypeAdapter(Any),
}


@dataclass(frozen=True)
class Delivered:
    """A reply, and for an ok reply its result validated for the request's op."""

    reply: Reply
    result: Any = None


class Channel:
    def __init__(
        self, argv: list[str], *, validate: bool, stderr: StderrTail, cwd: Any = None
    ) -> None:
        self.validate = validate
        self.stderr = stderr
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[str, Future[Delivered]]] = {}
        self._abandoned: set[int] = set()
        self.failure: AdapterFailure | None = None
        try:
            self.process = AdapterProcess(
                argv, on_line=self._line, on_eof=self._eof, stderr=stderr, cwd=cwd
            )
        except OSError as error:
            raise AdapterCrashed(f"cannot start the adapter {argv!r}: {error}") from error

    @property
    def healthy(self) -> bool:
        return self.failure is None and self.process.alive()

    def submit(self, request: BaseModel) -> Future[Delivered]:
        """Write the request now and return the future its reply will resolve."""
        seq: int = getattr(request, "seq")  # noqa: B009 - every request model has one
        op: str = getattr(request, "op")  # noqa: B009
        line = request.model_dump_json()
        if self.validate:
            try:
                REQUESTS.validate_json(line)
            except ValidationError as error:  # the suite's own bug, but say so clearly
                raise AdapterProtocolError(
                    f"the connector built an invalid {op}: {error}"
                ) from error
        future: Future[Delivered] = Future()
        with self._lock:
            if self.failure is not None:
                future.set_exception(self.failure)
                return future
            self._waiting[seq] = (op, future)
        self.process.send(line.encode("utf-8") + b"\n")
        return future

    def abandon(self, seq: int) -> None:
        """Stop waiting for `seq`; a late reply for it is then ignored, not an error."""
        with self._lock:
            self._waiting.pop(seq, None)
            self._abandoned.add(seq)

    def fail(self, failure: AdapterFailure, *, kill: bool = True) -> None:
        """Fail every waiting request with `failure` and (by default) stop the process."""
        with self._lock:
            if self.failure is None:
                self.failure = failure
            waiting = list(self._waiting.values())
            self._waiting.clear()
        for _, future in waiting:
            _settle(future, exception=failure)
        if kill:
            self.process.kill()

    def _line(self, raw: bytes) -> None:
        try:
            data = json.loads(raw)
        except ValueError:
            self._poison(f"the adapter wrote a line that is not JSON on stdout: {_clip(raw)}")
            return
        reply = self._reply(data, raw)
        if reply is None:
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
                    f"request's seq: {_clip(raw)}"
                )
            return
        op, future = entry
        if not isinstance(reply, OkReply):
            _settle(future, result=Delivered(reply))
            return
        results = RESULTS if self.validate else LENIENT_RESULTS
        try:
            result = results[op].validate_python(reply.result)
        except ValidationError as error:
            tail = self.stderr.text()
            _settle(
                future,
                exception=AdapterProtocolError(
                    f"the adapter's ok reply to {op} (seq {reply.seq}) has a result of the "
                    f"wrong shape: {error}",
                    stderr_tail=tail,
                ),
            )
            return
        _settle(future, result=Delivered(reply, result))

    def _reply(self, data: Any, raw: bytes) -> Reply | None:
        if self.validate:
            candidate = data
        elif isinstance(data, dict) and data.get("status") in _FIELDS:
            candidate = {k: v for k, v in data.items() if k in _FIELDS[data["status"]]}
        else:
            candidate = data
        try:
            return REPLIES.validate_python(candidate)
        except ValidationError as error:
            self._poison(
                f"the adapter wrote a line that is not a protocol v1 reply on stdout "
                f"({_clip(raw)}): {error}"
            )
            return None

    def _poison(self, message: str) -> None:
        self.fail(AdapterProtocolError(message, stderr_tail=self.stderr.text()))

    def _eof(self) -> None:
        self.process.drain_stderr()
        code = self.process.returncode()
        how = "closed its stdout" if code is None else f"exited with status {code}"
        with self._lock:
            waiting = [f"{op} (seq {seq})" for seq, (op, _) in sorted(self._waiting.items())]
        unanswered = f"; unanswered: {', '.join(waiting)}" if waiting else ""
        self.fail(
            AdapterCrashed(f"the adapter {how}{unanswered}", stderr_tail=self.stderr.text()),
            kill=False,
        )


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


def _clip(raw: bytes, limit: int = 300) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")
