"""End to end through the door: the fixture starts the reference host (a real process),
a send is answered and reaches the fake, a kill then a restart on the same store keeps the
session, and the host's stream is read by the suite's SSE caller; in-process and through
`cmd:python -m reference_impl.adapter`."""

from __future__ import annotations

import sys

import pytest

from tests.suite_args import PLUGIN_ARGS, nested_suite

END_TO_END = """
from conformance.laws._kit import BOOK, THREE, text


async def test_a_served_session_survives_a_kill(new_host, fake):
    fake.script([text("Booked for two on Friday."), text("Made it three."), text("Streamed.")])
    host = await new_host()
    caller = host.caller()
    first = await caller.send(BOOK, session_id="s1")
    assert (first.status, first.output) == (200, "Booked for two on Friday."), first
    assert fake.wire.requests[-1].user_texts() == [BOOK]
    await host.kill()
    again = await new_host(store=host.store)
    second = await again.caller().send(THREE, session_id="s1")
    assert (second.status, second.output) == (200, "Made it three."), second
    assert fake.wire.requests[-1].user_texts() == [BOOK, THREE]
    read = await again.caller().read_session("s1")
    assert read.status == 200 and read.checkpoint is not None
    streamed = await again.caller().send(BOOK, session_id="s2", stream=True)
    assert streamed.output == "Streamed." and streamed.events[-1][0] == "complete", streamed
    assert [name for name, _ in streamed.events[:-1]] == ["chunk"] * (len(streamed.events) - 1)
"""


@pytest.mark.parametrize(
    "impl",
    [
        "reference_impl.adapter:implementation",
        f"cmd:{sys.executable} -m reference_impl.adapter",
    ],
    ids=["in-process", "stdio"],
)
def test_the_reference_host_through_the_fixture(pytester: pytest.Pytester, impl: str) -> None:
    suite = nested_suite(pytester, test_end_to_end=END_TO_END)
    run = suite.runpytest(
        *PLUGIN_ARGS, "--impl", impl, "--dialects", "openai-chat", "--deliveries", "stream"
    )
    run.assert_outcomes(passed=1)
