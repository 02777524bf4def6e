"""How pytest's counts of the law tests relate to the results file's records.

pytest counts test *reports* (one per test, plus one for a set-up or clean-up that
failed: "2015 passed, 58 skipped, 3 xfailed"); the per-law table counts *laws*; the
results file holds one *record* per law each report judged. They agree once one knows
the mapping, and the summary says it rather than leave a reader to guess:

- `passed` is PASS; `failed` is FAIL, ERROR or TIMEOUT of a test's call; `error` is a
  set-up or clean-up that failed (its own record, often beside a passed call);
- `skipped` is a NOT_APPLICABLE cell (or a skip no law explains: an ERROR);
- `xfailed` is a failure the manifest expects (XFAIL);
- a report that judged several laws (the state machines) wrote one record per law, and
  one whose failure named its law (or a missing door's law) wrote one.

The counter sees each report as pytest's terminal does (`pytest_report_teststatus`,
after the runner marked expected failures), in the process that reports: the only one
without xdist, the controller with it.
"""

from __future__ import annotations

from collections import Counter

import pytest

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


__all__ = ["JUDGED", "PytestCounts"]
