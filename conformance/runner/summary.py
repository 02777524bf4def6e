"""What a run's summary says, for people: the terminal table and the Markdown report
(from the run's Collector), and the sections `python -m conformance report` shares with
them (from records alone).

Besides each law's outcome, a summary lists what a reader could mistake for a pass:
the MUST laws that were NOT_APPLICABLE, each with what excluded it ("needs the pause
capability"), and the NOT_APPLICABLE cells (the skipped tests) grouped by reason. The
text is returned as is; the Collector scrubs it as it writes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .. import __version__
from ..lawdoc import LAWS_DOC, law_lines, law_location
from ..registry import Level, load_laws
from .capability_words import not_applicable_in_words
from .consequences import consequence_note, known_premise_note
from .outcomes import Outcome, TestRecord
from .report_text import markdown_cell
from .verdict import beside_note, rows_beside, tolerated

if TYPE_CHECKING:
    from .collect import Collector


def must_score(outcomes: Mapping[str, Outcome]) -> str:
    """The MUST score, as the terminal and the Markdown report both say it."""
    laws = load_laws()
    scored = [o for i, o in outcomes.items() if i in laws and laws[i].level is Level.MUST]
    passed = sum(o is Outcome.PASS for o in scored)
    expected = sum(o is Outcome.XFAIL for o in scored)
    applicable = sum(o is not Outcome.NOT_APPLICABLE for o in scored)
    return (
        f"MUST laws: {passed}/{applicable} pass"
        + (f", {expected} fail as the manifest expects" if expected else "")
        + " (not applicable laws are outside the score)"
    )


def excluded_must_laws(
    records: Iterable[TestRecord], outcomes: Mapping[str, Outcome]
) -> dict[str, list[str]]:
    """What excluded each NOT_APPLICABLE MUST law, in words -> those laws (registry
    order): "needs the pause capability" -> [pending.refuses-new-message, ...]. A law
    whose tests were excluded for several reasons is listed under each."""
    laws = load_laws()
    said: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record.outcome is Outcome.NOT_APPLICABLE:
            said[record.law].add(not_applicable_in_words(record.detail) or "not applicable")
    found: dict[str, list[str]] = defaultdict(list)
    for law_id, law in laws.items():
        if law.level is Level.MUST and outcomes.get(law_id) is Outcome.NOT_APPLICABLE:
            for sentence in sorted(said.get(law_id) or {"not applicable"}):
                found[sentence].append(law_id)
    return dict(found)


def skipped_cells(records: Iterable[TestRecord]) -> list[tuple[int, str]]:
    """The NOT_APPLICABLE cells (tests pytest counts as skipped), grouped by why, most
    first: [(58, "the runtime did not stream its model call, ..."), (12, "needs the pause
    capability")]. A cell is one test; a test of several laws is one cell."""
    why: dict[str, str] = {}
    for record in records:
        if record.outcome is Outcome.NOT_APPLICABLE and record.test not in why:
            why[record.test] = not_applicable_in_words(record.detail) or "not applicable"
    counts: dict[str, int] = defaultdict(int)
    for sentence in why.values():
        counts[sentence] += 1
    return sorted(((n, s) for s, n in counts.items()), key=lambda pair: (-pair[0], pair[1]))


def not_applicable_lines(
    records: Iterable[TestRecord], outcomes: Mapping[str, Outcome]
) -> list[str]:
    """The summary's lines about what was not judged: the excluded MUST laws, then the
    skipped cells by reason (no line when nothing was NOT_APPLICABLE)."""
    rows = list(records)
    lines = []
    excluded = excluded_must_laws(rows, outcomes)
    if excluded:
        count = len({law_id for found in excluded.values() for law_id in found})
        lines.append(
            f"MUST laws not applicable: {count}, not judged (so not passed either), excluded by"
        )
        lines += [f"  {sentence}: {', '.join(found)}" for sentence, found in excluded.items()]
    cells = skipped_cells(rows)
    if cells:
        total = sum(n for n, _ in cells)
        noun = "cell" if total == 1 else "cells"
        by_why = "; ".join(f"{n} {sentence}" for n, sentence in cells)
        lines.append(f"{total} NOT_APPLICABLE {noun} (pytest's skipped tests): {by_why}")
    return lines


def information_lines(records: Iterable[TestRecord]) -> list[str]:
    """What the run learned about details the seed never fixed, once each: outside the
    score (a host that answers a failed turn 500 without a code is shown, not failed)."""
    said = sorted({line for record in records for line in record.information})
    if not said:
        return []
    return ["information (details the seed never fixed, not scored):"] + [
        f"  {line}" for line in said
    ]


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


__all__ = [
    "excluded_must_laws",
    "law_cell",
    "markdown_report",
    "must_score",
    "not_applicable_lines",
    "skipped_cells",
    "terminal_table",
]
