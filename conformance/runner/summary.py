"""What a run's summary says, for people: the terminal table and the Markdown report,
from the run's Collector (the sections made from records alone are the verdict
model's, conformance.verdicts, shared with `python -m conformance report`). The text is
returned as is; the Collector scrubs it as it writes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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


__all__ = ["law_cell", "markdown_report", "terminal_table"]
