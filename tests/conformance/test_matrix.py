"""docs/conformance-matrix.md from results files: columns, the doc, the README block, and
the check that keeps them in sync with a fresh run. No framework is needed: the results
files are written here the way the runner writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.__main__ import main
from conformance.verdicts import Expectation, Outcome, matrix
from conformance.verdicts import TestRecord as Record
from tests.harness.results_files import record, write_results

LAWS_RUN = {
    "smoke.one-turn": ["PASS"],
    "run.no-history": ["PASS", "PASS"],
    "mismatch.refuses-another-agents-conversation": ["XFAIL", "PASS"],
    "pending.refuses-new-message": ["NOT_APPLICABLE"],
}
REASON = "support continued billing's conversation: the fake saw billing's history"
README = f"# x\n\nbefore\n\n{matrix.SUMMARY_START}\nold\n{matrix.SUMMARY_END}\n\nafter\n"


def results_file(
    path: Path, outcomes: dict[str, list[str]], *, footer: bool = True, version: str = "2.68.0"
) -> Path:
    """A results file as the runner writes it, with run-specific noise that must not leak."""
    records = [
        record(
            law,
            outcome,
            test=f"t{n}",
            duration=0.123 * (n + 1),
            detail={
                "NOT_APPLICABLE": f"('x.py', 1, 'Skipped: NOT_APPLICABLE: {law} needs pause')",
                "FAIL": "E   AssertionError: run() carried an earlier conversation\nE   more",
                "XFAIL": "E   Failed: DID NOT RAISE Refused (port 54321)",
            }.get(outcome, ""),
        )
        for law, per_test in outcomes.items()
        for n, outcome in enumerate(per_test)
    ]
    return write_results(
        path,
        records,
        footer=footer,
        implementation="pydantic-ai",
        implementation_version=version,
        implementation_notes=["the adapter turned the framework's limiter on"],
        expectations={
            "mismatch.refuses-another-agents-conversation": Expectation(
                outcome=Outcome.FAIL, reason=REASON
            )
        },
        started="2026-11-30T06:00:00Z",
        seed="12345",
    )


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    readme = tmp_path / "README.md"
    readme.write_text(README, encoding="utf-8")
    return {"doc": tmp_path / "matrix.md", "folder": tmp_path / "columns", "readme": readme}


def test_a_column_shows_expected_failures_as_fail_with_the_manifest_reason(tmp_path: Path) -> None:
    column = matrix.column_from_results(results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN))
    assert column.version == "2.68.0"
    cells = {law: (c.outcome, c.reason) for law, c in column.laws.items()}
    assert cells == {
        "smoke.one-turn": ("PASS", ""),
        "run.no-history": ("PASS", ""),
        "mismatch.refuses-another-agents-conversation": ("FAIL", REASON),
        "pending.refuses-new-message": ("N/A", "needs pause"),
    }
    assert "pydantic-ai 2.68.0: 2 PASS, 1 FAIL, 1 N/A; MUST laws 2/3 pass" in column.summary()


@pytest.mark.parametrize("this_run", [["XFAIL", "PASS"], ["PASS", "PASS"]])
def test_a_known_intermittent_failure_shows_the_same_cell_whether_it_failed_or_not(
    tmp_path: Path, this_run: list[str]
) -> None:
    """A committed column is checked against each fresh run: a cell that followed the
    race (its outcome, or the root cause it is noted as a consequence of) would make
    `matrix --check` fail in every other run."""
    law, root = "connection.no-replay-reconcile", "session.resume-either-id"
    records = [record(law, outcome, test=f"t{n}") for n, outcome in enumerate(this_run)]
    records.append(record(root, "XFAIL", test="root"))

    def entries(intermittent: bool = False) -> dict[str, Expectation]:
        return {
            law: Expectation(outcome=Outcome.FAIL, reason=REASON, intermittent=intermittent),
            root: Expectation(outcome=Outcome.FAIL, reason="ids"),
        }

    path = write_results(
        tmp_path / "letta.jsonl",
        records,
        implementation="letta-code",
        expectations=entries(intermittent=True),
    )
    cell = matrix.column_from_results(path).laws[law]
    assert (cell.outcome, cell.reason) == ("FAIL", f"possibly a consequence of {root}: {REASON}")
    if "XFAIL" not in this_run:
        # the rogue: without the entry's word, this passing run's cell is another one
        plain = write_results(
            tmp_path / "plain" / "letta.jsonl",
            records,
            implementation="letta-code",
            expectations=entries(),
        )
        assert matrix.column_from_results(plain).laws[law].outcome == "PASS"


@pytest.mark.parametrize("own_failure", [False, True])
def test_a_law_stopped_only_by_a_known_failure_of_its_premise_is_blocked_not_failed(
    tmp_path: Path, own_failure: bool
) -> None:
    """A refusal-kind law cannot be judged when the refusal never came: the known failure
    is the premise law's, so the cell says BLOCKED and names it. A failure of the law's own
    beside it is still its FAIL."""
    law, root = "pending.refusal-kind", "pending.refuses-new-message"
    blocked = Record(
        law=law, test="t0", outcome=Outcome.XFAIL, duration=0.1, detail="E premise", premise=root
    )
    records = [blocked, record(root, "XFAIL", test="root")]
    if own_failure:
        records.append(record(law, "XFAIL", test="t1", detail="E   AssertionError: kind"))
    path = write_results(
        tmp_path / "langgraph.jsonl",
        records,
        implementation="langgraph",
        expectations={
            law: Expectation(outcome=Outcome.FAIL, reason="wrong kind"),
            root: Expectation(outcome=Outcome.FAIL, reason="no refusal"),
        },
    )
    column = matrix.column_from_results(path)
    cell = column.laws[law]
    if own_failure:
        assert (cell.outcome, cell.reason) == (
            "FAIL",
            f"possibly a consequence of {root}: wrong kind",
        )
    else:
        assert cell == matrix.Cell(
            outcome="BLOCKED",
            reason=f"possibly a consequence of {root}: premise not met: {root}, a known "
            "failure: no refusal",
        )
        assert "1 BLOCKED" in column.summary()
    assert column.laws[root].outcome == "FAIL"


def test_an_unexpected_failure_shows_its_assertion(tmp_path: Path) -> None:
    path = results_file(tmp_path / "langgraph.jsonl", {"run.no-history": ["PASS", "FAIL"]})
    cell = matrix.column_from_results(path).laws["run.no-history"]
    assert cell.outcome == "FAIL"
    assert (
        cell.reason == "not in the manifest: AssertionError: run() carried an earlier conversation"
    )


def test_write_renders_every_column_the_doc_and_the_readme_block(
    tmp_path: Path, layout: dict[str, Path]
) -> None:
    written = matrix.write([results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN)], **layout)
    assert layout["folder"] / "pydantic-ai.json" in written
    doc = layout["doc"].read_text(encoding="utf-8")
    assert "| `mismatch.refuses-another-agents-conversation` | MUST | not run | FAIL |" in doc
    assert "| `pending.refuses-new-message` | MUST | not run | N/A |" in doc
    assert "| `checkpoint.plain-json` | MUST | not run | — |" in doc  # not in this run
    assert f"- `mismatch.refuses-another-agents-conversation` **FAIL**: {REASON}" in doc
    assert "- **openai-agents** — not run yet (`nox -s thirdparty-openai_agents`)" in doc
    assert "- note: the adapter turned the framework's limiter on" in doc
    for noise in ("54321", "0.123", "2026-11-30", "12345"):
        assert noise not in doc, f"run-specific {noise!r} leaked into the matrix"
    readme = layout["readme"].read_text(encoding="utf-8")
    assert "- **pydantic-ai** — pydantic-ai 2.68.0: 2 PASS, 1 FAIL, 1 N/A" in readme
    assert readme.startswith("# x\n\nbefore\n") and readme.endswith("after\n")
    assert "\nold\n" not in readme


def test_a_fresh_run_that_matches_passes_the_check(tmp_path: Path, layout: dict[str, Path]) -> None:
    matrix.write([results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN)], **layout)
    # another run of the same behaviour: other timings, seed, details; same column
    again = results_file(tmp_path / "again" / "pydantic-ai.jsonl", LAWS_RUN)
    assert matrix.check([again], **layout) == []


def test_a_changed_framework_fails_the_check_with_a_diff_and_the_fix(
    tmp_path: Path, layout: dict[str, Path]
) -> None:
    matrix.write([results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN)], **layout)
    changed = {**LAWS_RUN, "pending.refuses-new-message": ["PASS"]}
    fresh = results_file(tmp_path / "new" / "pydantic-ai.jsonl", changed, version="2.69.0")
    (problem,) = matrix.check([fresh], **layout)
    assert '-  "version": "2.68.0",' in problem and '+  "version": "2.69.0",' in problem
    assert '+      "outcome": "PASS",' in problem
    assert "python -m conformance matrix --results build/conformance/pydantic-ai.jsonl" in problem


def test_a_hand_edited_doc_or_readme_fails_the_check(
    tmp_path: Path, layout: dict[str, Path]
) -> None:
    matrix.write([results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN)], **layout)
    layout["doc"].write_text(layout["doc"].read_text().replace("| FAIL |", "| PASS |"))
    text = layout["readme"].read_text()
    layout["readme"].write_text(text.replace("1 FAIL", "0 FAIL"))
    problems = matrix.check([], **layout)
    assert len(problems) == 2
    assert all("Regenerate: python -m conformance matrix" in p for p in problems)


@pytest.mark.parametrize(
    ("name", "outcomes", "footer", "message"),
    [
        ("mine.jsonl", LAWS_RUN, True, "name the results file after its column"),
        ("langgraph.jsonl", LAWS_RUN, False, "did not finish"),
    ],
)
def test_unusable_results_are_refused_with_what_to_do(
    tmp_path: Path,
    layout: dict[str, Path],
    name: str,
    outcomes: dict[str, list[str]],
    footer: bool,
    message: str,
) -> None:
    path = results_file(tmp_path / name, outcomes, footer=footer)
    with pytest.raises(matrix.MatrixError, match=message):
        matrix.write([path], **layout)
    with pytest.raises(matrix.MatrixError, match="no such results file"):
        matrix.check([tmp_path / "reference.jsonl"], **layout)


def test_a_readme_without_the_block_is_refused(tmp_path: Path, layout: dict[str, Path]) -> None:
    layout["readme"].write_text("# no block\n")
    with pytest.raises(matrix.MatrixError, match="no summary block"):
        matrix.write([results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN)], **layout)


def test_the_command_line_writes_then_checks(
    tmp_path: Path, layout: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    results = str(results_file(tmp_path / "pydantic-ai.jsonl", LAWS_RUN))
    paths = ["--doc", str(layout["doc"]), "--columns", str(layout["folder"])]
    paths += ["--readme", str(layout["readme"])]
    assert main(["matrix", "--results", results, *paths]) == 0
    assert main(["matrix", "--check", "--results", results, *paths]) == 0
    changed = results_file(tmp_path / "x" / "pydantic-ai.jsonl", {"smoke.one-turn": ["FAIL"]})
    assert main(["matrix", "--check", "--results", str(changed), *paths]) == 1
    assert "the pydantic-ai column changed" in capsys.readouterr().err
    assert main(["matrix", "--results", str(tmp_path / "nope.jsonl"), *paths]) == 2


def test_the_committed_matrix_is_what_its_columns_render() -> None:
    """The published doc and README block agree with the committed columns."""
    root = Path(__file__).resolve().parents[2]
    problems = matrix.check(
        [],
        doc=root / matrix.DOC,
        folder=root / matrix.COLUMN_DIR,
        readme=root / matrix.README,
    )
    assert problems == []
