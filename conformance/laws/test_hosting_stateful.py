"""Sessions as a state machine: any interleaving of turns over several sessions on one
host shows each request exactly its own session's conversation.

The machine keeps, per session, the turns completed so far, and compares every request
with that model; Hypothesis shrinks a bleed, a lost turn or a reordering to its steps.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
)

from ._kit import (
    HostFactory,
    LawMachine,
    LawViolation,
    RunningHost,
    ScriptedProvider,
    describe,
    explore,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

LAW = "hosting.session-continues"
MESSAGES = st.sampled_from(("Book a table.", "Make it three.", "And the other order?"))
"""Few and repeated on purpose: a host that tells turns apart by their text is caught too.
Every answer is distinct, so a turn that bled into another session names where it came
from."""
STEP_TIMEOUT = 30.0
"""Seconds one request may take before the step fails (a hung host)."""

Turns = tuple[tuple[str, str], ...]
_MACHINES = itertools.count(1)


def sessions(
    fake: ScriptedProvider,
    host: RunningHost,
    loop: asyncio.AbstractEventLoop,
    violations: list[LawViolation],
) -> type[RuleBasedStateMachine]:
    """The machine, closed over this test's fake, its one host, and its loop; every
    violation a step saw is also kept in `violations`."""

    def violated(message: str) -> LawViolation:
        violations.append(LawViolation(LAW, message))
        return violations[-1]

    class Sessions(LawMachine):
        def __init__(self) -> None:
            super().__init__(loop, STEP_TIMEOUT)
            self.name = f"machine-{next(_MACHINES)}"
            self.caller = host.caller()
            self.held: list[Turns] = []  # per session: the completed turns, the law's model
            self.answers = 0

        @initialize(count=st.integers(min_value=2, max_value=4))
        def open_sessions(self, count: int) -> None:
            self.held = [() for _ in range(count)]
            self.say(f"{count} fresh sessions on the one host")

        def session_id(self, index: int) -> str:
            return f"{self.name}-session-{index}"

        @precondition(lambda self: bool(self.held))
        @rule(data=st.data(), msg=MESSAGES, stream=st.booleans())
        def turn(self, data: st.DataObject, msg: str, stream: bool) -> None:
            index = data.draw(st.integers(min_value=0, max_value=len(self.held) - 1), "session")
            self.answers += 1
            answer = f"{self.name} answer {self.answers}."
            shown = (*self.held[index], ("user", msg))
            reply_kind = "streamed" if stream else "JSON"
            where = self.say(
                f"{msg!r} to session {index} ({reply_kind}): one request showing {list(shown)}"
            )
            # One scripted answer per turn, in its own script that steps aside once used.
            script = fake.script(
                [text(answer)], when=lambda _request: not script.exhausted, allow_unused=True
            )
            before = len(fake.wire.requests)
            reply = self.wait(
                self.caller.send(msg, session_id=self.session_id(index), stream=stream)
            )
            requests = fake.wire.requests
            if len(requests) != before + 1:
                raise violated(
                    f"{where}: a turn without tools made {len(requests) - before} model "
                    f"requests, not one (the reply was {describe(reply)})",
                )
            if requests[-1].turns() != list(shown):
                raise violated(
                    f"{where}: session {index} was shown {requests[-1].turns()}, not exactly "
                    f"its own conversation {list(shown)} (another session's turns, a lost "
                    "turn, or turns out of order)",
                )
            if not reply.answered or reply.output != answer:
                raise violated(f"{where}: {describe(reply)}, not answered {answer!r}")
            self.held[index] = (*shown, ("assistant", answer))

    return Sessions


# Shrinking a failure replays many examples on the one host: more than the default time.
@pytest.mark.law("hosting.session-continues")
@pytest.mark.timeout(180)
async def test_any_interleaving_of_sessions_shows_each_request_only_its_own_conversation(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    host = await new_host()
    violations: list[LawViolation] = []
    machine = sessions(fake, host, asyncio.get_running_loop(), violations)
    # Each interleaving is short: a bleed or a lost turn shows within a few turns over two
    # sessions, and shrinking needs few steps.
    await explore(machine, steps=6, violations=violations)
