"""The stdio connector against hostile reply lines through real pipes: a real adapter
process (tests/stdio/faulty/parrot.py) writes each generated line on its stdout as its
reply to a run, and the connector must answer the run with a result or a typed error,
never a TIMEOUT (a `hang`); afterwards no process it started may still run (a `leak`).

Scaled down (each poisoned stream costs a restart of the adapter): a quarter of the
budget, 2,500 inputs in the `thorough` profile; the bulk of the line shapes is fuzzed
in-process in test_stdio_reply_lines.py. A small --adapter-max-line (4 KiB) makes the
line limit part of the attack.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator

import pytest
from hypothesis import assume, given

from conformance.adapter import AgentUnderTest
from conformance.stdio import AdapterCrashed, AdapterTimeout, ConnectorOptions, StdioImplementation
from tests.hostile.budget import TALLY, fuzz_settings, judged
from tests.hostile.stdio_lines import SPEC, TYPED, WAITING, lines, strictly_valid
from tests.stdio.conftest import faulty_argv
from tests.stdio.processes import gone

TARGET = "stdio.adapter-pipes"


class Parrot:
    """One connector for the whole test, its agent, its loop, and every pid it ran."""

    def __init__(self) -> None:
        options = ConnectorOptions(
            reply_timeout=20, start_timeout=60, max_restarts=10**6, max_line=4096
        )
        self.implementation = StdioImplementation(faulty_argv("parrot"), options)
        self.loop = asyncio.new_event_loop()
        self.pids: set[int] = set()
        self.agent: AgentUnderTest = self.loop.run_until_complete(
            self.implementation.create_agent(SPEC)
        )

    def say(self, line: bytes) -> None:
        pid = self.implementation.pid
        if pid is not None:
            self.pids.add(pid)
        message = base64.b64encode(line).decode()
        self.loop.run_until_complete(self.agent.run(message))

    def close(self) -> None:
        self.implementation.stop(timeout=5)
        self.loop.close()


@pytest.fixture(scope="module")
def parrot() -> Iterator[Parrot]:
    speaking = Parrot()
    yield speaking
    speaking.close()
    left = [pid for pid in speaking.pids if not gone(pid)]
    if left:
        TALLY.add(TARGET, "leak", len(left))
        pytest.fail(f"adapter processes outlived the connector: {left}")


@fuzz_settings(scale=0.25)
@given(line=lines("run"))
def test_every_line_through_real_pipes_is_answered(parrot: Parrot, line: bytes) -> None:
    # The reader skips blank lines: a line of nothing but those is no reply at all.
    assume(any(part and not part.isspace() for part in line.split(b"\n")))
    seq_placeholder = line.replace(b'"seq": %d' % WAITING, b'"seq": {SEQ}')
    accepted = False
    with judged(TARGET, typed=(*TYPED, AdapterCrashed)):
        try:
            parrot.say(seq_placeholder)
        except AdapterTimeout as error:  # a line was written, and nothing came of it
            TALLY.add(TARGET, "hang")
            pytest.fail(f"{line[:200]!r} left the run waiting: {error}"[:600])  # not counted twice
        accepted = True
    if accepted and b"\n" not in line and not strictly_valid(line, "run", validate=False):
        TALLY.add(TARGET, "false_green")
        pytest.fail(f"{line[:200]!r} was accepted as a reply to run, but is not a valid one")
