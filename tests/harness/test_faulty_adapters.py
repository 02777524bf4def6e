"""The harness survives broken adapters: no hang, no crash, never a green report.

Each case runs a slice of the real suite in a nested pytest against an adapter from
`faulty_adapters.py`, then reads the results file as a user's CI would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import conformance
import conformance.runner.plugin
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import main as conformance_cli
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.suite_args import HANG_DEADLINE, PLUGIN_ARGS, nested_suite

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = [*PLUGIN_ARGS, "--dialects", "openai-chat"]


def details(results: ResultsFile, law: str) -> str:
    return "\n".join(r.detail for r in results.records if r.law == law)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester)


def run_suite(
    suite: pytest.Pytester, tmp_path: Path, impl: str, *modules: str, options: tuple[str, ...] = ()
) -> tuple[pytest.RunResult, ResultsFile]:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *PLUGIN,
        *options,
        "--impl",
        f"tests.harness.faulty_adapters:{impl}",
        "--results",
        str(results),
        "--pyargs",
        *modules,
    )
    return run, read_results(results)


def test_an_adapter_that_hangs_times_out_and_the_run_goes_on(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "hangs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
        # one delivery: each follow_up law hangs once per delivery, for a whole deadline
        options=("--call-timeout", HANG_DEADLINE, "--deliveries", "stream"),
    )
    outcomes = results.per_law()
    assert outcomes["follow-up.shows-last-answer"] is Outcome.TIMEOUT
    # the guard's deadline cut the hang (not the law test's own, minutes later) ...
    assert f"did not return within {HANG_DEADLINE} s" in details(
        results, "follow-up.shows-last-answer"
    )
    # ... and the laws after the hang were still judged
    assert outcomes["checkpoint.no-trim"] is Outcome.PASS
    assert outcomes["checkpoint.carries-identity"] is Outcome.PASS
    assert not results.truncated and run.ret == 1


def test_an_adapter_that_raises_is_an_error_with_its_traceback(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "raises",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    outcomes = results.per_law()
    assert outcomes["checkpoint.plain-json"] is Outcome.ERROR
    detail = details(results, "checkpoint.plain-json")
    assert "KeyError: 'history'" in detail and "faulty_adapters.py" in detail, detail
    assert outcomes["follow-up.refuses-before-first-run"] is Outcome.PASS
    assert run.ret == 1


def test_garbage_where_a_checkpoint_belongs_is_an_error_naming_the_field(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "garbage_checkpoint",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    outcomes = results.per_law()
    assert outcomes["checkpoint.plain-json"] is Outcome.ERROR
    detail = details(results, "checkpoint.plain-json")
    assert "checkpoint()['history'][0]['text'] (a builtins.object)" in detail, detail
    assert "AdapterContractError" in detail
    assert run.ret == 1


def test_a_declared_capability_the_adapter_lacks_fails_not_skips(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "declares_pause_it_lacks",
        "conformance.laws.test_smoke",
        "conformance.laws.test_pending",
    )
    outcomes = results.per_law()
    assert outcomes["pending.resume-continues"] is Outcome.FAIL
    assert outcomes["pending.abandon-returns-dropped"] is Outcome.FAIL
    assert "raised NotImplementedError, but the implementation declares" in details(
        results, "pending.resume-continues"
    )
    assert Outcome.NOT_APPLICABLE not in outcomes.values()
    assert run.ret == 1


def test_self_explain_without_a_named_trace_tool_fails_and_says_what_to_set(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite, tmp_path, "unnamed_trace_tool", "conformance.laws.test_self_explain"
    )
    outcomes = results.per_law()
    assert outcomes["self-explain.trace-tools-say-so"] is Outcome.FAIL
    assert "names no trace tool: set `trace_tool`" in details(
        results, "self-explain.trace-tools-say-so"
    )
    assert outcomes["self-explain.not-before-a-completed-turn"] is Outcome.PASS
    assert run.ret == 1


def test_claiming_success_while_sending_nothing_fails(
    suite: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "silent_success",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    assert results.per_law() == {"smoke.one-turn": Outcome.FAIL}
    run.stdout.fnmatch_lines(["*adapter broken*"])
    assert run.ret == pytest.ExitCode.INTERRUPTED  # stopped, and never zero
    assert conformance_cli(["report", str(tmp_path / "results.jsonl")]) == 1


def test_a_run_in_another_dialect_than_asked_fails_the_smoke_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """The fake answers every dialect's endpoint; the run must still be in the one asked."""
    results_path = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *PLUGIN,
        "--dialects",
        "openai-responses",
        "--impl",
        "tests.harness.faulty_adapters:chat_for_every_dialect",
        "--results",
        str(results_path),
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    results = read_results(results_path)
    assert results.per_law() == {"smoke.one-turn": Outcome.FAIL}
    assert "asked to speak openai-responses" in details(results, "smoke.one-turn")
    assert run.ret == pytest.ExitCode.INTERRUPTED  # the premise of every law: stopped


STALLS = "tests.harness.faulty_adapters:stalls_half_way"
HALF_WAY_WAIT = 600
"""Seconds the test waits for the run to say it is half way: a bound on that event, for
a run that never gets there (it is minutes past a loaded machine's slowest start)."""


@pytest.mark.timeout(HALF_WAY_WAIT + 60)  # a child pytest, not a nested in-process run
def test_a_run_killed_half_way_is_reported_as_truncated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results.jsonl"
    half_way = tmp_path / "half-way"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            *PLUGIN,
            *conformance.run_options(
                "tests.harness.faulty_adapters:stalls_half_way", results=results
            ),
            "--pyargs",
            "conformance.laws",
        ],
        cwd=ROOT,
        env={**os.environ, "TURNLAW_HALF_WAY": str(half_way)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + HALF_WAY_WAIT
        while not half_way.exists():
            assert process.poll() is None, "the run ended before it was half way"
            if time.monotonic() > deadline:
                pytest.fail(f"the run did not get half way within {HALF_WAY_WAIT} s")
            time.sleep(0.05)
        # stalled for good: it cannot finish (nor write its footer) before the kill
        assert process.poll() is None, "the run ended while it was stalled half way"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait()
    read = read_results(results)
    assert read.truncated and read.records, "a killed run should leave records and no footer"
    assert conformance_cli(["report", str(results)]) == 2
    assert "TRUNCATED" in capsys.readouterr().err
