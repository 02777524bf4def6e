"""No false FAIL on a runtime the suite never grew up with.

The whole suite runs (nested, in-process) against `StatefulChat`
(tests/harness/stateful_runtime.py): one instance keeps its conversation across `run`,
it never refuses, never pauses, offers no trace tools. Every FAIL must name a law it
really breaks, each for its own reason; nothing ERRORs; what needs a capability it lacks
is NOT_APPLICABLE; everything else PASSes. With exactly its failing laws in a manifest
the run is green — the state machine, which judges four laws, included — and with one
of them missing it is red.

Then `LeakyChat`, whose agents share a class-level history (a fresh agent starts from
the last agent's chat): the law about that FAILs, and the laws whose Hypothesis examples
build agent after agent (the mismatch truth table) are not charged with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import examples.beside_openai2.adapter  # noqa: F401  (kept imported across nested runs)
import tests.harness.stateful_runtime  # noqa: F401
from conformance.registry import load_laws
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.harness.stateful_runtime import StatefulChat
from tests.suite_args import PLUGIN_ARGS, nested_suite

RUNTIMES = "tests.harness.stateful_runtime"
SUITE = [*PLUGIN_ARGS, "--hypothesis-profile", "ci", "--dialects", "openai-chat"]

BREAKS = {
    "run.no-history": (
        # test_run: the second run of one instance goes on after the first
        "run() carried an earlier conversation",
        # the state machine: a run step showed the turns before it
        "run showed the model another conversation than the law says",
    ),
    "follow-up.refuses-before-first-run": (
        # it never refuses: a follow-up with nothing to follow starts a chat
        "DID NOT RAISE",
    ),
    "failure.follow-up-continues-last-completed": (
        # the same root cause after a failure: with no completed run (the first failed,
        # however it failed) a follow-up is answered instead of refused; after a failed
        # second run it does continue the last completed one, so only this test fails
        "a follow-up after a first run that failed was answered",
    ),
    "in-flight.refused-before-send": (
        # it keeps its conversation on the instance and has no guard: an overlapping turn
        # reaches the model (the in-flight laws apply to it, in_flight_guard or not)
        "a turn started while another was in flight reached the model",
    ),
    "in-flight.first-run-intact": (
        # the overlapping turn that finished last owns the chat afterwards
        "after overlapping attempts the agent's conversation is not the first run's",
    ),
}
"""The laws StatefulChat really breaks, and the words each test's failure must carry."""

UNJUDGEABLE = {"in-flight.refusal-kind": "in-flight.refused-before-send"}
"""Laws it cannot be judged on, and the broken law each rests on: a door that goes ahead
gives no refusal whose kind could be judged (an ERROR naming the premise, XFAIL when the
manifest lists that law)."""

PASSES = {
    "smoke.one-turn",
    # the last completed run is the instance's chat, so a follow-up continues it: the law
    # holds even though run() did not start anew (that is run.no-history's FAIL alone)
    "follow-up.shows-last-answer",
    "follow-up.is-continue-from-checkpoint",
    "continue-from.any-conversation",
    "checkpoint.plain-json",
    "checkpoint.final-answer",
    "checkpoint.no-trim",
    "conversation.verbatim",
    "mismatch.default-id-never-refuses",
    # a failed run leaves the chat as it was; a broken checkpoint is refused or harmless
    "failure.checkpoint-is-last-completed",
    "failure.malformed-checkpoint-refused",
    # two agents answer at once: there is no guard to be global
    "in-flight.per-instance",
}


def not_applicable() -> set[str]:
    """Every tested law needing a capability StatefulChat does not declare."""
    declared = set(StatefulChat.capabilities)
    return {
        law.id
        for law in load_laws().values()
        if not law.planned and not law.retired and any(law.missing(declared))
    } | NOTHING_TO_JUDGE


NOTHING_TO_JUDGE = {
    # its failed run hands no checkpoint back (RunFailed(None)): nothing to judge, N/A
    "failure.hands-back-last-good-checkpoint",
}


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester)


def run(
    suite: pytest.Pytester, tmp_path: Path, runtime: str, *args: str, expected: tuple[str, ...] = ()
) -> tuple[pytest.RunResult, ResultsFile]:
    results = tmp_path / "results.jsonl"
    more = [*args]
    if expected:
        manifest = tmp_path / "manifest.toml"
        manifest.write_text(
            "".join(
                f'[law."{law}"]\noutcome = "FAIL"\nreason = "{law} is known"\n' for law in expected
            )
        )
        more += ["--expectations", str(manifest)]
    argv = [*SUITE, "--impl", f"{RUNTIMES}:{runtime}", "--results", str(results), *more]
    outcome = suite.runpytest(*argv, "--pyargs", "conformance.laws")
    return outcome, read_results(results)


def test_a_stateful_runtime_fails_only_the_laws_it_breaks_each_for_its_reason(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    ran, results = run(suite, tmp_path, "stateful")
    outcomes = results.per_law()
    by_outcome: dict[Outcome, set[str]] = {}
    for law_id, outcome in outcomes.items():
        by_outcome.setdefault(outcome, set()).add(law_id)
    assert by_outcome.get(Outcome.FAIL) == set(BREAKS), outcomes
    assert by_outcome.get(Outcome.PASS) == PASSES, outcomes
    assert by_outcome.get(Outcome.NOT_APPLICABLE) == not_applicable(), outcomes
    assert set(outcomes) == set(BREAKS) | PASSES | not_applicable() | set(UNJUDGEABLE)
    assert by_outcome.get(Outcome.ERROR) == set(UNJUDGEABLE), outcomes
    assert not by_outcome.get(Outcome.TIMEOUT)
    for law_id, premise in UNJUDGEABLE.items():
        errors = [r for r in results.records if r.law == law_id and r.outcome is Outcome.ERROR]
        assert errors and {r.premise for r in errors} == {premise}, errors
    for law_id, reasons in BREAKS.items():
        failed = [r for r in results.records if r.law == law_id and r.outcome is Outcome.FAIL]
        for reason in reasons:
            assert any(reason in r.detail for r in failed), (reason, [r.detail for r in failed])
        unexplained = [r.test for r in failed if not any(why in r.detail for why in reasons)]
        assert not unexplained, unexplained
    stateful = [r for r in results.records if "test_stateful.py" in r.test]
    assert [(r.law, r.outcome) for r in stateful] == [("run.no-history", Outcome.FAIL)]
    assert ran.ret == pytest.ExitCode.TESTS_FAILED


def test_a_stateful_runtime_with_its_failures_listed_is_green(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    ran, results = run(suite, tmp_path, "stateful", expected=tuple(BREAKS))
    assert results.footer is not None and results.footer.verdict == "green", results.footer
    known = {*BREAKS, *UNJUDGEABLE}
    assert {law: results.per_law()[law] for law in known} == dict.fromkeys(known, Outcome.XFAIL)
    stateful = [r for r in results.records if "test_stateful.py" in r.test]
    assert [(r.law, r.outcome) for r in stateful] == [("run.no-history", Outcome.XFAIL)]
    assert ran.ret == pytest.ExitCode.OK, ran.stdout.str()


UNLISTED = ("run.no-history", "in-flight.refused-before-send")
"""The failures left out of the manifest one at a time: the law a multi-law test (the
state machine) judges beside others, and the law another law's unjudged verdict rests
on. The other three are single-law tests like the second, whose per-law manifest
rule tests/conformance/test_exit_status.py judges without a whole run."""


@pytest.mark.parametrize("missing", UNLISTED)
def test_a_stateful_runtime_with_one_failure_unlisted_is_red(
    suite: pytest.Pytester, tmp_path: Path, missing: str
) -> None:
    listed = tuple(law for law in BREAKS if law != missing)
    ran, results = run(suite, tmp_path, "stateful", expected=listed)
    assert results.per_law()[missing] is Outcome.FAIL
    assert results.footer is not None and results.footer.verdict == "red"
    assert ran.ret == pytest.ExitCode.TESTS_FAILED, ran.stdout.str()


def test_a_leak_across_agents_fails_its_own_law_not_a_later_example_s(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    ran, results = run(
        suite,
        tmp_path,
        "leaky",
        "-k",
        "test_run or test_stateful or test_whose_conversation",
    )
    outcomes = results.per_law()
    assert {law for law, o in outcomes.items() if o is Outcome.FAIL} == {"run.no-history"}
    assert not {law for law, o in outcomes.items() if o in (Outcome.ERROR, Outcome.TIMEOUT)}
    [leak] = [r for r in results.records if r.outcome is Outcome.FAIL]
    # a fresh machine's very first step was shown another agent's conversation
    assert "test_stateful.py" in leak.test
    assert "step 1: run showed the model another conversation" in leak.detail, leak.detail
    # the truth table's examples each built fresh agents, and are judged on their own
    assert outcomes["mismatch.default-id-never-refuses"] is Outcome.PASS
    mismatch = [r for r in results.records if r.law.startswith("mismatch.")]
    assert mismatch and all(r.outcome in (Outcome.PASS, Outcome.NOT_APPLICABLE) for r in mismatch)
    assert ran.ret == pytest.ExitCode.TESTS_FAILED
