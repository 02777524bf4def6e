"""Reading a results file back for people and for CI: per-law outcomes, whether the file
is one whole run, and its verdict.

`python -m conformance report FILE` exits with one of four codes, so a CI step that only
reads results cannot mistake a damaged file for a green run:

- 0 green: a whole, consistent run, every judged law passed, was not applicable or
  failed as its manifest expects, and nothing was left unjudged;
- 1 red: a whole, consistent run that failed (a FAIL, ERROR, TIMEOUT or XPASS, a stale
  manifest entry, a law or test left unjudged, or no law judged at all);
- 2 truncated or inconsistent: no footer (the run was killed, crashed or is still
  running), or the lines do not add up (no header or several, a footer that is not
  last, totals or a record count the records do not give, unknown laws);
- 3 unreadable: missing, not UTF-8, a line that is not JSON, or a line that is not a
  results line of the right types.

Codes 2 and 3 come with one line on stderr saying what is wrong; never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..lawdoc import law_lines, law_location
from ._consequences import consequence_note, root_causes
from ._results_file import ResultsFileError, read_results
from ._summary import information_lines, not_applicable_lines
from ._verdict import beside_note, rows_beside

EXIT_GREEN, EXIT_RED, EXIT_INCOMPLETE, EXIT_UNREADABLE = 0, 1, 2, 3


def print_report(path: Path) -> int:
    try:
        results = read_results(path)
    except ResultsFileError as error:
        _say(f"UNREADABLE: {error} (not a turnlaw results file)")
        return EXIT_UNREADABLE
    outcomes = results.per_law()
    name = results.header.get("implementation", "(no header)")
    print(f"turnlaw results: {name} ({path})")
    dialects = results.header.get("dialects") or []
    print(f"  dialects: {', '.join(str(d) for d in dialects) or 'none recorded'}")
    where, width = law_lines(), max((len(i) for i in outcomes), default=0)
    causes = root_causes(outcomes, results.records)
    beside = rows_beside(results.records, outcomes)
    for law_id, outcome in outcomes.items():
        note = consequence_note(causes.get(law_id, []))
        note = "; ".join(n for n in (note, beside_note(beside.get(law_id, []))) if n)
        print(
            f"  {outcome.value:<15} {law_id:<{width}}  {law_location(law_id, where)}"
            + (f"  ({note})" if note else "")
        )
    for line in [
        *not_applicable_lines(results.records, outcomes),
        *information_lines(results.records),
    ]:
        print(f"  {line}")
    inconsistent = results.inconsistencies()
    if results.truncated:
        _say(
            f"TRUNCATED: {path} has no footer; the run stopped after {len(results.records)} "
            "records (killed, crashed or still running). These results are incomplete."
            + "".join(f" Also: {problem}." for problem in inconsistent)
        )
        return EXIT_INCOMPLETE
    if inconsistent:
        _say(f"INCONSISTENT: {path} is not one whole run: {'; '.join(inconsistent)}")
        return EXIT_INCOMPLETE
    problems = results.footer.problems if results.footer else []
    reasons = results.red_reasons()
    for problem in problems:
        print(f"  problem: {problem}")
    for reason in reasons:
        if reason not in problems:
            print(f"  red: {reason}")
    print(f"  verdict: {'red' if reasons else 'green'}")
    return EXIT_RED if reasons else EXIT_GREEN


def _say(message: str) -> None:
    """One line on stderr, whatever the file's strings hold."""
    print(message.replace("\r", "\\r").replace("\n", "\\n"), file=sys.stderr)
