"""`--impl cmd:...` in the runner: a faulty adapter's failures are ERROR / TIMEOUT with a
label first in the results detail, and an adapter that cannot start is a usage error."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
from conformance.stdio.plugin import byte_size
from conformance.verdicts import Outcome, read_results
from tests.suite_args import PLUGIN_ARGS

from .conftest import faulty_argv

SMOKE = [*PLUGIN_ARGS, "--pyargs", "conformance.laws.test_smoke"]


def run_smoke(pytester: pytest.Pytester, adapter: str, *extra: str) -> tuple[int, list, str]:
    results = pytester.path / "results.jsonl"
    impl = "cmd:" + shlex.join(faulty_argv(adapter))
    run = pytester.runpytest(
        *SMOKE, "--impl", impl, "--results", str(results), "--repro-dir", "repro", *extra
    )
    records = read_results(results).records if results.exists() else []
    return run.ret, records, "\n".join(run.outlines + run.errlines)


SCALED = ("--timeout-multiplier", "0.2")
"""The silent adapter's run never answers: 30 s per reply scaled to 6 s finds that sooner,
and every call that does answer (its start, 24 s; creating its agent, 6 s) still has
seconds, however busy the machine."""


@pytest.mark.parametrize(
    ("adapter", "outcome", "label", "evidence", "options"),
    [
        ("crash_on_run", Outcome.ERROR, "CRASH: AdapterCrashed", "segfault in the runtime", ()),
        ("wrong_seq", Outcome.ERROR, "PROTOCOL: AdapterProtocolError", "no request", ()),
        ("garbage", Outcome.ERROR, "PROTOCOL: AdapterProtocolError", "INFO starting run", ()),
        # a TIMEOUT's detail is the short form (its E lines), which names the exception
        # and the deadline it missed: the connector's, scaled by the multiplier
        ("silent", Outcome.TIMEOUT, "E  ", "AdapterTimeout: Timeout >6s", SCALED),
    ],
)
def test_an_adapter_failure_is_labelled_in_the_results(
    pytester: pytest.Pytester,
    adapter: str,
    outcome: Outcome,
    label: str,
    evidence: str,
    options: tuple[str, ...],
) -> None:
    code, records, output = run_smoke(pytester, adapter, *options)
    assert code != 0, output
    (record,) = records
    assert record.law == "smoke.one-turn"
    assert record.outcome is outcome, record.detail
    assert record.detail.startswith(label), record.detail[:300]
    assert evidence in record.detail
    assert len(record.detail) <= 4000  # the label survives the results file's clipping
    assert "adapter broken" in output


def test_validate_protocol_refuses_a_reply_field_outside_the_protocol(
    pytester: pytest.Pytester,
) -> None:
    # bad_shape's run result is wrong either way; the extra field only under validation
    _code, records, _ = run_smoke(pytester, "bad_shape", "--validate-protocol")
    (record,) = records
    assert record.detail.startswith("PROTOCOL: AdapterProtocolError")
    assert "wrong shape" in record.detail


@pytest.mark.parametrize(
    ("adapter", "why"),
    [
        ("crash_at_start", "cannot import my_runtime"),
        ("old_protocol", "this adapter speaks protocol 0, not 1"),
    ],
)
def test_an_adapter_that_cannot_start_is_a_usage_error(
    pytester: pytest.Pytester, adapter: str, why: str
) -> None:
    code, records, output = run_smoke(pytester, adapter)
    assert code == pytest.ExitCode.USAGE_ERROR
    assert "the adapter did not start" in output
    assert why in output
    assert records == []


def test_a_timeout_multiplier_of_zero_is_a_usage_error(pytester: pytest.Pytester) -> None:
    code, _, output = run_smoke(pytester, "chatty_stderr", "--timeout-multiplier", "0")
    assert code == pytest.ExitCode.USAGE_ERROR
    assert "--timeout-multiplier 0: must be more than 0" in output


def test_a_working_adapter_with_noisy_stderr_is_judged_on_the_wire(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    stderr_copy = tmp_path / "adapter-stderr.log"
    _code, records, _ = run_smoke(pytester, "chatty_stderr", "--adapter-stderr", str(stderr_copy))
    (record,) = records
    # The faulty adapter answers without calling the model: a judgment, not a crash.
    assert record.outcome is Outcome.FAIL, record.detail
    assert not record.detail.startswith(("CRASH", "PROTOCOL", "TIMEOUT"))
    assert "debug 0: thinking about run" in stderr_copy.read_text()


def test_a_cmd_spec_without_a_command_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = pytester.runpytest(*SMOKE, "--impl", "cmd:  ")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*--impl 'cmd:  ': no command after 'cmd:'*"])


def test_a_line_over_adapter_max_line_is_a_protocol_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TURNLAW_LINE_MB", "3")
    _code, records, _ = run_smoke(pytester, "oversize_line", "--adapter-max-line", "1M")
    (record,) = records
    assert record.outcome is Outcome.ERROR
    assert record.detail.startswith("PROTOCOL: AdapterProtocolError"), record.detail[:300]
    assert "longer than the limit of 1048576 bytes" in record.detail


@pytest.mark.parametrize(("given", "why"), [("lots", "not a size"), ("100", "under 1K")])
def test_a_bad_adapter_max_line_is_a_usage_error(
    pytester: pytest.Pytester, given: str, why: str
) -> None:
    code, _, output = run_smoke(pytester, "chatty_stderr", "--adapter-max-line", given)
    assert code == pytest.ExitCode.USAGE_ERROR
    assert why in output


@pytest.mark.parametrize(
    ("given", "size"), [("65536", 65536), ("512K", 512 << 10), ("64M", 64 << 20), ("1g", 1 << 30)]
)
def test_adapter_max_line_takes_sizes(given: str, size: int) -> None:
    assert byte_size(given) == size


STRAY = """
import asyncio
import threading

from conformance.adapter import AgentSpec

SPEC = AgentSpec(base_url="http://127.0.0.1:9/v1", api_key="sk-not-used-0000")


def test_leaves_a_request_behind(implementation):
    # a caller that neither awaits nor cancels its call: its loop just goes away
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    agent = asyncio.run_coroutine_threadsafe(implementation.create_agent(SPEC), loop).result(10)
    asyncio.run_coroutine_threadsafe(agent.run("hi"), loop)
    while not implementation.inner.in_flight():
        pass


def test_the_next_test_finds_no_request_running(implementation):
    assert implementation.inner.in_flight() == []
    assert implementation.inner.restarts == 0  # stopped, not yet restarted: no request since
"""


def test_a_request_left_unanswered_by_its_test_stops_the_adapter_before_the_next(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_stray=STRAY)
    impl = "cmd:" + shlex.join(faulty_argv("silent"))
    run = pytester.runpytest(*PLUGIN_ARGS, "--impl", impl, "test_stray.py")
    run.assert_outcomes(passed=2)
    run.stdout.fnmatch_lines(["*still had run (seq *) unanswered after the test; it was stopped*"])


def test_adapter_stderr_in_a_new_folder_is_made_and_an_unwritable_one_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    nested = tmp_path / "logs" / "today" / "adapter-stderr.log"
    _code, records, output = run_smoke(pytester, "chatty_stderr", "--adapter-stderr", str(nested))
    assert records, output  # it ran: the folder was made, not an INTERNALERROR
    assert "debug 0: thinking about run" in nested.read_text()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    code, _, output = run_smoke(
        pytester, "chatty_stderr", "--adapter-stderr", str(blocked / "adapter-stderr.log")
    )
    assert code == pytest.ExitCode.USAGE_ERROR, output
    assert "--adapter-stderr" in output and "cannot write it" in output
    assert "INTERNALERROR" not in output
