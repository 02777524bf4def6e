"""Every way an adapter process can misbehave, and what the connector makes of it."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from conformance.adapter import AgentSpec
from conformance.stdio import (
    AdapterCrashed,
    AdapterGaveUp,
    AdapterProtocolError,
    AdapterTimeout,
    StdioImplementation,
)
from conformance.stdio.connector import CommandSpecError, parse_command

from .conftest import Start, faulty_argv, ops
from .hang_deadline import deadline_for_the_hang
from .processes import gone

SPEC = AgentSpec(base_url="http://127.0.0.1:9/v1", api_key="sk-not-used-0000")


async def test_a_crash_is_a_crash_with_the_exit_status_and_stderr(start_faulty: Start) -> None:
    implementation = start_faulty("crash_on_run")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterCrashed) as crashed:
        await agent.run("hi")
    message = str(crashed.value)
    assert "exited with status 3" in message
    assert "unanswered: run (seq" in message
    assert "segfault in the runtime (simulated)" in crashed.value.stderr_tail
    assert "shard 99" in crashed.value.stderr_tail and "shard 0 " not in crashed.value.stderr_tail
    assert crashed.value.label == "CRASH"


async def test_restarts_replay_start_and_the_open_agents_then_stop_at_the_bound(
    start_faulty: Start, tmp_path: Path
) -> None:
    implementation = start_faulty("crash_on_run", max_restarts=2)
    first = await implementation.create_agent(SPEC)
    second = await implementation.create_agent(SPEC)
    await second.close()  # closed agents are not replayed
    for attempt in range(3):
        with pytest.raises(AdapterCrashed) as crashed:
            await first.run(f"try {attempt}")
        assert not isinstance(crashed.value, AdapterGaveUp)
    with pytest.raises(AdapterGaveUp, match="restarted 2 time"):
        await first.run("once more")
    assert implementation.restarts == 2
    assert ops(tmp_path) == [
        "start",
        "agent.create a1",
        "agent.create a2",
        "agent.close a2",
        "run a1",
        *["start", "agent.create a1", "run a1"] * 2,  # each restart: start, then a1 again
    ]


async def test_a_closed_agent_on_a_dead_adapter_needs_no_restart(start_faulty: Start) -> None:
    implementation = start_faulty("crash_on_run", max_restarts=0)
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterCrashed):
        await agent.run("hi")
    await agent.close()  # the process is gone; closing must not raise or restart
    assert implementation.restarts == 0


def test_an_adapter_that_dies_before_start_says_why() -> None:
    with pytest.raises(AdapterCrashed) as crashed:
        StdioImplementation(faulty_argv("crash_at_start"))
    assert "exited with status 2" in str(crashed.value)
    assert "cannot import my_runtime" in crashed.value.stderr_tail


def test_an_unknown_capability_in_the_start_reply_is_a_protocol_error() -> None:
    with pytest.raises(AdapterProtocolError, match=r"start .* wrong shape(.|\n)*teleport"):
        StdioImplementation(faulty_argv("bad_start"))


def test_a_command_that_does_not_exist_is_a_crash_at_start(tmp_path: Path) -> None:
    with pytest.raises(AdapterCrashed, match="cannot start the adapter"):
        StdioImplementation([str(tmp_path / "no-such-adapter")])


@pytest.mark.parametrize(
    ("spec", "why"), [("cmd:", "no command"), ("cmd:node 'unclosed", "cannot split")]
)
def test_a_bad_command_line_is_refused(spec: str, why: str) -> None:
    with pytest.raises(CommandSpecError, match=why):
        parse_command(spec)


def test_a_command_line_is_split_like_a_shell() -> None:
    assert parse_command("cmd:node 'my adapter.mjs' --x=1") == ["node", "my adapter.mjs", "--x=1"]


async def test_a_line_that_is_not_json_is_a_protocol_error(start_faulty: Start) -> None:
    implementation = start_faulty("garbage")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"not JSON.*INFO starting run"):
        await agent.run("hi")
    # The stream could not be trusted, so the process was stopped; the next call restarts.
    assert await agent.checkpoint() == {"turns": 1}
    assert implementation.restarts == 1


async def test_a_reply_with_a_seq_nobody_sent_is_a_protocol_error(start_faulty: Start) -> None:
    implementation = start_faulty("wrong_seq")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"replied with seq \d+, but no request"):
        await agent.run("hi")


async def test_a_status_outside_the_protocol_is_a_protocol_error(start_faulty: Start) -> None:
    implementation = start_faulty("bad_status")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match="not a protocol v1 reply"):
        await agent.run("hi")


async def test_a_result_of_the_wrong_shape_fails_that_request_only(start_faulty: Start) -> None:
    implementation = start_faulty("bad_shape")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"run .* wrong shape"):
        await agent.run("hi")
    assert await agent.checkpoint() == {"turns": 1}  # lenient: an unknown reply field
    assert implementation.restarts == 0


async def test_validate_protocol_refuses_unknown_reply_fields(start_faulty: Start) -> None:
    implementation = start_faulty("bad_shape", validate=True)
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"not a protocol v1 reply.*debug"):
        await agent.checkpoint()


async def test_no_reply_is_a_timeout_and_the_adapter_is_restarted(start_faulty: Start) -> None:
    implementation = start_faulty("silent")
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    with (
        deadline_for_the_hang(implementation, 0.5),
        pytest.raises(AdapterTimeout, match=r"Timeout >0.5s.*did not answer run"),
    ):
        await agent.run("hi")
    # the deadline that fired is the reply's (the message says so), and the adapter
    # that missed it was stopped before the TIMEOUT was raised
    assert gone(adapter, within=0), "the timed-out adapter is still running"
    assert await agent.checkpoint() == {"turns": 1}  # a fresh process answers
    assert implementation.restarts == 1


async def test_stderr_is_evidence_not_a_crash(start_faulty: Start) -> None:
    implementation = start_faulty("chatty_stderr")
    agent = await implementation.create_agent(SPEC)
    outcome = await agent.run("hi")
    assert outcome.answer == "ok"
    deadline = time.monotonic() + 30  # stderr is read on its own thread, maybe behind
    while "debug 199:" not in implementation.stderr.text() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert "debug 199: thinking about run" in implementation.stderr.text()
    assert implementation.restarts == 0


async def test_pipelined_requests_are_paired_by_seq_not_by_order(start_faulty: Start) -> None:
    implementation = start_faulty("reorder")
    agent = await implementation.create_agent(SPEC)
    first, second = await asyncio.gather(agent.run("first"), agent.run("second"))
    assert (first.answer, second.answer) == ("first", "second")


def test_stop_ends_the_process_cleanly(start_faulty: Start) -> None:
    implementation = start_faulty("chatty_stderr")
    assert implementation.stop(timeout=30) == 0  # it exits on `stop`: not killed at 30 s


def test_the_version_start_reports_is_the_implementations_for_the_results_header() -> None:
    """The results header reads `implementation.version`, as for an in-process adapter;
    a cmd: adapter's version comes from its `start` reply (it was null before)."""
    from conformance import __version__

    implementation = StdioImplementation([sys.executable, "-m", "reference_impl.adapter"])
    try:
        assert implementation.version == implementation.info.version == __version__
    finally:
        implementation.stop()


OWN_TO_EACH_SIDE = {"version", "revision"}
"""Declarations the start reply fills in for a cmd: adapter (the in-process reference
leaves them to their defaults); every other one is what a run reads of an
implementation besides its doors, and must be equal: the reference over stdio is then
judged as the reference (the CI sessions `conformance` and `beside-openai2` run every
law both ways, each green)."""


def test_the_reference_over_stdio_declares_what_it_declares_in_process() -> None:
    from conformance import __version__
    from conformance.adapter import declaration_of
    from reference_impl.adapter import implementation as in_process

    over_stdio = StdioImplementation([sys.executable, "-m", "reference_impl.adapter"])
    try:
        assert over_stdio.name == f"{in_process.name} {__version__} (python, stdio)"
        assert over_stdio.capabilities == in_process.capabilities
        assert declaration_of(over_stdio).model_dump(exclude=OWN_TO_EACH_SIDE) == declaration_of(
            in_process
        ).model_dump(exclude=OWN_TO_EACH_SIDE)
    finally:
        over_stdio.stop()
