"""The stateful laws' base: a Hypothesis state machine driving an async runtime.

A stateful law keeps the law as a model and compares every request the fake recorded
with it, over generated sequences of steps. Rules are synchronous and the runtime is
async, bound to the test's event loop: so the machine runs in a worker thread
(`explore`) and hands each step to that loop (`LawMachine.wait`), and it notes what the
law expects of every step (`LawMachine.say`), which Hypothesis prints with a failing
sequence, shrunk to the steps that show it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from hypothesis import note, settings
from hypothesis.control import currently_in_test_context
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from ..replay.hypothesis_examples import reproducing
from ..runner.fixtures import off_the_loop
from ..verdicts import LawViolation

T = TypeVar("T")


class LawMachine(RuleBasedStateMachine):
    """A state machine whose steps run on `loop`, each within `step_timeout` seconds
    (a hung runtime fails the step), and whose notes make its transcript."""

    def __init__(self, loop: asyncio.AbstractEventLoop, step_timeout: float) -> None:
        super().__init__()
        self.loop = loop
        self.step_timeout = step_timeout
        self.step = 0
        self.transcript: list[str] = []

    def wait(self, step: Awaitable[T]) -> T:
        """Run `step` on the test's loop and wait for it here, in the machine's thread."""
        future = asyncio.run_coroutine_threadsafe(_awaited(step), self.loop)
        try:
            return future.result(timeout=self.step_timeout)
        finally:
            future.cancel()

    def say(self, line: str) -> str:
        """Count a step and note what the law expects of it; return where it is
        ("step N"), for the step's violation to say."""
        self.step += 1
        where = f"step {self.step}"
        self.transcript.append(f"{where}: {line}")
        if currently_in_test_context():
            note(f"{where}: {line}")
        return where


async def _awaited(step: Awaitable[T]) -> T:
    return await step


async def explore(
    machine: type[RuleBasedStateMachine],
    *,
    steps: int,
    at_least: int = 0,
    violations: Sequence[LawViolation] = (),
) -> None:
    """Run `machine` as a test off the loop: the active profile's examples (at least
    `at_least`), sequences of up to `steps` steps, one failure reported shrunk. On
    `python -m conformance replay`, the stored shrunk example is played instead.

    A runtime whose state outlives an example (the very bug) makes examples depend on
    the ones before, so Hypothesis's replay of a failure may not fail again and it
    reports its own flakiness instead: the first of `violations` a step saw is then the
    evidence."""
    profile = settings.default
    examples = max(profile.max_examples if profile is not None else 8, at_least)
    chosen = settings(stateful_step_count=steps, max_examples=examples, report_multiple_bugs=False)
    try:
        await off_the_loop(run_state_machine_as_test, reproducing(machine), settings=chosen)
    except LawViolation:
        raise
    except Exception as error:
        if violations:
            raise violations[0] from error
        raise
