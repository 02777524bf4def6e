"""The verdict model: what a law's outcome is, the one rule from outcomes to a run's
verdict, the results file a run writes and `python -m conformance report` reads back,
the expectations manifest, and the texts that say all of it to a person.

Pure on purpose (no pytest): the runner's pytest shell, the conformance matrix, the
replay player and the benchmarks read verdicts the same way without running a suite,
and a reader learns the rule here without learning pytest's hooks.
The matrix (docs/conformance-matrix.md from results files) is its own module,
`conformance.verdicts.matrix`, because `python -m conformance matrix` is its one user.
"""

from __future__ import annotations

from ._capability_words import (
    needed_capabilities,
    needs_one_of_sentence,
    needs_sentence,
    not_applicable_in_words,
    not_applicable_sentence,
)
from ._consequences import consequence_note, known_premise_note, root_causes
from ._expectations import (
    EXPECTABLE,
    Expectation,
    ExpectationsError,
    Manifest,
    load_expectations,
)
from ._outcomes import (
    INFORMATION,
    NOT_APPLICABLE_PREFIX,
    SEVERITY,
    UNJUDGING,
    LawViolation,
    Outcome,
    PremiseNotMet,
    TestRecord,
    blamed_law,
    classify,
    law_verdict,
    unmet_premise,
    worst,
)
from ._pins import FrameworkPin
from ._report import print_report
from ._report_text import clipped_failure, markdown_cell, report_reason
from ._results_file import (
    ResultsFile,
    ResultsFileError,
    ResultsFooter,
    ResultsHeader,
    one_line,
    read_results,
)
from ._summary import (
    excluded_must_laws,
    information_lines,
    must_score,
    not_applicable_lines,
    skipped_cells,
)
from ._verdict import (
    RED,
    beside_note,
    law_outcomes,
    manifest_problems,
    red_reasons,
    rows_beside,
    tolerated,
)

__all__ = [
    "EXPECTABLE",
    "INFORMATION",
    "NOT_APPLICABLE_PREFIX",
    "RED",
    "SEVERITY",
    "UNJUDGING",
    "Expectation",
    "ExpectationsError",
    "FrameworkPin",
    "LawViolation",
    "Manifest",
    "Outcome",
    "PremiseNotMet",
    "ResultsFile",
    "ResultsFileError",
    "ResultsFooter",
    "ResultsHeader",
    "TestRecord",
    "beside_note",
    "blamed_law",
    "classify",
    "clipped_failure",
    "consequence_note",
    "excluded_must_laws",
    "information_lines",
    "known_premise_note",
    "law_outcomes",
    "law_verdict",
    "load_expectations",
    "manifest_problems",
    "markdown_cell",
    "must_score",
    "needed_capabilities",
    "needs_one_of_sentence",
    "needs_sentence",
    "not_applicable_in_words",
    "not_applicable_lines",
    "not_applicable_sentence",
    "one_line",
    "print_report",
    "read_results",
    "red_reasons",
    "report_reason",
    "root_causes",
    "rows_beside",
    "skipped_cells",
    "tolerated",
    "unmet_premise",
    "worst",
]
