"""The stdio connector's reader against hostile reply lines, in-process.

Each generated line is handed to a Channel's line handler, as its stdout reader would,
while one request waits. Whatever the line, the waiting request must be resolved (a
result, or a typed error); a poisoned stream must stop its process (else: a leak); and
an accepted reply must be a strictly valid one (else: a false green). The same lines
through real pipes: tests/hostile/test_stdio_adapter_pipes.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.stdio import protocol as p
from conformance.stdio._channel import Channel, outcome_of
from conformance.stdio._stderr import STDERR_TAIL_LINES, StderrTail
from tests.hostile.budget import TALLY, fuzz_settings, judged
from tests.hostile.stdio_lines import OPS, TYPED, WAITING, lines, right_request, strictly_valid

TARGET = "stdio.reply-line"


class StandInProcess:
    """The channel's process, minus the process: it records what it is told."""

    pid = 0

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.killed = False

    def send(self, line: bytes) -> None:
        self.sent.append(line)

    def alive(self) -> bool:
        return not self.killed

    def returncode(self) -> int | None:
        return -9 if self.killed else None

    def wait(self, timeout: float) -> int | None:
        return self.returncode()

    def kill(self) -> None:
        self.killed = True

    def drain_stderr(self, timeout: float = 1.0) -> None:
        return None

    def close_stdin(self) -> None:
        return None


@fuzz_settings()
@given(
    answer=st.sampled_from(OPS).flatmap(lambda op: st.tuples(st.just(op), lines(op))),
    validate=st.booleans(),
)
def test_every_line_resolves_the_waiting_request(answer: tuple[str, bytes], validate: bool) -> None:
    op, line = answer
    process = StandInProcess()
    channel = Channel(process, validate=validate, stderr=StderrTail())
    future = channel.submit(p.REQUESTS.validate_python(right_request(op, WAITING)))
    try:
        channel.line(line)
    except Exception:
        TALLY.add(TARGET, "untyped")
        raise
    if not future.done():
        TALLY.add(TARGET, "hang")
        pytest.fail(f"{line[:200]!r} left {op} (seq {WAITING}) waiting")
    if channel.failure is not None and not process.killed:
        TALLY.add(TARGET, "leak")
        pytest.fail(f"{line[:200]!r} poisoned the stream, but the process was left running")
    accepted = False
    with judged(TARGET, typed=TYPED):
        outcome_of(op, future.result(timeout=0))
        accepted = True
    if accepted and not strictly_valid(line, op, validate):
        TALLY.add(TARGET, "false_green")
        pytest.fail(f"{line[:200]!r} was accepted as a reply to {op}, but is not a valid one")


@fuzz_settings()
@given(
    chunks=st.lists(st.binary(max_size=3000) | st.sampled_from([b"\n", b"\n" * 100]), max_size=30)
)
def test_the_stderr_tail_stays_bounded_and_counts_every_line(chunks: list[bytes]) -> None:
    tail = StderrTail()
    with judged("stdio.stderr-tail", typed=()):
        for chunk in chunks:
            tail.feed(chunk)
        tail.finish()
        stream = b"".join(chunks)
        assert tail.written == stream.count(b"\n") + (not stream.endswith(b"\n") and bool(stream))
        assert len(tail.text()) <= STDERR_TAIL_LINES * 4200
        last = stream.split(b"\n")[-2 if stream.endswith(b"\n") else -1]
        if stream and len(last) < 4000:
            assert tail.lines()[-1] == last.decode("utf-8", errors="replace") + "\n"
