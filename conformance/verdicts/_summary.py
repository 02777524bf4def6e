"""What a run's summary says, for people, from records alone: the sections the
terminal table, the Markdown report and `python -m conformance report` share.

Besides each law's outcome, a summary lists what a reader could mistake for a pass:
the MUST laws that were NOT_APPLICABLE, each with what excluded it ("needs the pause
capability"), and the NOT_APPLICABLE cells (the skipped tests) grouped by reason. The
text is returned as is; the Collector scrubs it as it writes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from ..registry import Level, load_laws
from ._capability_words import not_applicable_in_words
from ._outcomes import Outcome, TestRecord


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
