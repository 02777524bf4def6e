"""Results files for tests that read them: whole and consistent, as the runner writes
them (the same models, and the footer computed by the same rule), from records given."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance import __version__
from conformance.verdicts import (
    Expectation,
    Outcome,
    ResultsFooter,
    ResultsHeader,
    TestRecord,
    law_outcomes,
    manifest_problems,
    red_reasons,
)
from tests.suite_args import PLUGIN_ARGS


def results_lines(
    records: Sequence[TestRecord],
    *,
    expectations: Mapping[str, Expectation] | None = None,
    unjudged: Sequence[str] = (),
    not_run: Sequence[str] = (),
    footer: bool = True,
    **header: Any,
) -> list[dict[str, Any]]:
    """The lines of a results file holding `records`, as JSON-ready dicts."""
    expected = dict(expectations or {})
    fields: dict[str, Any] = {
        "suite_version": __version__,
        "implementation": "test",
        "capabilities": [],
        "started": "2026-01-01T00:00:00Z",
        **header,
    }
    lines: list[dict[str, Any]] = [
        ResultsHeader(expectations=expected, **fields).model_dump(mode="json"),
        *(record.model_dump(mode="json") for record in records),
    ]
    if footer:
        outcomes = law_outcomes(records, expected)
        problems = manifest_problems(outcomes, expected, unjudged)
        totals = dict.fromkeys(Outcome, 0)
        for outcome in outcomes.values():
            totals[outcome] += 1
        red = red_reasons(outcomes, problems, unjudged, not_run, expected, records)
        lines.append(
            ResultsFooter(
                records=len(records),
                totals=totals,
                problems=problems,
                unjudged=list(unjudged),
                not_run=list(not_run),
                verdict="red" if red else "green",
            ).model_dump(mode="json")
        )
    return lines


def write_results(path: Path, records: Sequence[TestRecord], **options: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = results_lines(records, **options)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def record(
    law: str, outcome: str, test: str = "t", detail: str = "", duration: float = 0.1
) -> TestRecord:
    return TestRecord(
        law=law, test=test, outcome=Outcome(outcome), duration=duration, detail=detail
    )


GREEN_RUN = ("tests.harness.faulty_adapters:chat_only", "one_turn or only_its_own")
"""The smoke law and run.no-history against the reference, Chat Completions only: green."""
RED_RUN = ("tests.rogues.gallery:run_carries_previous", "one_turn or only_its_own")
"""The same slice against a rogue whose runs carry the previous one: run.no-history FAILs."""
_REAL: dict[tuple[str, str], list[str]] = {}


def real_results(pytester: Any, run: tuple[str, str]) -> list[str]:
    """The lines of the results file a real (nested) run of the suite writes; run once per
    process and kept, since many tests edit copies of it."""
    if run not in _REAL:
        impl, selection = run
        path = pytester.path / "real-results.jsonl"
        pytester.makeini("[pytest]\nasyncio_mode = auto\n")
        pytester.runpytest(
            *PLUGIN_ARGS,
            "--dialects",
            "openai-chat",
            "--impl",
            impl,
            "--results",
            str(path),
            "-k",
            selection,
            "--pyargs",
            "conformance.laws.test_smoke",
            "conformance.laws.test_run",
        )
        _REAL[run] = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return list(_REAL[run])
