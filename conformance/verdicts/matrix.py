"""docs/conformance-matrix.md: every law against every implementation, from fresh runs.

A run's results file (`--results build/conformance/<column>.jsonl`) becomes one column:
the law's outcome (an expected failure is shown as FAIL with its manifest's reason), and
why. Columns are committed as small JSON files beside the doc, because a results file
holds timings and timestamps that differ on every run while a column must not; the doc
and the README's summary block are rendered from the committed columns.

`python -m conformance matrix --results FILE...` writes the columns and the doc;
`--check` instead compares a fresh run's column with the committed one (and the doc with
its columns) and fails with a diff and the command that regenerates them.
"""

from __future__ import annotations

import difflib
import json
from collections import defaultdict
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError

from ..registry import Level, load_laws
from ._capability_words import needed_capabilities
from ._consequences import consequence_note, known_premise_note, root_causes
from ._outcomes import NOT_APPLICABLE_PREFIX, UNJUDGING, Outcome, law_verdict
from ._results_file import ResultsFileError, read_results
from ._verdict import beside_note, tolerated

COLUMNS = {
    "reference": "nox -s conformance",
    "pydantic-ai": "nox -s thirdparty-pydantic_ai",
    "openai-agents": "nox -s thirdparty-openai_agents",
    "langgraph": "nox -s thirdparty-langgraph",
    "letta": "nox -s thirdparty-letta_code",
}
"""Column name -> the nox session whose run produces it (results file <column>.jsonl)."""

DOC = Path("docs/conformance-matrix.md")
COLUMN_DIR = Path("docs/conformance-matrix")
README = Path("README.md")
RESULTS_DIR = Path("build/conformance")
SUMMARY_START = "<!-- conformance-matrix summary: generated, do not edit -->"
SUMMARY_END = "<!-- /conformance-matrix summary -->"

Shown = Literal["PASS", "FAIL", "BLOCKED", "N/A", "ERROR", "TIMEOUT", "XPASS"]
"""BLOCKED: every test of the law that did not pass stopped on a premise whose law fails as
the manifest expects. The law was not judged there, so it is neither PASS nor this law's
FAIL: the knock-on is charged to the premise's law, which the reason names."""


class MatrixError(Exception):
    """A results file or a committed column cannot be used; the message says why."""


class Cell(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: Shown
    reason: str = ""


class Column(BaseModel):
    """One implementation's outcome per law: what the doc is rendered from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str
    implementation: str
    version: str | None = None
    notes: list[str] = []
    information: list[str] = []
    """What the run learned about details the seed never fixed (how its host's wire says
    each outcome): listed beside the column, outside its score."""
    laws: dict[str, Cell]

    def title(self) -> str:
        return f"{self.implementation} {self.version}" if self.version else self.implementation

    def summary(self) -> str:
        counts = {shown: 0 for shown in get_args(Shown)}
        for cell in self.laws.values():
            counts[cell.outcome] += 1
        laws = load_laws()
        must = [c for i, c in self.laws.items() if laws[i].level is Level.MUST]
        applicable = [c for c in must if c.outcome != "N/A"]
        passed = sum(c.outcome == "PASS" for c in applicable)
        shown = ", ".join(f"{n} {name}" for name, n in counts.items() if n)
        return f"{self.title()}: {shown}; MUST laws {passed}/{len(applicable)} pass"


def column_name(results: Path) -> str:
    """The column a results file fills: its stem, one of COLUMNS."""
    if results.stem not in COLUMNS:
        raise MatrixError(
            f"{results}: name the results file after its column ({', '.join(COLUMNS)}), "
            f"e.g. {RESULTS_DIR}/pydantic-ai.jsonl"
        )
    return results.stem


def column_from_results(results: Path) -> Column:
    """A results file -> its column: the worst outcome per law, and the reason shown."""
    if not results.exists():
        raise MatrixError(f"{results}: no such results file; run {COLUMNS.get(results.stem)}")
    name = column_name(results)
    try:
        run = read_results(results)
    except ResultsFileError as error:
        raise MatrixError(f"{results}: not a turnlaw results file: {error}") from error
    if run.truncated or not run.header:
        raise MatrixError(f"{results}: the run did not finish (no footer); run it again")
    if run.inconsistencies():
        raise MatrixError(f"{results}: not one whole run: {'; '.join(run.inconsistencies())}")
    expectations = run.header.get("expectations", {})
    by_law = defaultdict(list)
    for record in run.records:
        by_law[record.law].append(record)
    cells: dict[str, Cell] = {}
    # a known-intermittent failure is the same cell whether this run failed it or not
    known = {
        law_id: Outcome.XFAIL if tolerated(run.expectations, law_id) else outcome
        for law_id, outcome in run.per_law().items()
    }
    causes = root_causes(known, run.records)
    for law_id in load_laws():
        records = by_law.get(law_id)
        if not records:
            continue
        outcome = law_verdict(records)
        shown = next(
            (r for r in records if r.outcome is outcome and r.premise is None),
            next(r for r in records if r.outcome is outcome),
        )
        reason = expectations.get(law_id, {}).get("reason", "")
        if outcome is Outcome.PASS and tolerated(run.expectations, law_id):
            outcome = Outcome.XFAIL
        cell = _cell(outcome, shown.detail, reason)
        if shown.premise is not None and outcome is Outcome.XFAIL:
            premise_reason = expectations.get(shown.premise, {}).get("reason", "")
            cell = Cell(outcome="BLOCKED", reason=known_premise_note(shown.premise, premise_reason))
        if shown.premise is not None and outcome is Outcome.ERROR:
            said = [line for line in shown.detail.splitlines() if "premise not met:" in line]
            said_line = said[-1] if said else f"premise not met: {shown.premise}"
            cell = Cell(outcome="ERROR", reason=said_line[said_line.index("premise not met:") :])
        note = consequence_note(causes.get(law_id, []))
        if note:
            cell = Cell(
                outcome=cell.outcome, reason=f"{note}: {cell.reason}" if cell.reason else note
            )
        unjudging = [r for r in records if r.outcome in UNJUDGING and outcome not in UNJUDGING]
        if unjudging:
            beside = beside_note(unjudging)
            reason = f"{cell.reason}; {beside}" if cell.reason else beside
            cell = Cell(outcome=cell.outcome, reason=reason)
        cells[law_id] = cell
    return Column(
        column=name,
        implementation=str(run.header.get("implementation", name)),
        version=run.header.get("implementation_version"),
        notes=list(run.header.get("implementation_notes", [])),
        information=sorted({said for record in run.records for said in record.information}),
        laws=cells,
    )


def _cell(outcome: Outcome, detail: str, expected_reason: str) -> Cell:
    first_line = next((line.strip() for line in detail.splitlines() if line.strip()), "")
    if outcome is Outcome.PASS:
        return Cell(outcome="PASS")
    if outcome is Outcome.NOT_APPLICABLE:
        said = first_line.partition(NOT_APPLICABLE_PREFIX)[2].rstrip("')\"")
        # a column keeps the capabilities as data ("needs a, b"): the doc words them
        needs = needed_capabilities(said)
        return Cell(outcome="N/A", reason=f"needs {', '.join(needs)}" if needs else said)
    if outcome is Outcome.XFAIL:
        return Cell(outcome="FAIL", reason=expected_reason)
    if outcome is Outcome.XPASS:
        return Cell(outcome="XPASS", reason=f"passes, but the manifest expects: {expected_reason}")
    if outcome is Outcome.FAIL:
        return Cell(
            outcome="FAIL", reason=f"not in the manifest: {first_line.removeprefix('E').strip()}"
        )
    return Cell(outcome=outcome.value, reason=first_line)  # type: ignore[arg-type]


def load_column(path: Path) -> Column:
    try:
        return Column.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as error:
        raise MatrixError(f"{path}: not a matrix column: {error}") from error


def column_text(column: Column) -> str:
    """The committed column: `information` only when the run learned any."""
    return (
        json.dumps(
            column.model_dump(
                mode="json", exclude={"information"} if not column.information else None
            ),
            indent=2,
        )
        + "\n"
    )


def committed_columns(folder: Path) -> dict[str, Column]:
    found = {path.stem: load_column(path) for path in sorted(folder.glob("*.json"))}
    unknown = sorted(set(found) - set(COLUMNS))
    if unknown:
        raise MatrixError(f"{folder}: unknown columns {unknown}; known: {', '.join(COLUMNS)}")
    return found


def summary_lines(columns: dict[str, Column]) -> list[str]:
    return [
        f"- **{name}** — {columns[name].summary()}"
        if name in columns
        else f"- **{name}** — not run yet (`{COLUMNS[name]}`)"
        for name in COLUMNS
    ]


def render(columns: dict[str, Column]) -> str:
    """The whole doc, from the committed columns; deterministic."""
    laws = load_laws()
    lines = [
        "# Conformance matrix",
        "",
        "<!-- Generated by `python -m conformance matrix` from fresh runs; do not edit. -->",
        "",
        "Every law of [laws.md](laws.md) against the bundled reference and three popular",
        "Python agent frameworks, each judged on what the fake provider recorded. FAIL means",
        "the implementation broke the law on the wire (an expected failure is listed in its",
        "manifest, `expectations/<name>.toml`, and shown here as FAIL with the manifest's",
        "reason); BLOCKED means the law could not be judged because a law its tests cannot",
        "be judged without fails, as the manifest expects (the cell names that law: the",
        "failure is charged to it, not to this one); N/A means the implementation does not",
        "have the capability the law needs;",
        "— means the law has no tests yet. Each adapter's docstring",
        "(`conformance/adapters/`) says how the framework's API was mapped and why.",
        "",
        *summary_lines(columns),
        "",
        "| law | level | " + " | ".join(COLUMNS) + " |",
        "|---|---|" + "---|" * len(COLUMNS),
    ]
    for law_id, law in laws.items():
        if law.retired:
            continue
        cells = [_shown(columns.get(name), law_id) for name in COLUMNS]
        lines.append(f"| `{law_id}` | {law.level.value} | " + " | ".join(cells) + " |")
    for name in COLUMNS:
        column = columns.get(name)
        if column is None:
            continue
        failing = [(i, c) for i, c in column.laws.items() if c.outcome not in ("PASS", "N/A")]
        missing = sorted(
            {
                capability
                for cell in column.laws.values()
                if cell.outcome == "N/A" and cell.reason.startswith("needs ")
                for capability in cell.reason.removeprefix("needs ").split(", ")
            }
        )
        lines += ["", f"## {name}: {column.title()}", ""]
        lines += [f"- note: {_md(note)}" for note in column.notes]
        lines += [f"- information (not scored): {_md(said)}" for said in column.information]
        lines += [f"- `{law_id}` **{c.outcome}**: {_md(c.reason)}" for law_id, c in failing]
        if not failing:
            lines.append("- no law fails.")
        if missing:
            lines.append(f"- N/A: those laws need what it does not declare: {', '.join(missing)}.")
        lines.append(f"- regenerate: `{COLUMNS[name]}` then `{regenerate_command(name)}`")
    return "\n".join(lines) + "\n"


def _shown(column: Column | None, law_id: str) -> str:
    if column is None:
        return "not run"
    cell = column.laws.get(law_id)
    return "—" if cell is None else cell.outcome


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def regenerate_command(name: str) -> str:
    return f"python -m conformance matrix --results {RESULTS_DIR / name}.jsonl"


def with_summary(readme: str, columns: dict[str, Column]) -> str:
    """README text with its generated summary block replaced (it must have one)."""
    start, end = readme.find(SUMMARY_START), readme.find(SUMMARY_END)
    if start < 0 or end < start:
        raise MatrixError(f"README has no summary block ({SUMMARY_START} ... {SUMMARY_END})")
    block = "\n".join([SUMMARY_START, *summary_lines(columns), ""])
    return readme[:start] + block + readme[end:]


def _diff(expected: str, actual: str, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            f"{name} (committed)",
            f"{name} (fresh)",
        )
    )


def write(results: list[Path], *, doc: Path, folder: Path, readme: Path | None) -> list[Path]:
    """Write each results file's column, then the doc and the README block; the paths."""
    fresh = [column_from_results(path) for path in results]
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for column in fresh:
        path = folder / f"{column.column}.json"
        path.write_text(column_text(column), encoding="utf-8")
        written.append(path)
    columns = committed_columns(folder)
    doc.write_text(render(columns), encoding="utf-8")
    written.append(doc)
    if readme is not None:
        readme.write_text(with_summary(readme.read_text(encoding="utf-8"), columns), "utf-8")
        written.append(readme)
    return written


def check(results: list[Path], *, doc: Path, folder: Path, readme: Path | None) -> list[str]:
    """What is out of date, each with its diff and the command that fixes it."""
    problems = []
    for path in results:
        column = column_from_results(path)
        committed = folder / f"{column.column}.json"
        old = committed.read_text(encoding="utf-8") if committed.exists() else ""
        new = column_text(column)
        if old != new:
            problems.append(
                f"the {column.column} column changed (or is new): a fresh run does not match "
                f"{committed}.\n{_diff(old, new, str(committed))}"
                f"If the change is intended (and its manifest agrees), regenerate: "
                f"{regenerate_command(column.column)}"
            )
    columns = committed_columns(folder)
    targets = [(doc, render(columns))]
    if readme is not None:
        text = readme.read_text(encoding="utf-8")
        targets.append((readme, with_summary(text, columns)))
    for path, expected in targets:
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != expected:
            problems.append(
                f"{path} is not what its columns render.\n{_diff(current, expected, str(path))}"
                f"Regenerate: python -m conformance matrix"
            )
    return problems
