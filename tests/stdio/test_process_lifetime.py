"""The adapter's processes live exactly as long as the suite needs them: an exit is seen
at once, whoever holds the pipes, and stopping kills the whole process group, so no
request outlives its deadline or its caller and no process outlives the run."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest

from conformance.adapter import AgentSpec
from conformance.runner.guard import GuardedImplementation
from conformance.stdio import (
    AdapterCrashed,
    AdapterProtocolError,
    AdapterReportedError,
    AdapterTimeout,
    ConnectorOptions,
    StdioImplementation,
)

from .conftest import Start, faulty_argv, helper_pids, ops
from .hang_deadline import deadline_for_the_hang
from .processes import children_running, gone, process_group_is_empty

SPEC = AgentSpec(base_url="http://127.0.0.1:9/v1", api_key="sk-not-used-0000")


def test_an_adapter_that_exits_at_once_is_a_crash_not_a_start_timeout() -> None:
    # `false` exits within a millisecond, before the connector has finished setting up
    # its reader threads: a race, so try it a number of times.
    false = shutil.which("false")
    assert false is not None
    for _ in range(20):
        with pytest.raises(AdapterCrashed, match="exited with status 1"):
            StdioImplementation([false], ConnectorOptions(start_timeout=10))
    with pytest.raises(AdapterCrashed, match="exited with status 4"):
        StdioImplementation(faulty_argv("instant_exit"), ConnectorOptions(start_timeout=10))


async def test_a_helper_holding_stdout_does_not_turn_a_crash_into_a_timeout(
    start_faulty: Start, tmp_path: Path
) -> None:
    implementation = start_faulty("fork_and_exit", reply_timeout=20)
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterCrashed, match="exited with status 5") as crashed:
        await agent.run("hi")
    assert "helper" in crashed.value.stderr_tail
    (helper,) = helper_pids(tmp_path)
    assert gone(helper), f"helper {helper} outlived its adapter"


async def test_no_process_of_the_adapter_outlives_stop(start_faulty: Start, tmp_path: Path) -> None:
    implementation = start_faulty("leaves_helper")
    agent = await implementation.create_agent(SPEC)
    assert (await agent.run("hi")).answer == "ok"
    group = implementation.pid
    assert group is not None
    (helper,) = helper_pids(tmp_path)
    assert implementation.stop(timeout=30) == 0  # it exits on `stop`: not killed at 30 s
    assert gone(helper), f"helper {helper} outlived the run"
    assert process_group_is_empty(group)


async def test_a_call_timeout_stops_the_adapter_also_behind_the_guard(start_faulty: Start) -> None:
    # The runner wraps every implementation in its guard. Its deadline must not race the
    # connector's: the one that fires first would cancel the other's clean-up, and the
    # adapter would carry on with the run and make its model call in the next test.
    implementation = start_faulty("late_reply")
    guarded = GuardedImplementation(implementation, timeout=0.5)
    agent = await guarded.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    with deadline_for_the_hang(implementation, 0.6), pytest.raises(TimeoutError, match="Timeout"):
        await agent.run("hi")
    assert gone(adapter, within=0), "the timed-out adapter is still running"
    assert implementation.in_flight() == []


async def test_a_timed_out_adapter_is_stopped_with_its_whole_group(
    start_faulty: Start, tmp_path: Path
) -> None:
    implementation = start_faulty("silent")
    agent = await implementation.create_agent(SPEC)
    group = implementation.pid
    assert group is not None
    with deadline_for_the_hang(implementation, 0.5), pytest.raises(AdapterTimeout, match="stopped"):
        await agent.run("hi")
    assert process_group_is_empty(group)
    assert await agent.checkpoint() == {"turns": 1}  # a fresh process answers


async def test_a_cancelled_call_leaves_no_live_request_in_the_adapter(
    start_faulty: Start, tmp_path: Path
) -> None:
    implementation = start_faulty("silent")
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    run = asyncio.create_task(agent.run("hi"))
    deadline = time.monotonic() + 30
    while "run a1" not in ops(tmp_path):  # the adapter has the run: now cancel it
        assert time.monotonic() < deadline, "the adapter never received the run"
        await asyncio.sleep(0.02)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    # The protocol has no way to withdraw a request: the adapter had to be stopped.
    assert gone(adapter, within=0), "the adapter still holds the cancelled run"
    assert implementation.in_flight() == []
    assert await agent.checkpoint() == {"turns": 1}
    assert implementation.restarts == 1


async def test_an_adapter_that_closes_stdout_but_runs_on_is_a_crash_and_is_stopped(
    start_faulty: Start,
) -> None:
    implementation = start_faulty("closes_stdout")
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    with pytest.raises(AdapterCrashed, match="closed its stdout") as crashed:
        await agent.run("hi")
    assert "stdout closed, still running" in crashed.value.stderr_tail
    assert gone(adapter), "the adapter that closed its stdout is still running"


async def test_an_adapter_that_stops_reading_stdin_times_out_and_is_stopped(
    start_faulty: Start,
) -> None:
    implementation = start_faulty("deaf")
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    # 4 MB does not fit in the pipe: the write blocks, for good
    with deadline_for_the_hang(implementation, 1), pytest.raises(AdapterTimeout):
        await agent.resume({"blob": "x" * 4_000_000}, "approved")
    assert gone(adapter)
    assert implementation.stop(timeout=2) is not None  # stop does not hang on that write


async def test_a_reply_written_on_stderr_is_a_timeout_that_says_where_it_went(
    start_faulty: Start,
) -> None:
    implementation = start_faulty("reply_on_stderr")
    agent = await implementation.create_agent(SPEC)
    # no reply ever comes on stdout; the deadline is seconds all the same, because the
    # hint needs the stderr line read (on the connector's own thread) before it fires
    with (
        deadline_for_the_hang(implementation, 5),
        pytest.raises(AdapterTimeout, match="a line on its stderr is that reply"),
    ):
        await agent.run("hi")


async def test_stops_for_timeouts_do_not_use_up_the_restarts_crashes_may_have(
    start_faulty: Start,
) -> None:
    # The bound is for an adapter that keeps crashing; a slow one is stopped by the
    # suite's own decision, and each of its laws is still judged (TIMEOUT) in turn.
    implementation = start_faulty("silent", max_restarts=1)
    agent = await implementation.create_agent(SPEC)
    for _ in range(3):
        with deadline_for_the_hang(implementation, 0.3), pytest.raises(AdapterTimeout):
            await agent.run("hi")
        # a fresh process answers (its start and replayed agent.create, outside the
        # block, have the generous deadline)
        assert await agent.checkpoint() == {"turns": 1}
    assert implementation.restarts == 3


@pytest.mark.parametrize("adapter", ["old_protocol", "bad_start"])
def test_an_adapter_that_cannot_start_is_stopped(adapter: str) -> None:
    # It answered start, wrongly, and would wait for more requests: nothing will come.
    with pytest.raises((AdapterReportedError, AdapterProtocolError)):
        StdioImplementation(faulty_argv(adapter), ConnectorOptions(start_timeout=10))
    left = [pid for pid in children_running(f"{adapter}.py") if not gone(pid)]
    assert left == [], f"{adapter} is still running after its start failed"
