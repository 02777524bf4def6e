"""Collecting per-law outcomes during a run, and reporting them.

The results file is JSON lines: a header (suite version, implementation, capabilities,
seed, start time), one record per test and law, and a footer with totals. A file
without a footer is a truncated run, and `read_results` says so.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections import defaultdict
from collections.abc import Container, Iterable
from pathlib import Path
from typing import IO, Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from .. import __version__
from ..adapter import Implementation
from ..registry import Level, load_laws
from ..stdio.errors import AdapterTimeout as ReplyTimeout
from .guard import AdapterTimeout
from .outcomes import Outcome, TestRecord, blamed_law, classify, worst
from .pins import check_pin


class Expectation(BaseModel):
    """One manifest entry: the outcome a known-nonconforming runtime is expected to get."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: Outcome
    reason: str
    link: str | None = None


def load_expectations(path: Path) -> dict[str, Expectation]:
    """`[law."run.no-history"] outcome = "FAIL" reason = "..."` -> entries by law id."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        entries = {k: Expectation.model_validate(v) for k, v in data.get("law", {}).items()}
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as error:
        raise pytest.UsageError(f"--expectations {path}: {error}") from error
    check_pin(path, data)
    unknown = sorted(set(entries) - set(load_laws()))
    if unknown:
        raise pytest.UsageError(f"--expectations {path}: unknown law ids {unknown}")
    return entries


class Collector:
    def __init__(
        self,
        implementation: Implementation,
        *,
        results: Path | None,
        report_md: Path | None,
        expectations: Path | None,
        seed: str,
    ) -> None:
        self.implementation = implementation
        self.expected = load_expectations(expectations) if expectations else {}
        self.by_law: dict[str, list[TestRecord]] = defaultdict(list)
        self.report_md = report_md
        self.adapter_broken = False
        self._results: IO[str] | None = None
        if results is not None:
            results.parent.mkdir(parents=True, exist_ok=True)
            self._results = results.open("w", encoding="utf-8")
            self._write(
                {
                    "type": "header",
                    "suite": "turnlaw",
                    "suite_version": __version__,
                    "implementation": implementation.name,
                    # optional on an Implementation: the framework release under test
                    "implementation_version": getattr(implementation, "version", None),
                    "implementation_notes": list(getattr(implementation, "notes", ())),
                    "capabilities": sorted(str(c) for c in implementation.capabilities),
                    "expectations": {
                        law_id: e.model_dump(mode="json") for law_id, e in self.expected.items()
                    },
                    "seed": seed,
                    "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            )

    @property
    def seen(self) -> bool:
        return bool(self.by_law)

    def _write(self, record: dict[str, Any]) -> None:
        if self._results is not None:
            self._results.write(json.dumps(record) + "\n")
            self._results.flush()  # a killed run leaves every finished record behind

    def add(
        self, nodeid: str, laws: list[str], report: Any, call: Any, wire_broken: bool = False
    ) -> None:
        """Record one phase's report; setup and teardown only count when they went wrong."""
        if report.when != "call" and not (report.failed or report.skipped):
            return
        excinfo = getattr(call, "excinfo", None)
        is_assertion = excinfo is not None and excinfo.errisinstance(
            (AssertionError, pytest.fail.Exception)
        )
        timed_out = excinfo is not None and excinfo.errisinstance((AdapterTimeout, ReplyTimeout))
        outcome = classify(
            report.when,
            report.failed,
            report.skipped,
            str(report.longrepr or ""),
            is_assertion,
            wire_broken,
            timed_out=timed_out,
        )
        blamed = blamed_law(excinfo.value, laws) if excinfo is not None else None
        if outcome is Outcome.FAIL and blamed is not None:
            laws = [blamed]  # the failure named its law: only that one is charged
        longrepr = str(report.longrepr or "")
        # an ERROR keeps its traceback (it is the only evidence); a FAIL its assertion
        detail = {Outcome.PASS: "", Outcome.ERROR: longrepr[-4000:]}.get(outcome, _short(longrepr))
        for law_id in laws:
            outcome_here = self._expect(law_id, outcome)
            record = TestRecord(
                law=law_id,
                test=nodeid,
                outcome=outcome_here,
                duration=report.duration,
                detail=detail,
            )
            self.by_law[law_id].append(record)
            self._write(record.model_dump(mode="json"))

    def _expect(self, law_id: str, outcome: Outcome) -> Outcome:
        expected = self.expected.get(law_id)
        if expected is None or outcome is Outcome.NOT_APPLICABLE:
            return outcome
        if outcome is expected.outcome:
            return Outcome.XFAIL
        return outcome

    def per_law(self) -> dict[str, Outcome]:
        return law_outcomes(
            (record for records in self.by_law.values() for record in records), self.expected
        )

    def problems(self) -> list[str]:
        """What fails the run beyond failing tests: unexpected passes and stale entries."""
        outcomes = self.per_law()
        found = [
            f"{law_id}: expected {e.outcome} ({e.reason}) but it passed: remove the entry"
            for law_id, e in self.expected.items()
            if outcomes.get(law_id) is Outcome.XPASS
        ]
        if not self.adapter_broken:
            found += [
                f"{law_id}: expectation never exercised (not run or not applicable): stale entry"
                for law_id in self.expected
                if outcomes.get(law_id) in (None, Outcome.NOT_APPLICABLE)
            ]
        return found

    def totals(self) -> dict[str, int]:
        counts = {o.value: 0 for o in Outcome}
        for outcome in self.per_law().values():
            counts[outcome.value] += 1
        return counts

    def matrix(self) -> str:
        laws = load_laws()
        outcomes = self.per_law()
        lines = ["", f"turnlaw conformance: {self.implementation.name}", ""]
        for law_id, entry in laws.items():
            if law_id in outcomes:
                lines.append(f"  {outcomes[law_id].value:<15} {entry.level.value:<6} {law_id}")
        scored = [o for i, o in outcomes.items() if laws[i].level is Level.MUST]
        passed = sum(o is Outcome.PASS for o in scored)
        expected = sum(o is Outcome.XFAIL for o in scored)
        applicable = sum(o is not Outcome.NOT_APPLICABLE for o in scored)
        lines.append("")
        lines.append(
            f"  MUST laws: {passed}/{applicable} pass"
            + (f", {expected} fail as the manifest expects" if expected else "")
            + " (not applicable laws are outside the score)"
        )
        if self.adapter_broken:
            lines.append("  adapter broken: the smoke law failed, so the run stopped")
        for problem in self.problems():
            lines.append(f"  expectation: {problem}")
        return "\n".join(lines) + "\n"

    def finish(self) -> list[str]:
        problems = self.problems()
        if self._results is not None:
            self._write({"type": "footer", "totals": self.totals(), "problems": problems})
            self._results.close()
            self._results = None
        if self.report_md is not None:
            self.report_md.parent.mkdir(parents=True, exist_ok=True)
            self.report_md.write_text(self.markdown(), encoding="utf-8")
        return problems

    def markdown(self) -> str:
        laws = load_laws()
        outcomes = self.per_law()
        rows = [
            f"# turnlaw conformance: {self.implementation.name}",
            "",
            "| law | level | outcome | detail |",
            "|---|---|---|---|",
        ]
        for law_id, entry in laws.items():
            if law_id not in outcomes:
                continue
            failing = [r for r in self.by_law[law_id] if r.outcome is outcomes[law_id]]
            detail = failing[0].detail.replace("|", "\\|").replace("\n", " ") if failing else ""
            reason = self.expected[law_id].reason if law_id in self.expected else ""
            rows.append(
                f"| `{law_id}` | {entry.level.value} | {outcomes[law_id].value} | "
                f"{reason or detail[:160]} |"
            )
        return "\n".join(rows) + "\n"


def _short(longrepr: str, head: int = 4, tail: int = 4) -> str:
    """A FAIL's evidence: the assertion's own message first, then the report's end.

    The message leads the `E` lines and Hypothesis' falsifying example closes them. The
    middle (a diff) is dropped here rather than by pytest, whose own truncation is off
    under CI: the record must read the same on a laptop and in CI.
    """
    lines = [line for line in longrepr.splitlines() if line.strip()]
    picked = [line for line in lines if line.lstrip().startswith("E ")] or lines
    if len(picked) <= head + tail:
        return "\n".join(picked)
    elided = f"E       ... {len(picked) - head - tail} lines elided (see pytest's own report)"
    return "\n".join([*picked[:head], elided, *picked[-tail:]])


class ResultsFile(BaseModel):
    """A results JSONL file read back: header, records, footer (None when truncated)."""

    header: dict[str, Any]
    records: list[TestRecord]
    footer: dict[str, Any] | None

    @property
    def truncated(self) -> bool:
        return self.footer is None

    def per_law(self) -> dict[str, Outcome]:
        return law_outcomes(self.records, self.header.get("expectations") or {})


def law_outcomes(records: Iterable[TestRecord], expected: Container[str]) -> dict[str, Outcome]:
    """Each law's outcome: its worst test's, and XPASS for an expected failure whose every
    test passed. One rule for the run as it goes and for its results file read back."""
    by_law: dict[str, list[Outcome]] = defaultdict(list)
    for record in records:
        by_law[record.law].append(record.outcome)
    found = {law_id: worst(outcomes) for law_id, outcomes in by_law.items()}
    return {
        law_id: Outcome.XPASS if law_id in expected and outcome is Outcome.PASS else outcome
        for law_id, outcome in found.items()
    }


def read_results(path: Path) -> ResultsFile:
    header: dict[str, Any] = {}
    records: list[TestRecord] = []
    footer: dict[str, Any] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        kind = record.get("type")
        if kind == "header":
            header = record
        elif kind == "footer":
            footer = record
        else:
            records.append(TestRecord.model_validate(record))
    return ResultsFile(header=header, records=records, footer=footer)
