"""Reports a person can read (issue 13, section 7): an N/A cell names the missing
capabilities in words, a FAIL cell holds the check's message whole, the terminal names
the dialects and where each law is explained, and repro files stay out of the project
root unless asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import main
from conformance.lawdoc import LAWS_DOC, law_lines, laws_markdown
from conformance.verdicts import (
    Outcome,
    markdown_cell,
    matrix,
    needed_capabilities,
    needs_sentence,
    not_applicable_in_words,
    read_results,
)
from tests.conformance.test_runner import REFERENCE_WRAPPER
from tests.harness.results_files import record, write_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

# imported above for the same reason as in test_runner: nested runs re-import otherwise

RUN_LAWS = [
    *PLUGIN_ARGS,
    "--dialects",
    "openai-chat",
    "--deliveries",
    "stream",
    "--pyargs",
    "conformance.laws.test_smoke",
    "conformance.laws.test_run",
]


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester, impls=REFERENCE_WRAPPER)


@pytest.mark.parametrize(
    ("missing", "sentence"),
    [
        (["identity"], "needs the identity capability"),
        (["identity", "tool_context"], "needs the identity and tool_context capabilities"),
        (["pause", "memory", "window"], "needs the pause, memory and window capabilities"),
    ],
)
def test_the_missing_capabilities_read_as_a_sentence_and_back(
    missing: list[str], sentence: str
) -> None:
    assert needs_sentence(missing) == sentence
    assert needed_capabilities(f"NOT_APPLICABLE: run.x {sentence}") == missing


@pytest.mark.parametrize(
    ("detail", "cell"),
    [
        (
            "Skipped: NOT_APPLICABLE: run.conversation-id-does-not-join needs the identity "
            "and tool_context capabilities",
            "needs the identity and tool_context capabilities",
        ),
        # a results file from before the sentence, and pytest's tuple before that
        ("Skipped: NOT_APPLICABLE: identity.ladder needs identity, tool_context",
         "needs the identity and tool_context capabilities"),
        ("('/home/me/x/plugin.py', 245, 'Skipped: NOT_APPLICABLE: run.x needs identity')",
         "needs the identity capability"),
        # a law test's own reason keeps its words
        ("Skipped: NOT_APPLICABLE: a paused run needs pause",
         "a paused run needs the pause capability"),
        ("Skipped: NOT_APPLICABLE: every identity case continues a conversation",
         "every identity case continues a conversation"),
    ],
)  # fmt: skip
def test_a_not_applicable_cell_says_what_is_missing_in_words(detail: str, cell: str) -> None:
    assert not_applicable_in_words(detail) == cell


def test_an_ordinary_needs_is_no_capability() -> None:
    assert needed_capabilities("the law needs the agent to answer") is None
    assert needed_capabilities("needs a fresh agent") is None


def test_a_markdown_cell_keeps_lines_and_shows_what_a_renderer_would_hide() -> None:
    cell = markdown_cell("first | line\nfake=<ScriptedProvider object at 0x1>\n\n")
    assert cell == "first \\| line<br>fake=&lt;ScriptedProvider object at 0x1&gt;"


def test_the_matrix_column_keeps_the_capabilities_as_data_whatever_the_wording(
    tmp_path: Path,
) -> None:
    """The committed columns say "needs a, b": the sentence must not change them."""
    records = [
        record(
            "run.conversation-id-does-not-join",
            "NOT_APPLICABLE",
            detail="Skipped: NOT_APPLICABLE: run.conversation-id-does-not-join "
            + needs_sentence(["identity", "tool_context"]),
        ),
        record("smoke.one-turn", "PASS"),
    ]
    path = write_results(tmp_path / "reference.jsonl", records)
    cell = matrix.column_from_results(path).laws["run.conversation-id-does-not-join"]
    assert (cell.outcome, cell.reason) == ("N/A", "needs identity, tool_context")


def test_each_law_line_is_its_heading_in_the_laws_doc() -> None:
    lines = laws_markdown().splitlines()
    where = law_lines()
    assert where, "no law found in docs/laws.md"
    for law_id, number in where.items():
        assert lines[number - 1].startswith(f"## `{law_id}` "), (law_id, number)
    committed = (Path(__file__).parents[2] / LAWS_DOC).read_text(encoding="utf-8")
    assert committed.splitlines()[where["run.no-history"] - 1] == "## `run.no-history` — MUST"


def test_an_na_cell_and_the_skip_say_the_capability_in_words(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    report, results = tmp_path / "report.md", tmp_path / "results.jsonl"
    run = suite.runpytest(
        *RUN_LAWS, "--impl", "impls:limited", "--report-md", str(report),
        "--results", str(results), "-rs",
    )  # fmt: skip
    run.assert_outcomes(passed=2, skipped=1)
    run.stdout.fnmatch_lines(["*run.conversation-id-does-not-join needs the identity capability*"])
    text = report.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if "run.conversation-id-does-not-join" in line)
    assert row == (
        "| `run.conversation-id-does-not-join` | MUST | NOT_APPLICABLE | "
        "needs the identity capability |"
    )
    assert "Skipped" not in text and "('" not in text and "plugin.py" not in text
    # the report says what the terminal says: the dialects and the score
    assert "Dialects: openai-chat. MUST laws: 2/2 pass (not applicable laws are outside" in text
    (skipped,) = [r for r in read_results(results).records if r.outcome is Outcome.NOT_APPLICABLE]
    assert skipped.detail == (
        "Skipped: NOT_APPLICABLE: run.conversation-id-does-not-join needs the identity capability"
    )


def test_a_fail_cell_shows_the_message_whole_and_the_terminal_where_the_law_is(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    report = tmp_path / "out" / "report.md"
    run = suite.runpytest(*RUN_LAWS, "--impl", "impls:amnesiac", "--report-md", str(report))
    assert run.ret == 1
    row = next(
        line
        for line in report.read_text(encoding="utf-8").splitlines()
        if "`run.no-history`" in line
    )
    # the message, then pytest's explanation of the compared values, to its last line
    assert "| FAIL | run() carried an earlier conversation: [('user', 'Book me" in row
    assert "<br>assert [" in row
    assert "Left contains 2 more items, first extra item: ('assistant', 'Booked.')" in row
    assert "E   " not in row
    line = law_lines()["run.no-history"]
    run.stdout.fnmatch_lines(
        [
            "*dialects: openai-chat",
            f"*each law is explained at its line of {LAWS_DOC}*",
            f"*FAIL*MUST*run.no-history*{LAWS_DOC}:{line}",
        ]
    )


def test_repro_files_go_beside_the_results_not_into_the_project_root(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = tmp_path / "build" / "results.jsonl"
    run = suite.runpytest(*RUN_LAWS, "--impl", "impls:amnesiac", "--results", str(results))
    assert run.ret == 1
    assert not (suite.path / "repro").exists()
    written = sorted(p.name for p in (results.parent / "repro").glob("*.json"))
    assert written and all(name.startswith("run.") for name in written), written
    run.stdout.fnmatch_lines([f"*conformance replay {results.parent / 'repro'}/run.no-history-*"])


def test_without_results_repro_files_go_to_a_temporary_folder(suite: pytest.Pytester) -> None:
    run = suite.runpytest(*RUN_LAWS, "--impl", "impls:amnesiac")
    assert run.ret == 1
    assert not (suite.path / "repro").exists()
    run.stdout.fnmatch_lines(["*conformance replay */turnlaw-repro-*/run.no-history-*.json*"])


def test_repro_dir_still_decides(suite: pytest.Pytester, tmp_path: Path) -> None:
    chosen = tmp_path / "mine"
    results = tmp_path / "build" / "results.jsonl"
    run = suite.runpytest(
        *RUN_LAWS, "--impl", "impls:amnesiac", "--results", str(results),
        "--repro-dir", str(chosen),
    )  # fmt: skip
    assert run.ret == 1
    assert list(chosen.glob("run.no-history-*.json"))
    assert not (results.parent / "repro").exists()


def test_reading_a_results_file_back_names_the_dialects_and_where_each_law_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_results(
        tmp_path / "results.jsonl",
        [record("smoke.one-turn", "PASS"), record("run.no-history", "PASS")],
        dialects=["openai-chat", "anthropic-messages"],
    )
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  dialects: openai-chat, anthropic-messages\n" in out
    line = law_lines()["run.no-history"]
    assert f"  PASS            run.no-history  {LAWS_DOC}:{line}\n" in out
