"""What a runtime does at a door is charged where it belongs.

- An act a law requires to succeed that the runtime refuses, or that ends in a failed
  run, is a FAIL of that law saying which door, how and the runtime's words; not an
  ERROR (the runtime answered; it answered wrong).
- A declared door that is missing is the FAIL of the law about that door only, not of a
  law whose test used the door as set-up or clean-up.
- A harness failure stays an ERROR.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.adapter import AGENT, BACKEND, HOST, SESSION, RefusalKind, Refused, RunFailed
from conformance.errors import DeclaredButMissing
from conformance.registry import load_laws
from conformance.runner.doors import DOOR_LAWS, Door, missing_door_law, note_door, refused_act
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

PLUGIN = [*PLUGIN_ARGS, "--dialects", "openai-chat", "--deliveries", "stream"]
SHOWS = "follow-up.shows-last-answer"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester)


def run_suite(
    suite: pytest.Pytester, tmp_path: Path, impl: str, *args: str
) -> tuple[pytest.RunResult, ResultsFile]:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *PLUGIN,
        "--impl",
        f"tests.harness.faulty_adapters:{impl}",
        "--results",
        str(results),
        "--report-md",
        str(tmp_path / "report.md"),
        *args,
    )
    return run, read_results(results)


def rows(results: ResultsFile, law: str) -> list[tuple[Outcome, str, str]]:
    return [(r.outcome, r.test, r.detail) for r in results.records if r.law == law]


def test_a_refused_follow_up_is_the_law_s_fail_naming_the_door_and_the_refusal(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "refuses_follow_up",
        "-k",
        "one_turn or shows_the_last_completed or before_any_run",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    outcomes = results.per_law()
    assert outcomes[SHOWS] is Outcome.FAIL, rows(results, SHOWS)
    said = "follow_up was refused as no_conversation: this agent keeps no conversation"
    assert all(said in detail for _, _, detail in rows(results, SHOWS))
    assert said in (tmp_path / "report.md").read_text(encoding="utf-8")
    # refusing before the first run is what that law wants
    assert outcomes["follow-up.refuses-before-first-run"] is Outcome.PASS
    assert run.ret == 1


def test_a_follow_up_that_ends_in_a_failed_run_is_the_law_s_fail(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        "follow_up_run_fails",
        "-k",
        "one_turn or shows_the_last_completed",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    assert results.per_law()[SHOWS] is Outcome.FAIL
    said = "follow_up failed: the stream ended in an error event"
    assert all(said in detail for _, _, detail in rows(results, SHOWS)), rows(results, SHOWS)
    assert run.ret == 1


def test_a_missing_abandon_fails_only_the_abandon_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """The resume law's test that abandons a pause as set-up does not FAIL the resume
    law: its row names the abandon law, and the resume law rests on its other tests."""
    run, results = run_suite(
        suite,
        tmp_path,
        "abandon_missing",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_pending",
        "conformance.laws.test_resume_door",
    )
    outcomes = results.per_law()
    abandon = rows(results, "pending.abandon-returns-dropped")
    assert outcomes["pending.abandon-returns-dropped"] is Outcome.FAIL
    set_up = [row for row in abandon if "an abandoned pause" in row[1]]
    assert set_up and set_up[0][0] is Outcome.FAIL, abandon
    assert "abandon_pause() raised NotImplementedError" in set_up[0][2]
    resume = rows(results, "pending.resume-continues")
    assert outcomes["pending.resume-continues"] is Outcome.PASS, resume
    assert not any("an abandoned pause" in test for _, test, _ in resume)
    assert run.ret == 1


def test_a_missing_door_is_charged_to_its_law_whichever_law_the_test_judges() -> None:
    declared = frozenset({"pause", "follow_up"})
    missing = DeclaredButMissing("abandon_pause() raised NotImplementedError")
    assert missing_door_law(missing, declared) is None, "no guard noted a door: as before"
    note_door(missing, Door("agent", "abandon_pause"))
    assert missing_door_law(missing, declared) == "pending.abandon-returns-dropped"
    # a door whose law this runtime does not declare: the test's own laws, as before
    assert missing_door_law(missing, frozenset({"follow_up"})) is None
    assert missing_door_law(RuntimeError("x"), declared) is None


def test_a_refusal_or_failed_run_says_the_door_the_kind_and_the_message() -> None:
    refusal = Refused(RefusalKind.PENDING_QUESTION, "a question is owed")
    failed = RunFailed("HTTP 500 after 3 retries")
    own = RunFailed("the runtime's tool loop raised")
    own.cause = "runtime"  # type: ignore[attr-defined]  # the field issue 30 adds
    assert refused_act(refusal) is None, "no guard saw it: an error of the test's own"
    for error in (refusal, failed, own):
        note_door(error, Door("agent", "resume"))
    assert refused_act(refusal) == "resume was refused as pending_question: a question is owed"
    assert refused_act(failed) == "resume failed: HTTP 500 after 3 retries"
    assert refused_act(own) == (
        "resume ended in the runtime's own error: the runtime's tool loop raised"
    )


def test_every_door_has_exactly_one_law_and_every_law_is_known() -> None:
    """The table covers every op of every surface the guards wrap (and no other), so no
    missing door falls back to whichever test happened to use it."""
    laws = load_laws()
    doors = {
        f"{surface.name}.{op.name}"
        for surface in (AGENT, HOST, BACKEND, SESSION)
        for op in surface.ops()
    } | {"implementation.damage_session"}
    assert set(DOOR_LAWS) == doors
    assert all(law_id in laws for law_id in DOOR_LAWS.values())
