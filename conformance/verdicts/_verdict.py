"""The one rule from per-law outcomes to a run's verdict, used twice: by the run as it
ends (its exit status) and by `python -m conformance report` on its results file.

A run is green when every judged law passed, was not applicable, or failed as its
manifest entry says (XFAIL), and nothing else is wrong: no FAIL, ERROR, TIMEOUT or
XPASS (but of an entry that says the law is intermittent), no ERROR or TIMEOUT row
beside a law that reads FAIL or XFAIL (a FAIL outranks them in the law's outcome, never
in the run's verdict), no stale manifest entry, no selected law test that never
reported, no law of a selected test left without a verdict, and at least one law judged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping

from ._expectations import Expectation
from ._outcomes import UNJUDGING, Outcome, TestRecord, law_verdict

RED = (Outcome.ERROR, Outcome.TIMEOUT, Outcome.FAIL, Outcome.XPASS)
"""Law outcomes that fail a run, whatever the manifest says."""


def law_outcomes(
    records: Iterable[TestRecord], expected: Mapping[str, Expectation]
) -> dict[str, Outcome]:
    """Each law's outcome (`law_verdict`: a FAIL first, else its worst test's), and XPASS
    for an expected failure whose every test passed."""
    by_law: dict[str, list[TestRecord]] = defaultdict(list)
    for record in records:
        by_law[record.law].append(record)
    found = {law_id: law_verdict(rows) for law_id, rows in by_law.items()}
    return {
        law_id: Outcome.XPASS if _expects_failure(expected, law_id) and o is Outcome.PASS else o
        for law_id, o in found.items()
    }


def rows_beside(
    records: Iterable[TestRecord], outcomes: Mapping[str, Outcome]
) -> dict[str, list[TestRecord]]:
    """law id -> its ERROR and TIMEOUT rows, for each law that reads something else (a
    FAIL or XFAIL beside them): what every report lists next to the law, and what keeps
    the run red although the law's own line does not say ERROR."""
    found: dict[str, list[TestRecord]] = defaultdict(list)
    for record in records:
        verdict = outcomes.get(record.law)
        if record.outcome in UNJUDGING and verdict is not None and verdict not in UNJUDGING:
            found[record.law].append(record)
    return dict(found)


def beside_note(rows: Iterable[TestRecord]) -> str:
    """How a report says it next to the law: `also 1 ERROR row: <test>`."""
    listed = list(rows)
    if not listed:
        return ""
    shown = "; ".join(
        f"{row.outcome.value} in {row.test}"
        + (f" (premise not met: {row.premise})" if row.premise else "")
        for row in listed[:3]
    )
    more = f"; and {len(listed) - 3} more" if len(listed) > 3 else ""
    return f"beside it, {len(listed)} row(s) that could not judge it: {shown}{more}"


def _expects_failure(expected: Mapping[str, Expectation], law_id: str) -> bool:
    entry = expected.get(law_id)
    return entry is not None and entry.outcome is Outcome.FAIL


def manifest_problems(
    outcomes: Mapping[str, Outcome],
    expected: Mapping[str, Expectation],
    unjudged: Collection[str] = (),
) -> list[str]:
    """Entries the run contradicts: an unexpected pass, and stale entries (the law is not
    in this run, or got another outcome than the one the entry names). An entry for an
    unjudged law is left to the unjudged line, and an ERROR or TIMEOUT speaks for itself."""
    found: list[str] = []
    for law_id, entry in expected.items():
        got = outcomes.get(law_id)
        said = f"{law_id}: expected {entry.outcome.value} ({entry.reason})"
        if law_id in unjudged or got in (Outcome.ERROR, Outcome.TIMEOUT):
            continue
        if got is None:
            found.append(f"{said} but it is not in this run (no selected test): stale entry")
        elif got is Outcome.XPASS and entry.intermittent:
            continue  # a known-intermittent failure that passed this time
        elif got is Outcome.XPASS:
            found.append(f"{said} but it passed: remove the entry")
        elif entry.outcome is Outcome.FAIL and got is Outcome.NOT_APPLICABLE:
            found.append(f"{said} but it is not applicable: stale entry")
        elif entry.outcome is Outcome.NOT_APPLICABLE and got is not Outcome.NOT_APPLICABLE:
            found.append(f"{said} but it was judged ({got.value}): stale entry")
    return found


def red_reasons(
    outcomes: Mapping[str, Outcome],
    problems: Iterable[str],
    unjudged: Collection[str],
    not_run: Collection[str],
    expected: Mapping[str, Expectation],
    records: Iterable[TestRecord] = (),
) -> list[str]:
    """Why the run is red, one line per reason; no line: green. `records` are the run's
    rows: an ERROR or TIMEOUT row is red even where its law reads FAIL or XFAIL."""
    reasons = [
        f"{outcome.value}: {', '.join(law_ids)}"
        for outcome in RED
        if (
            law_ids := [
                law_id
                for law_id, o in outcomes.items()
                if o is outcome and not (o is Outcome.XPASS and tolerated(expected, law_id))
            ]
        )
    ]
    beside = rows_beside(records, outcomes)
    if beside:
        rows = [
            f"{law_id} ({row.outcome.value} in {row.test})"
            for law_id, found in beside.items()
            for row in found
        ]
        shown = ", ".join(rows[:5]) + (f", and {len(rows) - 5} more" if len(rows) > 5 else "")
        reasons.append(
            f"rows that could not judge their law, beside its FAIL: {shown} (a FAIL is "
            "the law's outcome; an ERROR or TIMEOUT still keeps the run red)"
        )
    reasons += list(problems)
    if unjudged:
        reasons.append(
            f"unjudged: {', '.join(sorted(unjudged))} (a selected test checks it, but none "
            "reached a verdict on it: the run stopped, a test never ran, or a multi-law test "
            "stopped at another law's failure)"
        )
    if not_run:
        shown = ", ".join(sorted(not_run)[:3]) + (", ..." if len(not_run) > 3 else "")
        reasons.append(f"not run: {len(not_run)} selected law test(s) never reported ({shown})")
    if not outcomes and not unjudged:
        reasons.append("no law was judged: the run checked nothing")
    return reasons


def tolerated(expected: Mapping[str, Expectation], law_id: str) -> bool:
    """The law's entry accepts a pass (a known-intermittent failure: only a FAIL entry
    can say so)."""
    entry = expected.get(law_id)
    return entry is not None and entry.intermittent
