"""A run that TIMEOUTs ends there: the adapter is stopped at its deadline, so the model
call it would make late cannot land on a later test's fake and fail an innocent law.

The faulty adapter is the reference runtime with one slow run (faulty/late_reference.py),
so every other law's true verdict is known: PASS, as in-process.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
from conformance.verdicts import Outcome, read_results
from tests.suite_args import HANG_DEADLINE, PLUGIN_ARGS

from .conftest import faulty_argv

LAWS = ("conformance.laws.test_smoke", "conformance.laws.test_continuation")


def test_a_late_reply_after_a_timeout_leaves_the_next_tests_their_verdicts(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "late-run.txt"
    monkeypatch.setenv("TURNLAW_LATE_MARK", str(mark))
    results = pytester.path / "results.jsonl"
    run = pytester.runpytest(
        *PLUGIN_ARGS,
        "--impl",
        "cmd:" + shlex.join(faulty_argv("late_reference")),
        "--dialects",
        "openai-chat",
        # the late run waits for the next test's agent (or 30 s): the hang is that wait
        "--call-timeout",
        HANG_DEADLINE,
        "--results",
        str(results),
        "--repro-dir",
        "repro",
        "--pyargs",
        *LAWS,
    )
    output = "\n".join(run.outlines + run.errlines)
    assert mark.exists(), f"the slow run never happened:\n{output[-3000:]}"
    read = read_results(results)
    assert not read.truncated, output[-3000:]
    outcomes = {(r.test, r.law): r.outcome for r in read.records}
    late = [key for key, outcome in outcomes.items() if outcome is Outcome.TIMEOUT]
    assert len(late) == 1, outcomes
    wrong = {
        key: (outcome, next(r.detail for r in read.records if (r.test, r.law) == key)[:600])
        for key, outcome in outcomes.items()
        if key not in late and outcome is not Outcome.PASS
    }
    assert wrong == {}, f"the late run's model call changed other verdicts: {wrong}"
    assert len(outcomes) >= 8
