"""What the connector reads from an adapter's pipes: as fast as it comes, within limits,
and with strict types; what breaks a limit is a PROTOCOL error naming it, and the
process is stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.adapter import AgentSpec
from conformance.stdio import AdapterProtocolError, AdapterTimeout
from conformance.stdio._process import StderrTail

from .conftest import Start
from .processes import gone

SPEC = AgentSpec(base_url="http://127.0.0.1:9/v1", api_key="sk-not-used-0000")


async def test_a_reply_nested_200000_deep_is_a_protocol_error_and_the_process_is_stopped(
    start_faulty: Start,
) -> None:
    implementation = start_faulty("deep_reply")
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    with pytest.raises(AdapterProtocolError, match="nested deeper than") as refused:
        await agent.run("hi")
    assert "closed its stdout" not in str(refused.value)
    assert gone(adapter, within=0), "the adapter that wrote it is still running"
    assert await agent.checkpoint() == {"turns": 1}  # a fresh process answers


async def test_a_string_seq_is_a_protocol_error_naming_the_seq(start_faulty: Start) -> None:
    implementation = start_faulty("string_seq")
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"(?s)not a protocol v1 reply.*seq"):
        await agent.run("hi")


async def test_a_line_over_the_limit_is_a_protocol_error(
    start_faulty: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TURNLAW_LINE_MB", "8")
    implementation = start_faulty("oversize_line", max_line=1_000_000)
    agent = await implementation.create_agent(SPEC)
    adapter = implementation.pid
    assert adapter is not None
    with pytest.raises(AdapterProtocolError, match="longer than the limit of 1000000 bytes"):
        await agent.run("hi")
    assert gone(adapter, within=0)


async def test_a_long_line_under_the_limit_is_read_whole(
    start_faulty: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TURNLAW_LINE_MB", "8")
    implementation = start_faulty("oversize_line", reply_timeout=20)
    agent = await implementation.create_agent(SPEC)
    outcome = await agent.run("hi")
    assert outcome.answer is not None and len(outcome.answer) == 8_000_000


async def test_a_huge_stray_line_on_stdout_is_a_protocol_error_quoted_clipped(
    start_faulty: Start,
) -> None:
    implementation = start_faulty("huge_garbage", reply_timeout=20)
    agent = await implementation.create_agent(SPEC)
    with pytest.raises(AdapterProtocolError, match=r"not JSON.*INFO starting run") as refused:
        await agent.run("hi")
    assert len(str(refused.value)) < 5_000


async def test_an_honest_adapter_logging_100_mb_on_stderr_is_not_a_timeout(
    start_faulty: Start, tmp_path: Path
) -> None:
    copy = tmp_path / "stderr.log"
    implementation = start_faulty("stderr_flood", reply_timeout=20, stderr_log=copy)
    agent = await implementation.create_agent(SPEC)
    try:
        outcome = await agent.run("hi")
    except AdapterTimeout as error:  # pragma: no cover - the defect this test is about
        pytest.fail(f"reading stderr held the adapter up: {error}"[:500])
    assert outcome.answer == "ok"
    implementation.stop(timeout=5)
    assert copy.stat().st_size > 100_000_000  # the copy has all of it
    assert len(implementation.stderr.text()) < 100_000  # the tail is a tail


def test_the_stderr_tail_keeps_a_bounded_piece_of_an_endless_line() -> None:
    tail = StderrTail()
    for _ in range(50):
        tail.feed(b"y" * 1_000_000)
    tail.feed(b"\nlast words\n")
    text = tail.text()
    assert text.endswith("last words\n")
    assert len(text) < 20_000
    assert "bytes clipped" in text
