"""A run's summary says what was not judged, so nobody mistakes it for a pass: the MUST
laws that were NOT_APPLICABLE with what excluded each, the skipped tests grouped by why;
and it relates pytest's counts to the records."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import CLOSED_PIPE
from conformance.__main__ import main as conformance_cli
from conformance.verdicts import Outcome, excluded_must_laws, skipped_cells
from tests.harness.results_files import record, write_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

PENDING = [
    "pending.refuses-new-message",
    "pending.refusal-kind",
    "pending.resume-continues",
    "pending.abandon-returns-dropped",
]
PAUSE = "needs the pause capability"


_RUN: dict[str, tuple[str, Path, dict[str, int]]] = {}


@pytest.fixture
def follow_up_only(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, dict[str, int]]:
    """The smoke and pending laws against a runtime that declares follow_up only: every
    pending law is NOT_APPLICABLE. Run once per process: its terminal, its files and
    pytest's counts."""
    if "run" not in _RUN:
        suite = nested_suite(pytester)
        folder = tmp_path_factory.mktemp("follow-up-only")
        run = suite.runpytest(
            *PLUGIN_ARGS,
            "--impl",
            "tests.harness.faulty_adapters:declares_follow_up_only",
            "--results",
            str(folder / "results.jsonl"),
            "--report-md",
            str(folder / "report.md"),
            "--pyargs",
            "conformance.laws.test_smoke",
            "conformance.laws.test_pending",
        )
        assert run.ret == pytest.ExitCode.OK, run.stdout.str()[-3000:]
        _RUN["run"] = (run.stdout.str(), folder, run.parseoutcomes())
    return _RUN["run"]


def test_the_terminal_lists_each_not_applicable_must_law_with_what_excluded_it(
    follow_up_only: tuple[str, Path, dict[str, int]],
) -> None:
    terminal, _, _ = follow_up_only
    assert f"    {PAUSE}: {', '.join(PENDING)}" in terminal, terminal[-3000:]
    assert "MUST laws not applicable: 4, not judged (so not passed either)" in terminal


def test_the_terminal_groups_the_skipped_tests_by_why_and_counts_them_as_pytest_does(
    follow_up_only: tuple[str, Path, dict[str, int]],
) -> None:
    terminal, _, counted = follow_up_only
    cells = re.search(
        r"(\d+) NOT_APPLICABLE cells \(pytest's skipped tests\): (\d+) (.+)", terminal
    )
    assert cells is not None, terminal[-3000:]
    assert cells.group(3) == PAUSE
    assert int(cells.group(1)) == int(cells.group(2)) == counted["skipped"]


def test_the_summary_relates_pytest_s_counts_to_the_records(
    follow_up_only: tuple[str, Path, dict[str, int]],
) -> None:
    terminal, folder, counted = follow_up_only
    line = re.search(
        r"counts: pytest counted (\d+) law-test reports \(([^)]*)\); they made (\d+)", terminal
    )
    assert line is not None, terminal[-3000:]
    said = {name: int(n) for n, name in re.findall(r"(\d+) (\w+)", line.group(2))}
    assert said == {k: v for k, v in counted.items() if k in ("passed", "skipped")}
    records = (folder / "results.jsonl").read_text(encoding="utf-8").count('"type": "test"')
    assert int(line.group(3)) == records
    assert "skipped = NOT_APPLICABLE cells" in terminal


def test_the_markdown_report_and_report_list_them_too(
    follow_up_only: tuple[str, Path, dict[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, folder, _ = follow_up_only
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert "## MUST laws not applicable" in markdown
    assert f"- {PAUSE}: " + ", ".join(f"`{law}`" for law in PENDING) in markdown
    assert conformance_cli(["report", str(folder / "results.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert f"{PAUSE}: {', '.join(PENDING)}" in printed
    assert re.search(
        r"NOT_APPLICABLE cells \(pytest's skipped tests\): \d+ needs the pause", printed
    )


def test_a_sentence_the_suite_does_not_parse_is_carried_whole() -> None:
    """A law that applies when any one of several capabilities is declared says so in its
    own words; the listing must carry them, not cut them to capability names."""
    said = "needs one of the follow_up, continue_from and pause capabilities"
    rows = [
        record(
            "pending.refuses-new-message",
            "NOT_APPLICABLE",
            test="a",
            detail=f"Skipped: NOT_APPLICABLE: pending.refuses-new-message {said}",
        ),
        record("pending.refusal-kind", "NOT_APPLICABLE", test="b", detail=PAUSE),
        record("memory.session-recall", "NOT_APPLICABLE", test="c", detail=PAUSE),  # a SHOULD
    ]
    outcomes = {row.law: Outcome.NOT_APPLICABLE for row in rows}
    assert excluded_must_laws(rows, outcomes) == {
        said: ["pending.refuses-new-message"],
        PAUSE: ["pending.refusal-kind"],
    }
    assert skipped_cells(rows) == [(2, PAUSE), (1, said)]


def test_report_read_by_a_reader_that_stops_early_ends_without_a_traceback(
    tmp_path: Path,
) -> None:
    """`python -m conformance report FILE | head -1`: the pipe closes under the report."""
    said = tuple(f"host wire: difference number {n} of many, said at length" for n in range(4000))
    rows = [record("smoke.one-turn", Outcome.PASS).model_copy(update={"information": said})]
    results = write_results(tmp_path / "r.jsonl", rows)
    report = subprocess.Popen(
        [sys.executable, "-m", "conformance", "report", str(results)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert report.stdout is not None and report.stderr is not None
    report.stdout.readline()
    report.stdout.close()  # the reader stops: the report's next writes meet a closed pipe
    complaint = report.stderr.read().decode()
    assert report.wait(timeout=60) == CLOSED_PIPE  # over a pipe's buffer: it met the close
    assert "Traceback" not in complaint, complaint
