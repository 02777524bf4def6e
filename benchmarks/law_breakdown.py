"""The per-law breakdown: which laws a run of the suite spends its time on.

Read from the run's results file (`--results`), whose records already map each test to
its laws the way the runner does (the `law` marker, a failure charged to the law it names)
and carry pytest's duration of the phase they record: the call, or a setup or teardown
that failed or was skipped. A test checking several laws has one record per law, each with
the test's whole duration; here that duration is split evenly among them, so the shares
add up to 100% of the recorded time rather than counting one test several times.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from conformance.verdicts import TestRecord


@dataclass(frozen=True)
class LawTime:
    """One law's share of the recorded test time."""

    law: str
    seconds: float
    share: float
    tests: int


@dataclass(frozen=True)
class Breakdown:
    """The slowest laws of one run, and what they are a share of."""

    slowest: list[LawTime]
    total: float
    """Seconds of every recorded test phase (start-up and collection are not in it)."""
    laws: int
    tests: int
    shared_tests: int
    """Tests marked with several laws, whose time is split among them."""
    shared_seconds: float

    def as_json(self) -> dict[str, object]:
        return {
            "slowest": [vars(law) for law in self.slowest],
            "total_seconds": self.total,
            "laws": self.laws,
            "tests": self.tests,
            "shared_tests": self.shared_tests,
            "shared_seconds": self.shared_seconds,
        }


def breakdown(records: Iterable[TestRecord], top: int = 5) -> Breakdown:
    """The `top` laws with the most recorded seconds, each with its share of the total."""
    by_test: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for record in records:
        by_test[record.test][record.law] += record.duration
    seconds: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    total = shared = 0.0
    shared_tests = 0
    for laws in by_test.values():
        # every law of a test carries the test's duration; the largest covers a phase
        # charged to one law only (a failure that names its law)
        duration = max(laws.values())
        total += duration
        if len(laws) > 1:
            shared_tests += 1
            shared += duration
        for law in laws:
            seconds[law] += duration / len(laws)
            tests[law] += 1
    ranked = sorted(seconds.items(), key=lambda item: (-item[1], item[0]))[:top]
    return Breakdown(
        slowest=[
            LawTime(law, spent, spent / total if total else 0.0, tests[law])
            for law, spent in ranked
        ],
        total=total,
        laws=len(seconds),
        tests=len(by_test),
        shared_tests=shared_tests,
        shared_seconds=shared,
    )
