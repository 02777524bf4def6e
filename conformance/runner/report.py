"""Reading a results file back for people: per-law outcomes, and whether it is whole.

A run killed half-way leaves its records but no footer; the report says so loudly
and exits 2, so a CI step that only reads results cannot mistake it for a green run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import ValidationError

from .collect import read_results
from .outcomes import Outcome

EXIT_GREEN, EXIT_FAILED, EXIT_TRUNCATED, EXIT_UNREADABLE = 0, 1, 2, 3


def print_report(path: Path) -> int:
    try:
        results = read_results(path)
    except (OSError, json.JSONDecodeError, ValidationError) as error:
        print(f"{path}: not a turnlaw results file ({error})", file=sys.stderr)
        return EXIT_UNREADABLE
    outcomes = results.per_law()
    name = results.header.get("implementation", "(no header)")
    print(f"turnlaw results: {name} ({path})")
    for law_id, outcome in outcomes.items():
        print(f"  {outcome.value:<15} {law_id}")
    if results.truncated:
        print(
            f"TRUNCATED: {path} has no footer; the run stopped after {len(results.records)} "
            "records (killed, crashed or still running). These results are incomplete.",
            file=sys.stderr,
        )
        return EXIT_TRUNCATED
    bad = {Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XPASS}
    problems = (results.footer or {}).get("problems") or []
    for problem in problems:
        print(f"  problem: {problem}")
    return EXIT_FAILED if problems or bad & set(outcomes.values()) else EXIT_GREEN
