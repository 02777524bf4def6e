"""The results reader and `python -m conformance report` against generated and damaged
results files.

`report` may exit 0 only on a file that is one whole, consistent, green run. Whether a
file is one is decided here by `whole_green_run`, written from the format's documented
rules (docs/suite.md) independently of the reader: a 0 on any other file is a false
green. Every file either reads (exit 0, 1 or 2) or is refused with `ResultsFileError`
(exit 3, one line on stderr); anything else is a bug.

Targets: JSON lines generated from the format's parts (some whole runs, green and red,
most not), and edits of real results files (a nested run of the suite): lines removed,
duplicated, moved or replaced, fields changed, bytes flipped, inserted or cut.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import conformance.runner.plugin  # noqa: F401  (kept imported across the nested runs)
import reference_impl.adapter  # noqa: F401
from conformance import verdicts as outcomes
from conformance.__main__ import main as conformance_cli
from conformance._unicode_text import unicode_text
from conformance.registry import load_laws
from conformance.verdicts import Expectation, Outcome, ResultsFileError, read_results
from tests.harness.results_files import GREEN_RUN, RED_RUN, real_results, results_lines
from tests.hostile.budget import TALLY, fuzz_settings, judged

GENERATED = "runner.report (generated JSONL)"
EDITED = "runner.report (edits of real results files)"

SEVERITY = ["ERROR", "TIMEOUT", "FAIL", "XPASS", "XFAIL", "PASS", "NOT_APPLICABLE"]
LAWS = sorted(load_laws())


def whole_green_run(data: bytes) -> bool:
    """Is this one whole, consistent, green run? The format's rules, restated: UTF-8 JSON
    lines; a header first, a footer last, test records between; every law known; an
    XFAIL only for a law whose entry expects FAIL (whose FAIL is always an XFAIL); a
    law's outcome is its worst test's, XPASS for an expected failure that passed; green
    when some law was judged, none is FAIL, ERROR, TIMEOUT or XPASS, every entry got the
    outcome it names, nothing is unjudged or unrun, and the footer's counts agree."""
    try:
        lines = [json.loads(line) for line in data.decode("utf-8").split("\n") if line.strip()]
    except ValueError:
        return False
    if len(lines) < 3 or not all(isinstance(line, dict) for line in lines):
        return False
    header, *records, footer = lines
    if header.get("type") != "header" or footer.get("type") != "footer":
        return False
    entries = header.get("expectations", {})
    if not isinstance(entries, dict) or not all(isinstance(e, dict) for e in entries.values()):
        return False
    expected = {law: entry.get("outcome") for law, entry in entries.items()}
    if any(law not in LAWS or o not in ("FAIL", "NOT_APPLICABLE") for law, o in expected.items()):
        return False
    per_law: dict[str, list[str]] = {}
    for record in records:
        law, outcome = record.get("law"), record.get("outcome")
        if record.get("type") != "test" or law not in LAWS or outcome not in SEVERITY:
            return False
        if outcome == "XPASS" or (outcome == "XFAIL") != (
            expected.get(law) == "FAIL" and outcome in ("FAIL", "XFAIL")
        ):
            return False
        per_law.setdefault(law, []).append(outcome)
    verdicts = {law: min(outcomes, key=SEVERITY.index) for law, outcomes in per_law.items()}
    verdicts = {
        law: "XPASS" if v == "PASS" and expected.get(law) == "FAIL" else v
        for law, v in verdicts.items()
    }
    if any(v in ("FAIL", "ERROR", "TIMEOUT", "XPASS") for v in verdicts.values()):
        return False
    wanted = {"FAIL": "XFAIL", "NOT_APPLICABLE": "NOT_APPLICABLE"}
    if any(verdicts.get(law) != wanted[o] for law, o in expected.items()):
        return False
    totals = Counter(verdicts.values())
    return (
        footer.get("records") == len(records)
        and footer.get("totals") == {o: totals.get(o, 0) for o in SEVERITY}
        and not footer.get("problems")
        and not footer.get("unjudged")
        and not footer.get("not_run")
        and footer.get("verdict") == "green"
    )


def judge(target: str, path: Path, data: bytes) -> int:
    """Report on one file: its exit status, checked against the file."""
    path.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    unreadable = False
    with judged(target, typed=(ResultsFileError,)):
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = conformance_cli(["report", str(path)])
        try:
            read_results(path)
        except ResultsFileError:
            unreadable = True
            raise
    if code == 0 and not whole_green_run(data):
        TALLY.add(target, "false_green")
        pytest.fail(f"report said green on a file that is not a whole green run:\n{data!r}")
    assert code in (0, 1, 2, 3), code
    assert (code == 3) == unreadable, (code, err.getvalue())
    if code in (2, 3):
        assert len(err.getvalue().splitlines()) == 1, err.getvalue()
        assert "Traceback" not in err.getvalue()
    return code


# --- generated files -------------------------------------------------------------------

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | unicode_text(max_size=8)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(unicode_text(max_size=6), inner),
    max_leaves=5,
)
OUTCOME_NAMES = st.sampled_from(SEVERITY)
RECORDS = st.builds(
    outcomes.TestRecord,
    law=st.sampled_from(LAWS[:6]),
    test=st.sampled_from(["t1", "t2", "t3"]),
    outcome=st.sampled_from(list(Outcome)),
    duration=st.floats(0, 10),
    detail=unicode_text(max_size=8),
)
ENTRIES = st.dictionaries(
    st.sampled_from(LAWS[:6]),
    st.builds(
        Expectation,
        outcome=st.sampled_from([Outcome.FAIL, Outcome.NOT_APPLICABLE]),
        reason=st.just("known"),
    ),
    max_size=2,
)


@st.composite
def whole_runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A whole, consistent run as the runner writes it (green or red), records drawn so
    that they are ones the runner could write under its entries."""
    entries = draw(ENTRIES)
    records = []
    for record in draw(st.lists(RECORDS, max_size=6)):
        entry = entries.get(record.law)
        expects_failure = entry is not None and entry.outcome is Outcome.FAIL
        outcome = record.outcome
        if outcome is Outcome.XPASS or (outcome is Outcome.XFAIL and not expects_failure):
            outcome = Outcome.PASS
        if outcome is Outcome.FAIL and expects_failure:
            outcome = Outcome.XFAIL
        records.append(record.model_copy(update={"outcome": outcome}))
    unjudged = draw(st.lists(st.sampled_from(LAWS[6:9]), max_size=1, unique=True))
    return results_lines(records, expectations=entries, unjudged=unjudged)


@st.composite
def line_soup(draw: st.DrawFn) -> list[Any]:
    """Lines from the format's parts in any order and number, with any values."""
    parts = st.one_of(
        st.builds(
            lambda d: {"type": "header", **d},
            st.dictionaries(unicode_text(max_size=6), JSON_VALUES, max_size=3),
        ),
        st.fixed_dictionaries(
            {"type": st.just("test"), "law": st.sampled_from(LAWS) | unicode_text(max_size=6)},
            optional={
                "test": JSON_VALUES,
                "outcome": OUTCOME_NAMES | JSON_VALUES,
                "duration": JSON_VALUES,
                "detail": JSON_VALUES,
            },
        ),
        st.fixed_dictionaries(
            {"type": st.just("footer")},
            optional={
                "records": st.integers(-1, 5) | JSON_VALUES,
                "totals": st.dictionaries(OUTCOME_NAMES, st.integers(0, 3)) | JSON_VALUES,
                "problems": JSON_VALUES,
                "unjudged": JSON_VALUES,
                "not_run": JSON_VALUES,
                "verdict": st.sampled_from(["green", "red"]) | JSON_VALUES,
            },
        ),
        JSON_VALUES,
    )
    return draw(st.lists(parts, max_size=6))


@st.composite
def generated_file(draw: st.DrawFn) -> bytes:
    lines: list[Any] = draw(whole_runs() if draw(st.booleans()) else line_soup())
    if draw(st.integers(0, 3)) == 0 and lines:  # one part of a whole run replaced
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = draw(JSON_VALUES)
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@fuzz_settings()
@given(data=generated_file())
def test_generated_results_files_are_green_only_when_whole_and_green(
    tmp_path: Path, data: bytes
) -> None:
    judge(GENERATED, tmp_path / "results.jsonl", data)


@fuzz_settings(scale=0.25)
@given(lines=whole_runs())
def test_a_whole_run_reads_back_with_the_verdict_it_was_written_with(
    tmp_path: Path, lines: list[dict[str, Any]]
) -> None:
    """The other way round: a whole run is never damaged in the reading (no false red),
    and the restated rules above agree with the reader on it."""
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    code = judge(GENERATED, tmp_path / "results.jsonl", data)
    assert code == (0 if lines[-1]["verdict"] == "green" else 1)
    assert whole_green_run(data) == (code == 0)


# --- edits of real results files -------------------------------------------------------


@st.composite
def edited(draw: st.DrawFn, bases: list[bytes]) -> bytes:
    """A real results file with one to three edits, by line or by byte."""
    base = draw(st.sampled_from(bases))
    lines = base.decode().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        match draw(st.sampled_from(["drop", "copy", "move", "field", "replace", "blank"])):
            case "drop":
                del lines[at]
            case "copy":
                lines.insert(draw(st.integers(0, len(lines))), lines[at])
            case "move":
                line = lines.pop(at)
                lines.insert(draw(st.integers(0, len(lines))), line)
            case "field":
                lines[at] = draw(changed_field(lines[at]))
            case "replace":
                lines[at] = json.dumps(draw(JSON_VALUES)) + "\n"
            case "blank":
                lines.insert(at, "\n")
    data = bytearray("".join(lines).encode())
    if data and draw(st.integers(0, 2)) == 0:
        at = draw(st.integers(0, len(data) - 1))
        match draw(st.sampled_from(["flip", "insert", "cut"])):
            case "flip":
                data[at] ^= draw(st.integers(1, 255))
            case "insert":
                data[at:at] = draw(st.binary(min_size=1, max_size=6))
            case "cut":
                del data[at:]
    return bytes(data)


@st.composite
def changed_field(draw: st.DrawFn, line: str) -> str:
    """One field of a line set to another plausible value, or to any JSON value."""
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict) or not record:
        return line
    key = draw(st.sampled_from(sorted(record)))
    plausible = {
        "outcome": OUTCOME_NAMES,
        "law": st.sampled_from(LAWS) | st.just("no-such.law"),
        "records": st.integers(0, 12),
        "verdict": st.sampled_from(["green", "red"]),
        "totals": st.dictionaries(OUTCOME_NAMES, st.integers(0, 3)),
        "type": st.sampled_from(["header", "test", "footer", "other"]),
        "unjudged": st.just([]),
        "problems": st.just([]),
        "expectations": st.just({}),
    }.get(key, JSON_VALUES)
    record[key] = draw(plausible | JSON_VALUES)
    return json.dumps(record) + "\n"


def test_edited_real_results_files_are_never_green_unless_whole_and_green(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bases = ["".join(real_results(pytester, run)).encode() for run in (GREEN_RUN, RED_RUN)]
    path = tmp_path / "results.jsonl"
    assert [judge(EDITED, path, base) for base in bases] == [0, 1]

    @fuzz_settings()
    @given(data=edited(bases))
    def check(data: bytes) -> None:
        judge(EDITED, path, data)

    check()
