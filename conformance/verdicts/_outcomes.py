"""Per-law outcomes: what one test result means for each law it checks.

PASS / FAIL / ERROR / TIMEOUT / NOT_APPLICABLE come from the test run; XFAIL and XPASS
come from an expectation manifest (a known failure that still fails, or that passed).
A law's outcome over several tests is the worst of them, except that a FAIL is evidence:
a law with FAIL rows reads FAIL (XFAIL when the manifest expects it) even beside ERROR
or TIMEOUT rows, which say only that some test could not judge it. Those rows still keep
the run red (verdict.py), and every report lists them beside the law.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Outcome(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"
    TIMEOUT = "TIMEOUT"
    NOT_APPLICABLE = "NOT_APPLICABLE"
    XFAIL = "XFAIL"
    XPASS = "XPASS"


# Worst first: a law is as bad as its worst test.
SEVERITY = [
    Outcome.ERROR,
    Outcome.TIMEOUT,
    Outcome.FAIL,
    Outcome.XPASS,
    Outcome.XFAIL,
    Outcome.PASS,
    Outcome.NOT_APPLICABLE,
]

NOT_APPLICABLE_PREFIX = "NOT_APPLICABLE: "


class LawViolation(AssertionError):
    """A failed check that names the one law it judges.

    A test marked with several laws (the state machine walks every door) raises it so
    that a failure is charged to the broken law alone: the others rest on what their
    own tests found, not on a step of someone else's.
    """

    def __init__(self, law: str, message: str) -> None:
        super().__init__(message)
        self.law = law


class PremiseNotMet(Exception):
    """A law test's set-up found that another law it rests on does not hold.

    Not an AssertionError on purpose: the law under test was never tried, so it must not
    be charged a FAIL. The test is an ERROR naming the premise's law; that law's own tests
    say whether the runtime breaks it.
    """

    def __init__(self, law: str, message: str) -> None:
        super().__init__(f"premise not met: {law}: {message}")
        self.law = law
        self.message = message


def unmet_premise(error: BaseException | None) -> str | None:
    """The law a PremiseNotMet names, if the error is one."""
    return error.law if isinstance(error, PremiseNotMet) else None


def blamed_law(error: BaseException | None, laws: list[str]) -> str | None:
    """The law a LawViolation names, if it is one of the test's laws."""
    law = getattr(error, "law", None) if isinstance(error, LawViolation) else None
    return law if law in laws else None


INFORMATION = "turnlaw_information"
"""The pytest user-property name under which a test notes information (TestRecord)."""


class TestRecord(BaseModel):
    """One test's result for one law: a line of the results file."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["test"] = "test"
    law: str
    test: str
    outcome: Outcome
    duration: float = Field(ge=0, allow_inf_nan=False)
    detail: str = ""
    premise: str | None = None
    """The law a failed premise named (PremiseNotMet): the test never judged its own."""
    information: tuple[str, ...] = ()
    """What the test learned about details the seed never fixed (how a host's wire says
    an outcome): shown beside the verdict, never part of it."""


_PYTEST_TIMEOUT = re.compile(r"^E\s+Failed: Timeout \(?>[0-9.]+s", re.MULTILINE)
"""pytest-timeout's own failure line. Matched as that line only: a traceback quotes
source, and source that mentions timeouts is no timeout."""


def worst(outcomes: list[Outcome]) -> Outcome:
    return min(outcomes, key=SEVERITY.index) if outcomes else Outcome.NOT_APPLICABLE


def law_verdict(records: Iterable[TestRecord]) -> Outcome:
    """A law's outcome over its records: FAIL when any test found it broken, else XFAIL
    when a test found it broken as the manifest expects (its own failure, not a premise
    of another law's that failed), else the worst of them. An ERROR or a TIMEOUT says a
    test could not judge the law; it cannot outweigh a test that did."""
    rows = list(records)
    if any(row.outcome is Outcome.FAIL for row in rows):
        return Outcome.FAIL
    if any(row.outcome is Outcome.XFAIL and row.premise is None for row in rows):
        return Outcome.XFAIL
    return worst([row.outcome for row in rows])


UNJUDGING = (Outcome.ERROR, Outcome.TIMEOUT)
"""A row that says a test could not judge its law: red whatever the law reads."""


def classify(
    when: str,
    failed: bool,
    skipped: bool,
    longrepr: str,
    is_assertion: bool,
    wire_broken: bool,
    *,
    timed_out: bool = False,
) -> Outcome:
    """Map a pytest report onto an outcome.

    FAIL is a judgment on the runtime: a failed assertion, a refusal that did not happen
    (`pytest.raises` counts as an assertion), or a request the runtime sent that the law's
    script did not allow (the fake ran out, or saw a malformed conversation) — whatever
    the runtime then raised about the fake's error reply, and also when the fake's
    findings only surface at teardown. A timeout is TIMEOUT; any other
    exception, in the adapter, the runtime or the harness, is ERROR with its traceback.
    """
    if skipped:
        return Outcome.NOT_APPLICABLE if NOT_APPLICABLE_PREFIX in longrepr else Outcome.ERROR
    if not failed:
        return Outcome.PASS
    if timed_out or _PYTEST_TIMEOUT.search(longrepr):
        return Outcome.TIMEOUT
    if (when == "call" and is_assertion) or (when != "setup" and wire_broken):
        return Outcome.FAIL
    return Outcome.ERROR
