"""The runner end to end on two catalog mutants and one law test: one the law kills,
one the catalog proves equivalent. Narrowed to that test and one dialect (two suite
runs side by side); the whole catalog is `nox -s mutants`."""

from __future__ import annotations

from pathlib import Path

from tests.mutants import Verdict, load_mutants, run
from tests.mutants.report import problems, render

KILLED = "run-ignores-continue-from"
EQUIVALENT = "recall-max-entries-ge"
TARGETS = (
    "conformance.laws.test_continuation",
    "-k",
    "test_a_stored_conversation_continues_on_another_agent",
)


def test_a_killed_and_an_equivalent_mutant(tmp_path: Path) -> None:
    chosen = [m for m in load_mutants() if m.id in (KILLED, EQUIVALENT)]
    assert chosen[1].equivalent is not None
    result = run(chosen, tmp_path, workers=2, dialects="openai-chat", targets=TARGETS)
    killed, equivalent = result.results
    assert killed.verdict is Verdict.KILLED, killed.log and killed.log.read_text()
    assert killed.failed == ("continue-from.any-conversation",)
    assert equivalent.verdict is Verdict.SURVIVED, equivalent.log and equivalent.log.read_text()
    for one in result.results:  # each run proved it loaded its own mutated copy
        proof = (tmp_path / one.mutant.id / "proof").read_text(encoding="utf-8")
        assert proof == str((tmp_path / one.mutant.id / "src" / one.mutant.file).resolve())
        copy = (tmp_path / one.mutant.id / "src" / one.mutant.file).read_text(encoding="utf-8")
        assert one.mutant.new in copy
    assert result.kill_rate() == (1, 1)
    assert problems(result) == []
    doc = render(result)
    row = f"| `{KILLED}` | continue-from | `run(continue_from=)` | openai-chat | all | killed |"
    assert row in doc
    assert f"- `{EQUIVALENT}` (survived): " in doc


def test_rejudging_a_folder_that_holds_no_run_is_a_typed_refusal(tmp_path: Path) -> None:
    import pytest

    from tests.mutants.__main__ import main
    from tests.mutants.runner import NotAKeptRun, rejudge

    (tmp_path / KILLED).mkdir()  # one mutant's folder, the rest missing: a partial run
    with pytest.raises(NotAKeptRun, match="holds no run of"):
        rejudge(load_mutants(), tmp_path)
    assert main(["--rejudge", str(tmp_path)]) == 2


SPAWNED = "session-waiting-messages-not-listed"
"""A mutant only a spawned runtime shows: the kill case's runtime is a process of its own
(and so is the one opened again on its store), whose listing of the messages is the
mutated code."""


def test_a_runtime_the_run_spawns_runs_the_mutated_copy(tmp_path: Path) -> None:
    """Without `--import-mode=append` and PYTHONSAFEPATH the spawned runtime imported the
    checkout's reference_impl/, and this mutant survived."""
    chosen = [m for m in load_mutants() if m.id == SPAWNED]
    targets = (
        "conformance.laws.test_sessions_connection",
        "-k",
        "test_nothing_missed_is_replayed and kill",
    )
    result = run(chosen, tmp_path, workers=1, dialects="openai-chat", targets=targets)
    (one,) = result.results
    assert one.verdict is Verdict.KILLED, one.log and one.log.read_text()
    assert one.failed == ("connection.no-replay-reconcile",)


def test_the_first_package_on_a_path_is_what_a_spawned_interpreter_imports(
    tmp_path: Path,
) -> None:
    from tests.mutants._suite_process import first_on_path

    for name in ("a", "b"):
        (tmp_path / name / "reference_impl").mkdir(parents=True)
        (tmp_path / name / "reference_impl" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    path = ["", str(tmp_path / "empty"), str(tmp_path / "b"), str(tmp_path / "a")]
    assert first_on_path(path) == (tmp_path / "b").resolve()
    assert first_on_path(path[:2]) is None
