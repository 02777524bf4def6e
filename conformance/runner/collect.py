"""Collecting per-law outcomes during a run, and reporting them: the results file, the
Markdown report and the terminal matrix are all written here, through `_line` and
`Collector.markdown`/`matrix` (whose text `summary.py` composes), so whatever must be
scrubbed from an artifact is scrubbed in one place.

The results file's format and its reader are in `results_file.py`; the rule from
per-law outcomes to the run's verdict is in `verdict.py`.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest
from pydantic import BaseModel

from .. import __version__
from ..adapter import Implementation, declaration_of
from ..errors import AdapterTimeout
from ..verdicts import (
    INFORMATION,
    ExpectationsError,
    Outcome,
    ResultsFooter,
    ResultsHeader,
    TestRecord,
    blamed_law,
    classify,
    clipped_failure,
    law_outcomes,
    load_expectations,
    manifest_problems,
    must_score,
    red_reasons,
    report_reason,
    root_causes,
    unmet_premise,
)
from .doors import missing_door_law, refused_act
from .reporting import markdown_report, terminal_table
from .selection import normalized

__all__ = ["Collector", "Judgment"]


@dataclass(frozen=True)
class Judgment:
    """What one phase's report means: its outcome, the laws it is charged to, and whether
    it is a failure the manifest expects (a FAIL, charged only to laws expected to FAIL)."""

    outcome: Outcome
    laws: tuple[str, ...]
    expected: bool
    premise: str | None = None
    """The law a failed premise named: its manifest entry is what made an ERROR expected."""
    records: tuple[TestRecord, ...] = ()
    """The records it made, one per law charged (what an xdist worker sends on)."""


class Collector:
    """Every law test's report, as per-law records; and at the end, the run's verdict."""

    def __init__(
        self,
        implementation: Implementation,
        *,
        results: Path | None,
        report_md: Path | None,
        expectations: Path | None,
        seed: str,
        dialects: Sequence[str] = (),
        deliveries: Sequence[str] = (),
        scrub: Callable[[str], str] | None = None,
        defer_results: bool = False,
    ) -> None:
        self.implementation = implementation
        self.dialects = [str(d) for d in dialects]
        self.deliveries = [str(d) for d in deliveries]
        self.scrub: Callable[[str], str] = scrub or _unchanged
        """Applied to every string the collector keeps or writes (the session's Redactor)."""
        try:
            self.expected = load_expectations(expectations) if expectations else {}
        except ExpectationsError as error:
            raise pytest.UsageError(str(error)) from None
        self.by_law: dict[str, list[TestRecord]] = defaultdict(list)
        self.messages: dict[TestRecord, str] = {}
        """A failed record's message, whole (scrubbed), for the Markdown report: the
        record's own detail is clipped, the same on every machine."""
        self.report_md = report_md
        self.declared = frozenset(str(c) for c in implementation.capabilities)
        self.adapter_broken = False
        self.selected: dict[str, tuple[str, ...]] = {}
        """Selected law tests (node id -> laws), once collection is done."""
        self.reported: set[str] = set()
        """Law tests that wrote at least one record."""
        self.ids: dict[str, str] = {}
        """pytest's node id -> the id every artifact writes (node_ids.py), learned at
        collection (under xdist, from the workers)."""
        self.records = 0
        self.counts_line = ""
        """How pytest's counts of the law tests relate to the records (counts.py), once
        the run knows them; empty: not said (an xdist worker, an in-process caller)."""
        self.failed_reports = 0
        """Law test reports pytest counts as failed (expected failures are not)."""
        self._results: IO[str] | None = None
        self._results_path = results
        declared = declaration_of(implementation)
        self._header = ResultsHeader(
            suite_version=__version__,
            implementation=str(implementation.name),
            implementation_version=declared.version,
            implementation_notes=list(declared.notes),
            capabilities=sorted(str(c) for c in implementation.capabilities),
            dialects=self.dialects,
            deliveries=self.deliveries,
            expectations=self.expected,
            seed=seed,
            started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
        if results is not None:
            results.parent.mkdir(parents=True, exist_ok=True)
            if not defer_results:
                self._open_results()

    def _open_results(self) -> None:
        """Start the results file with its header. An xdist controller defers it to the
        first record: a path on the command line that exists is one pytest's workers
        read as a test path, and it would move their rootdir (and configuration file)
        away from the controller's."""
        if self._results is None and self._results_path is not None:
            self._results = self._results_path.open("w", encoding="utf-8")
            self._write(self._header)

    def _write(self, line: BaseModel) -> None:
        if self._results is None and self._results_path is not None:
            self._open_results()
        if self._results is not None:
            self._results.write(self._line(line))
            self._results.flush()  # a killed run leaves every finished record behind

    def select(self, tests: Mapping[str, tuple[str, ...]]) -> None:
        """The law tests this run owes a verdict for (after -k, -m, deselection)."""
        self.selected = dict(tests)

    def add(
        self, nodeid: str, laws: list[str], report: Any, call: Any, wire_broken: bool = False
    ) -> Judgment | None:
        """Record one phase's report; setup and teardown only count when they went wrong."""
        if report.when != "call" and not (report.failed or report.skipped):
            return None
        test_id = self.test_id(nodeid)
        excinfo = getattr(call, "excinfo", None)
        error = excinfo.value if excinfo is not None else None
        is_assertion = excinfo is not None and excinfo.errisinstance(
            (AssertionError, pytest.fail.Exception)
        )
        # an act the law needed to succeed, refused or failed by the runtime: its FAIL
        refused = refused_act(error) if report.when == "call" and report.failed else None
        door_law = missing_door_law(error, self.declared) if report.failed else None
        timed_out = excinfo is not None and excinfo.errisinstance(AdapterTimeout)
        outcome = classify(
            report.when,
            report.failed,
            report.skipped,
            str(report.longrepr or ""),
            is_assertion or refused is not None,
            wire_broken,
            timed_out=timed_out,
        )
        blamed = blamed_law(error, laws)
        if outcome is Outcome.FAIL and blamed is not None:
            laws = [blamed]  # the failure named its law: only that one is charged
        if door_law is not None:
            # a declared door that is missing is the law about that door's FAIL, in
            # whichever phase the test used it (set-up, the act, clean-up): the test's
            # own laws get no verdict from it
            outcome, laws = Outcome.FAIL, [door_law]
        premise = unmet_premise(excinfo.value) if excinfo is not None else None
        if premise is not None and outcome is Outcome.FAIL and not is_assertion:
            # The test found its premise broken; the fake's complaint (a request the
            # script did not allow) is the same break seen from the wire, the premise
            # law's to judge. Charging it here was a false FAIL of the law under test.
            outcome = Outcome.ERROR
        if outcome is not Outcome.ERROR:
            premise = None  # a TIMEOUT stands; only an ERROR carries its premise
        # A premise that failed as the manifest expects its law to: the known failure,
        # seen from another test. Expected, so one known bug keeps CI green; a premise law
        # that then passes its own tests is an XPASS, so the run cannot hide it.
        premise_expected = premise is not None and self._expects_failure(premise, Outcome.FAIL)
        longrepr = report_reason(report.longrepr)
        # an ERROR keeps its traceback (it is the only evidence); a FAIL its assertion
        detail = {Outcome.PASS: "", Outcome.ERROR: longrepr[-4000:]}.get(
            outcome, clipped_failure(longrepr)
        )
        message = failure_message(excinfo) if outcome is not Outcome.PASS else ""
        if refused is not None and outcome is Outcome.FAIL:
            detail, message = f"E   {refused}\n{detail}", refused
        detail = self.scrub(detail)  # records are read back (repro files, the report)
        message = self.scrub(message)
        made = tuple(
            TestRecord(
                law=law_id,
                test=test_id,
                outcome=(
                    Outcome.XFAIL
                    if premise_expected or self._expects_failure(law_id, outcome)
                    else outcome
                ),
                duration=report.duration,
                detail=detail,
                premise=premise,
                information=tuple(
                    self.scrub(str(value))
                    for name, value in getattr(report, "user_properties", ())
                    if name == INFORMATION
                ),
            )
            for law_id in laws
        )
        self.receive(nodeid, [(record, message) for record in made])
        expected = premise_expected or (
            outcome is Outcome.FAIL and all(self._expects_failure(i, outcome) for i in laws)
        )
        return Judgment(outcome, tuple(laws), expected, premise, made)

    def receive(self, nodeid: str, records: Sequence[tuple[TestRecord, str]]) -> None:
        """Keep and write records judged here or, under xdist, by a worker: each with its
        failure's message whole ("" for none). The test counts as reported under the id
        its records carry (the worker's, which knew the item)."""
        self.reported.add(records[0][0].test if records else self.test_id(nodeid))
        for record, message in records:
            self.by_law[record.law].append(record)
            if message:
                self.messages[record] = message
            self.records += 1
            self._write(record)

    def learn_ids(self, ids: Mapping[str, str]) -> None:
        """pytest's node ids -> the ids the run's artifacts write (node_ids.py)."""
        self.ids.update(ids)

    def test_id(self, nodeid: str) -> str:
        """The id a test's records and reports carry: `conformance/laws/...::...`."""
        return self.ids.get(nodeid) or normalized(nodeid)

    def laws_of(self, nodeid: str) -> tuple[str, ...]:
        """The laws a selected test checks, by pytest's node id or the artifacts' id."""
        return self.selected.get(self.test_id(nodeid)) or self.selected.get(nodeid) or ()

    def _expects_failure(self, law_id: str, outcome: Outcome) -> bool:
        """Only a FAIL is ever expected: an ERROR or TIMEOUT is not a state of the runtime."""
        entry = self.expected.get(law_id)
        return outcome is Outcome.FAIL and entry is not None and entry.outcome is Outcome.FAIL

    def per_law(self) -> dict[str, Outcome]:
        return law_outcomes(self.all_records(), self.expected)

    def unjudged(self) -> list[str]:
        """Laws a selected test checks that no record judged (the run stopped, a test never
        ran, or a multi-law test stopped at another law's failure and no other test of
        theirs ran)."""
        owed = {law_id for laws in self.selected.values() for law_id in laws}
        return sorted(owed - set(self.by_law))

    def not_run(self) -> list[str]:
        """Selected law tests that never reported."""
        return [nodeid for nodeid in self.selected if nodeid not in self.reported]

    def problems(self) -> list[str]:
        """What the manifest got wrong: unexpected passes and stale entries."""
        return manifest_problems(self.per_law(), self.expected, self.unjudged())

    def red_reasons(self) -> list[str]:
        """Why the run is red, from the per-law verdicts; empty: green."""
        return red_reasons(
            self.per_law(),
            self.problems(),
            self.unjudged(),
            self.not_run(),
            self.expected,
            self.all_records(),
        )

    def all_records(self) -> list[TestRecord]:
        """Every record of the run, law by law."""
        return [record for records in self.by_law.values() for record in records]

    def root_causes(self) -> dict[str, list[str]]:
        """law id -> the laws it rests on that failed too (see consequences.py)."""
        return root_causes(self.per_law(), self.all_records())

    def totals(self) -> dict[Outcome, int]:
        counts = dict.fromkeys(Outcome, 0)
        for outcome in self.per_law().values():
            counts[outcome] += 1
        return counts

    def matrix(self) -> str:
        """The table the terminal ends with (summary.py), scrubbed."""
        return self._text(terminal_table(self))

    def finish(self) -> list[str]:
        """Write the footer and the Markdown report; the reasons the run is red."""
        reasons = self.red_reasons()
        self._open_results()
        if self._results is not None:
            self._write(
                ResultsFooter(
                    records=self.records,
                    totals=self.totals(),
                    problems=self.problems(),
                    unjudged=self.unjudged(),
                    not_run=self.not_run(),
                    verdict="red" if reasons else "green",
                )
            )
            self._results.close()
            self._results = None
            self._results_path = None  # written whole
        if self.report_md is not None:
            self.report_md.parent.mkdir(parents=True, exist_ok=True)
            self.report_md.write_text(self.markdown(), encoding="utf-8")
        return reasons

    def score(self) -> str:
        """The MUST score, as the terminal and the Markdown report both say it."""
        return must_score(self.per_law())

    def markdown(self) -> str:
        """`--report-md` (summary.py), scrubbed."""
        return self._text(markdown_report(self))

    def _text(self, text: str) -> str:
        """A report's text as written: scrubbed, and writable as UTF-8."""
        return _clean_text(self.scrub(text))

    def _line(self, model: BaseModel) -> str:
        """One results-file line: the model as JSON, every string writable. A header's or
        footer's strings are scrubbed too (names, notes, manifest reasons); a record's
        only free text, its detail, was scrubbed when it was made, and its law and test
        ids are the suite's own."""
        text = _clean_text if isinstance(model, TestRecord) else self._text
        return json.dumps(_clean(model.model_dump(mode="json"), text)) + "\n"


def failure_message(excinfo: Any) -> str:
    """What the failed check said: an assertion's message (with pytest's explanation of
    the compared values), a `pytest.fail`'s reason, or any other error's type and text
    (a fake's refusal the runtime raised as its own error). Empty without an error."""
    error = getattr(excinfo, "value", None)
    if not isinstance(error, BaseException):
        return ""
    if isinstance(error, pytest.fail.Exception):
        return str(error.msg)
    if isinstance(error, AssertionError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _unchanged(text: str) -> str:
    return text


def _clean_text(text: str) -> str:
    """A string as UTF-8 can carry it: a lone surrogate (an escape a JavaScript runtime
    emits, read back by Python) becomes U+FFFD instead of an artifact no reader accepts."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _clean(value: Any, text: Callable[[str], str] = _clean_text) -> Any:
    """Every string in a JSON-ready value (keys too) passed through `text`."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {_clean(k, text): _clean(v, text) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v, text) for v in value]
    return value
