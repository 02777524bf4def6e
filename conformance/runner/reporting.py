"""What a run's summary says, for people: the terminal table and the Markdown report,
from the run's Collector (the sections made from records alone are the verdict
model's, conformance.verdicts, shared with `python -m conformance report`). The text is
returned as is; the Collector scrubs it as it writes it.

The summary also says how pytest's counts of the law tests relate to the results file's
records (`PytestCounts`). pytest counts test *reports* (one per test, plus one for a
set-up or clean-up that failed: "2015 passed, 58 skipped, 3 xfailed"); the per-law table
counts *laws*; the results file holds one *record* per law each report judged. They
agree once one knows the mapping, and the summary says it rather than leave a reader to
guess:

- `passed` is PASS; `failed` is FAIL, ERROR or TIMEOUT of a test's call; `error` is a
  set-up or clean-up that failed (its own record, often beside a passed call);
- `skipped` is a NOT_APPLICABLE cell (or a skip no law explains: an ERROR);
- `xfailed` is a failure the manifest expects (XFAIL);
- a report that judged several laws (the state machines) wrote one record per law, and
  one whose failure named its law (or a missing door's law) wrote one.

The counter sees each report as pytest's terminal does (`pytest_report_teststatus`,
after the runner marked expected failures), in the process that reports: the only one
without xdist, the controller with it.

A failure whose traceback pytest cannot render is still reported, and the run goes on
(`pytest_runtest_makereport` here). pytest renders a failing test's traceback while it
makes the test's report: it parses each frame's source (`ast.parse`) to show the failing
statement. On CPython 3.11.7 that parse can raise `SystemError: AST constructor
recursion depth mismatch` (gh-106905), which escapes the report hook: pytest stops with
INTERNALERROR, and every law after the failing test goes unjudged. The same holds for
any other error while rendering.

This hook wraps pytest's own report-making (innermost, so every other wrapper, the
runner's collector among them, sees an ordinary report): when making the report of a
failed phase raises, it builds the report itself, with the failure's message (the
exception's type and text, clipped) in place of the traceback, and says why.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest

from .. import __version__
from ..lawdoc import LAWS_DOC, law_lines, law_location
from ..registry import load_laws
from ..verdicts import (
    Outcome,
    TestRecord,
    beside_note,
    consequence_note,
    excluded_must_laws,
    information_lines,
    known_premise_note,
    markdown_cell,
    must_score,
    not_applicable_in_words,
    not_applicable_lines,
    rows_beside,
    skipped_cells,
    tolerated,
)

if TYPE_CHECKING:
    from .collect import Collector


def terminal_table(collector: Collector) -> str:
    """The table the terminal ends with: one line per law, the score, what was not
    judged, how pytest's counts relate to the records, and why the run is red."""
    laws = load_laws()
    outcomes = collector.per_law()
    records = collector.all_records()
    where = law_lines()
    lines = ["", f"turnlaw conformance: {collector.implementation.name}"]
    lines.append(f"  dialects: {', '.join(collector.dialects) or 'none'}")
    lines.append(f"  deliveries: {', '.join(collector.deliveries) or 'none'}")
    lines.append(f"  each law is explained at its line of {LAWS_DOC} (turnlaw {__version__})")
    lines.append("")
    width = max((len(i) for i in outcomes), default=0)
    causes = collector.root_causes()
    beside = rows_beside(records, outcomes)
    for law_id, entry in laws.items():
        if law_id in outcomes:
            note = consequence_note(causes.get(law_id, []))
            if outcomes[law_id] is Outcome.XPASS and tolerated(collector.expected, law_id):
                note = "known intermittent: the manifest accepts a pass"
            note = "; ".join(n for n in (note, beside_note(beside.get(law_id, []))) if n)
            lines.append(
                f"  {outcomes[law_id].value:<15} {entry.level.value:<6} {law_id:<{width}}  "
                f"{law_location(law_id, where)}" + (f"  ({note})" if note else "")
            )
    lines.append("")
    lines.append(f"  {must_score(outcomes)}")
    lines += [f"  {line}" for line in not_applicable_lines(records, outcomes)]
    lines += [f"  {line}" for line in information_lines(records)]
    if collector.counts_line:
        lines.append(f"  {collector.counts_line}")
    if collector.adapter_broken:
        lines.append("  adapter broken: the run stopped, so the laws after it are unjudged")
    problems = collector.problems()
    for problem in problems:
        lines.append(f"  expectation: {problem}")
    reasons = collector.red_reasons()
    for reason in reasons:
        if reason not in problems and not reason.startswith(tuple(o.value for o in Outcome)):
            lines.append(f"  {reason}")
    lines.append(f"  verdict: {'red' if reasons else 'green'}")
    return "\n".join(lines) + "\n"


def markdown_report(collector: Collector) -> str:
    """`--report-md`: the per-law matrix, what was not judged, and the verdict."""
    laws = load_laws()
    outcomes = collector.per_law()
    records = collector.all_records()
    rows = [
        f"# turnlaw conformance: {collector.implementation.name}",
        "",
        f"Dialects: {', '.join(collector.dialects) or 'none'}. {must_score(outcomes)}. Each "
        f"law is explained in {LAWS_DOC} (turnlaw {__version__}).",
        "",
        "| law | level | outcome | detail |",
        "|---|---|---|---|",
    ]
    causes = collector.root_causes()
    beside = rows_beside(records, outcomes)
    for law_id, entry in laws.items():
        if law_id not in outcomes:
            continue
        cell = law_cell(collector, law_id, outcomes[law_id])
        note = consequence_note(causes.get(law_id, []))
        cell = f"{note}: {cell}" if note and cell else note or cell
        unjudging = beside.get(law_id, [])
        if unjudging:
            said = [f"{beside_note(unjudging)}."] + [
                f"{row.outcome.value} in {row.test}: {_said(collector, row)}" for row in unjudging
            ]
            cell = "\n".join([cell, *said]) if cell else "\n".join(said)
        rows.append(
            f"| `{law_id}` | {entry.level.value} | {outcomes[law_id].value} | "
            f"{markdown_cell(cell)} |"
        )
    excluded = excluded_must_laws(records, outcomes)
    if excluded:
        rows += ["", "## MUST laws not applicable (not judged, so not passed either)", ""]
        rows += [
            f"- {sentence}: {', '.join(f'`{law_id}`' for law_id in found)}"
            for sentence, found in excluded.items()
        ]
    cells = skipped_cells(records)
    if cells:
        rows += ["", "## NOT_APPLICABLE cells (pytest's skipped tests), by reason", ""]
        rows += [f"- {n}: {sentence}" for n, sentence in cells]
    said = information_lines(records)
    if said:
        rows += ["", "## Information (details the seed never fixed, not scored)", ""]
        rows += [f"- {line.strip()}" for line in said[1:]]
    reasons = collector.red_reasons()
    rows += ["", f"**Verdict: {'red' if reasons else 'green'}**", ""]
    rows += [f"- {reason}" for reason in reasons]
    return "\n".join(rows) + "\n"


def law_cell(collector: Collector, law_id: str, outcome: Outcome) -> str:
    """What a report's row says about a law: the manifest's reason for a known failure,
    the capability missing in words for N/A, a failure's message whole."""
    shown = next((r for r in collector.by_law[law_id] if r.outcome is outcome), None)
    if shown is not None and shown.premise is not None and outcome is Outcome.XFAIL:
        entry = collector.expected[shown.premise]
        return known_premise_note(shown.premise, entry.reason)
    if law_id in collector.expected and collector.expected[law_id].reason:
        return collector.expected[law_id].reason
    if shown is None:
        return ""
    if outcome is Outcome.NOT_APPLICABLE:
        return not_applicable_in_words(shown.detail)
    return collector.messages.get(shown) or shown.detail


def _said(collector: Collector, record: TestRecord) -> str:
    """A record's message in one line, for a report's cell."""
    text = collector.messages.get(record) or record.detail
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:300]


JUDGED = "turnlaw_judged"
"""The report attribute the runner sets on a law test's report it judged: how many
records it made (a plain int: xdist carries it to the controller)."""

MEANING = {
    "passed": "passed = PASS",
    "failed": "failed = FAIL, ERROR or TIMEOUT of a test's call",
    "error": "error = a set-up or clean-up that failed (its own record)",
    "skipped": "skipped = NOT_APPLICABLE cells (above)",
    "xfailed": "xfailed = failures the manifest expects (XFAIL)",
    "xpassed": "xpassed = a known failure's test that passed",
}

ORDER = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


class PytestCounts:
    """A plugin counting the law-test reports as pytest's terminal does."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.categories: Counter[str] = Counter()
        self.records = 0
        self.several = 0
        """Reports that judged more than one law."""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        made = getattr(report, JUDGED, None)
        if not isinstance(made, int):
            return
        status = self.config.hook.pytest_report_teststatus(report=report, config=self.config)
        category = status[0] if status else ""
        if category:
            self.categories[category] += 1
        self.records += made
        self.several += made > 1

    def line(self) -> str:
        """The summary's line: pytest's counts, the records, and what maps to what."""
        if not self.categories and not self.records:
            return ""
        reports = sum(self.categories.values())
        names = [*ORDER, *sorted(set(self.categories) - set(ORDER))]
        counted = ", ".join(f"{self.categories[n]} {n}" for n in names if self.categories[n])
        said = [
            f"counts: pytest counted {_many(reports, 'law-test report')} ({counted}); they "
            f"made {_many(self.records, 'record')}, one per law each report judged"
        ]
        if self.several:
            which = "report" if self.several == 1 else "reports"
            said.append(f"{self.several} {which} judged several laws")
        said += [MEANING[n] for n in ORDER if self.categories[n] and n in MEANING]
        return "; ".join(said)


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


MESSAGE_LIMIT = 4000
"""Characters of the exception's text kept in its place (a report, not a dump)."""


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    try:
        return (yield)
    except Exception as rendering:
        if call.excinfo is None:
            raise  # nothing failed: a bug of its own, not a failure to render
        return unrendered_report(item, call, rendering)


def unrendered_report(
    item: pytest.Item, call: pytest.CallInfo[None], rendering: BaseException
) -> pytest.TestReport:
    """The report pytest would have made of a failed phase, its traceback replaced by the
    failure's message and the reason it could not be rendered."""
    assert call.excinfo is not None
    error = call.excinfo.value
    skipped = isinstance(error, pytest.skip.Exception)
    longrepr: tuple[str, int, str] | str = (
        (str(item.path), item.location[1] or 0, _error_text(error))
        if skipped
        else _text(error, rendering)
    )
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "skipped" if skipped else "failed",
        longrepr,
        call.when,  # type: ignore[arg-type]  # a test phase: never "collect" here
        [(f"Captured {key} {when}", content) for when, key, content in item._report_sections],
        call.duration,
        call.start,
        call.stop,
        item.user_properties,
    )


def _text(error: BaseException, rendering: BaseException) -> str:
    lines = [f"E   {line}" for line in _error_text(error).splitlines() or [""]]
    lines.append(
        f"E   (turnlaw: pytest could not render this failure's traceback "
        f"({type(rendering).__name__}: {_clip(_safe_str(rendering), 300)}); the failure's "
        "own message is above)"
    )
    return "\n".join(lines)


def _error_text(error: BaseException) -> str:
    """`Type: message`, clipped; the type alone when even its text cannot be had."""
    name = type(error).__name__
    text = _safe_str(error)
    return f"{name}: {_clip(text, MESSAGE_LIMIT)}" if text else name


def _safe_str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # an exception whose own __str__ fails: its type must do
        return ""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more)"


__all__ = ["JUDGED", "PytestCounts", "law_cell", "markdown_report", "terminal_table"]
