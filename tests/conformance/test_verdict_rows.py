"""A FAIL is evidence: a law with FAIL rows reads FAIL (XFAIL when the manifest expects
it) beside rows that could not judge it (ERROR, TIMEOUT), and every report lists those
rows beside the law; the run stays red on any of them, whatever the manifest says."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.__main__ import main as conformance_cli
from conformance.runner.collect import Collector
from conformance.verdicts import (
    Expectation,
    Outcome,
    beside_note,
    law_verdict,
    matrix,
    read_results,
)
from conformance.verdicts import TestRecord as Record  # not collected as a test class
from tests.harness.results_files import record, write_results

LAW = "follow-up.shows-last-answer"
FAILING_TEST = "conformance/laws/test_continuation.py::test_shows[openai-chat]"
ERRING_TEST = "conformance/laws/test_failure.py::test_after_a_failed_run[openai-chat]"
KNOWN = {LAW: Expectation(outcome=Outcome.FAIL, reason="drops the last answer")}


def rows(first: str, second: str) -> list[Record]:
    return [
        record("smoke.one-turn", "PASS"),
        record(LAW, first, test=FAILING_TEST, detail="E   AssertionError: turn 2 lost turn 1"),
        record(LAW, second, test=ERRING_TEST, detail="E   RuntimeError: adapter bug"),
    ]


@pytest.mark.parametrize("beside", ["ERROR", "TIMEOUT"])
def test_a_fail_outranks_the_rows_that_could_not_judge_its_law(beside: str) -> None:
    assert law_verdict(rows("FAIL", beside)) is Outcome.FAIL
    assert law_verdict(rows("XFAIL", beside)) is Outcome.XFAIL
    assert law_verdict(rows("PASS", beside)) is Outcome(beside)


def test_a_premise_known_failure_is_no_evidence_on_the_law_itself() -> None:
    """An XFAIL row that is another law's known failure seen from this law's set-up did
    not judge this law: an ERROR beside it still reads ERROR."""
    premise = Record(
        law=LAW, test="t", outcome=Outcome.XFAIL, duration=0.1, premise="run.no-history"
    )
    erring = record(LAW, "ERROR")
    assert law_verdict([premise, erring]) is Outcome.ERROR


def test_report_reads_fail_lists_the_error_row_and_stays_red(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_results(tmp_path / "r.jsonl", rows("FAIL", "ERROR"))
    results = read_results(path)
    assert results.per_law()[LAW] is Outcome.FAIL
    assert results.footer is not None and results.footer.totals[Outcome.FAIL] == 1
    assert results.footer.totals[Outcome.ERROR] == 0
    assert conformance_cli(["report", str(path)]) == 1
    out = capsys.readouterr().out
    law_line = next(line for line in out.splitlines() if LAW in line and "FAIL" in line)
    assert f"ERROR in {ERRING_TEST}" in law_line, out


def test_a_known_failure_with_an_error_row_beside_it_is_red_naming_the_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_results(tmp_path / "r.jsonl", rows("XFAIL", "ERROR"), expectations=KNOWN)
    results = read_results(path)
    assert results.per_law()[LAW] is Outcome.XFAIL
    reasons = results.red_reasons()
    assert any(LAW in reason and ERRING_TEST in reason for reason in reasons), reasons
    assert results.footer is not None and results.footer.verdict == "red"
    assert results.inconsistencies() == []
    assert conformance_cli(["report", str(path)]) == 1
    assert ERRING_TEST in capsys.readouterr().out


def test_a_footer_that_calls_such_a_run_green_is_inconsistent(tmp_path: Path) -> None:
    path = write_results(tmp_path / "r.jsonl", rows("XFAIL", "TIMEOUT"), expectations=KNOWN)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[-1] = lines[-1].replace('"verdict": "red"', '"verdict": "green"')
    path.write_text("".join(lines), encoding="utf-8")
    assert conformance_cli(["report", str(path)]) == 2


def test_the_matrix_shows_the_fail_with_the_error_row_beside_it(tmp_path: Path) -> None:
    path = write_results(tmp_path / "pydantic-ai.jsonl", rows("FAIL", "ERROR"))
    cell = matrix.column_from_results(path).laws[LAW]
    assert cell.outcome == "FAIL"
    assert "turn 2 lost turn 1" in cell.reason
    assert f"ERROR in {ERRING_TEST}" in cell.reason


class _Named:
    name = "a runtime"
    capabilities: frozenset[str] = frozenset()


def collector_with(records: list[Record], tmp_path: Path, **options: object) -> Collector:
    collector = Collector(
        _Named(),  # type: ignore[arg-type]
        results=tmp_path / "results.jsonl",
        report_md=tmp_path / "report.md",
        expectations=None,
        seed="",
        **options,  # type: ignore[arg-type]
    )
    collector.select({r.test: (r.law,) for r in records})
    for row in records:
        collector.receive(row.test, [(row, row.detail)])
    return collector


def test_the_terminal_and_the_markdown_report_list_the_error_row_beside_the_fail(
    tmp_path: Path,
) -> None:
    collector = collector_with(rows("FAIL", "ERROR"), tmp_path)
    table = collector.matrix()
    law_line = next(line for line in table.splitlines() if LAW in line)
    assert law_line.split()[0] == "FAIL" and f"ERROR in {ERRING_TEST}" in law_line, table
    assert "verdict: red" in table
    reasons = collector.finish()
    assert any(ERRING_TEST in reason for reason in reasons), reasons
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    row = next(line for line in markdown.splitlines() if f"`{LAW}`" in line)
    assert "| FAIL |" in row and "RuntimeError: adapter bug" in row, row
    assert read_results(tmp_path / "results.jsonl").inconsistencies() == []


def test_a_row_stopped_by_a_premise_says_which_law_it_waited_on() -> None:
    """A bare "ERROR" beside a FAIL reads as a crash; a premise row is not one."""
    premise = Record(
        law=LAW, test="t", outcome=Outcome.ERROR, duration=0.1, premise="run.no-history"
    )
    crashed = record(LAW, "ERROR", test="u")
    note = beside_note([premise, crashed])
    assert "ERROR in t (premise not met: run.no-history)" in note
    assert note.endswith("ERROR in u")
