"""No false green: the exit status of a run is a function of its per-law verdicts.

Each case runs a slice of the real suite in a nested pytest and checks the exit status
against what the laws got. A run exits 0 only when every judged law passed, was not
applicable, or failed (FAIL, nothing else) as its manifest entry says; an ERROR or a
TIMEOUT, no dialect to run, a law test that never ran, an unexpected pass or a stale
entry is red whatever the manifest says. The other half: a run whose every failure is
listed is green, also when one test judges several laws (the state machine).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import main as conformance_cli
from conformance.runner.plugin import exit_status
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.suite_args import HANG_DEADLINE, PLUGIN_ARGS, nested_suite

PLUGIN = [*PLUGIN_ARGS, "--dialects", "openai-chat", "--deliveries", "stream"]
FAULTY = "tests.harness.faulty_adapters"
FOLLOW_UP_LAWS = (
    "follow-up.shows-last-answer",
    "follow-up.is-continue-from-checkpoint",
    "follow-up.refuses-before-first-run",
)
STATEFUL_LAWS = (
    "run.no-history",
    "follow-up.shows-last-answer",
    "continue-from.any-conversation",
    "checkpoint.final-answer",
)
CHARGED = "follow-up.shows-last-answer"
"""The one law the rogue below breaks; only the state machine finds it (a third
follow-up after a continuation), and it charges the failure to that law alone."""
ROGUE = "tests.rogues.gallery:third_follow_up_after_continuation"
SWALLOW = '''
def pytest_runtest_protocol(item, nextitem):
    """A plugin that claims to have run a test it never ran."""
    return True if "only_its_own" in item.name else None
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester, swallow=SWALLOW)


def manifest(tmp_path: Path, *laws: str, outcome: str = "FAIL") -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(
        "".join(f'[law."{law}"]\noutcome = "{outcome}"\nreason = "known"\n' for law in laws)
    )
    return path


def run_suite(
    suite: pytest.Pytester, tmp_path: Path, impl: str, *args: str
) -> tuple[pytest.RunResult, ResultsFile]:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(*PLUGIN, "--impl", impl, "--results", str(results), *args)
    return run, read_results(results)


def report(path: Path) -> int:
    return conformance_cli(["report", str(path)])


def test_an_error_listed_as_an_expected_failure_is_red(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:raises_on_follow_up",
        "--expectations",
        str(manifest(tmp_path, *FOLLOW_UP_LAWS)),
        "-k",
        "one_turn or follow_up",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    outcomes = results.per_law()
    assert {outcomes[law] for law in FOLLOW_UP_LAWS} == {Outcome.ERROR}, outcomes
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()
    assert run.parseoutcomes().get("xfailed", 0) == 0, "an ERROR is never an expected failure"
    assert report(tmp_path / "results.jsonl") == 1


def test_a_timeout_listed_as_an_expected_failure_is_red(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:hangs",
        "--call-timeout",
        HANG_DEADLINE,
        "--expectations",
        str(manifest(tmp_path, "follow-up.shows-last-answer")),
        "-k",
        "one_turn or shows_the_last_completed",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
    )
    assert results.per_law()["follow-up.shows-last-answer"] is Outcome.TIMEOUT
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()
    assert run.parseoutcomes().get("xfailed", 0) == 0
    assert report(tmp_path / "results.jsonl") == 1


@pytest.mark.parametrize(
    ("dialects", "said"),
    [
        ("anthropic-messages", "offers none of the dialects asked for"),
        ("nonsense", "unknown dialect 'nonsense'"),
        (",", "names no dialect"),
    ],
)
def test_no_dialect_to_run_is_a_usage_error(
    suite: pytest.Pytester, tmp_path: Path, dialects: str, said: str
) -> None:
    run = suite.runpytest(
        *PLUGIN,
        "--impl",
        f"{FAULTY}:chat_only",
        "--dialects",
        dialects,
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.stdout.str()
    assert said in run.stderr.str(), run.stderr.str()


def test_a_law_test_that_never_ran_is_red_and_named(suite: pytest.Pytester, tmp_path: Path) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:chat_only",
        "-p",
        "swallow",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    assert "run.no-history" not in results.per_law()
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()
    run.stdout.fnmatch_lines(["*unjudged*run.no-history*"])
    assert results.footer is not None and results.footer.unjudged == ["run.no-history"]
    assert report(tmp_path / "results.jsonl") == 1


def test_a_law_outside_the_selection_is_not_unjudged_but_its_entry_is_stale(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """`-k` narrows the run: a deselected law is not in it (no verdict owed), and a
    manifest entry for it cannot be shown to still hold, so it is stale: red."""
    args = [
        "-k",
        "one_turn",
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    ]
    run, results = run_suite(suite, tmp_path, f"{FAULTY}:chat_only", *args)
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    assert results.footer is not None and results.footer.unjudged == []
    assert report(tmp_path / "results.jsonl") == 0

    listed = manifest(tmp_path, "run.no-history")
    run, _ = run_suite(suite, tmp_path, f"{FAULTY}:chat_only", "--expectations", str(listed), *args)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines(["*run.no-history*not in this run*stale entry*"])


@pytest.mark.parametrize(
    ("law", "said"),
    [
        (
            "smoke.one-turn",
            "*smoke.one-turn: expected FAIL (known) but it passed: remove the entry*",
        ),
        ("pending.resume-continues", "*pending.resume-continues*not in this run*stale entry*"),
    ],
)
def test_an_unexpected_pass_and_a_stale_entry_are_red(
    suite: pytest.Pytester, tmp_path: Path, law: str, said: str
) -> None:
    run, results = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:chat_only",
        "--expectations",
        str(manifest(tmp_path, law)),
        "--pyargs",
        "conformance.laws.test_smoke",
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines([said])
    assert results.footer is not None and results.footer.verdict == "red"
    assert report(tmp_path / "results.jsonl") == 1


def test_a_manifest_that_expects_a_pass_is_refused(suite: pytest.Pytester, tmp_path: Path) -> None:
    run = suite.runpytest(
        *PLUGIN,
        "--impl",
        f"{FAULTY}:chat_only",
        "--expectations",
        str(manifest(tmp_path, "smoke.one-turn", outcome="XPASS")),
        "--pyargs",
        "conformance.laws.test_smoke",
    )
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert '[law."smoke.one-turn"].outcome' in run.stderr.str(), run.stderr.str()


@pytest.mark.parametrize(
    ("law", "green", "said"),
    [
        ("run.conversation-id-does-not-join", True, "*NOT_APPLICABLE*conversation-id*"),
        ("run.no-history", False, "*expected NOT_APPLICABLE*was judged (PASS): stale entry*"),
    ],
)
def test_an_entry_may_expect_not_applicable_and_goes_stale_when_the_law_is_judged(
    suite: pytest.Pytester, tmp_path: Path, law: str, green: bool, said: str
) -> None:
    run, _ = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:declares_follow_up_only",
        "--expectations",
        str(manifest(tmp_path, law, outcome="NOT_APPLICABLE")),
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_run",
    )
    assert run.ret == (pytest.ExitCode.OK if green else pytest.ExitCode.TESTS_FAILED)
    run.stdout.fnmatch_lines([said])


STATEFUL_SLICE = [
    "-k",
    "every_door or only_its_own or shows_the_last_completed or continues_on_another "
    "or holds_the_final_answer",
    "--pyargs",
    "conformance.laws.test_stateful",
    "conformance.laws.test_run",
    "conformance.laws.test_continuation",
]


def test_a_multi_law_failure_whose_charged_law_is_listed_is_green(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """The state machine charges its failure to one law (a LawViolation): listing that
    law is enough, and its other laws rest on their own tests."""
    run, results = run_suite(
        suite,
        tmp_path,
        ROGUE,
        "--hypothesis-profile",
        "ci",
        "--expectations",
        str(manifest(tmp_path, CHARGED)),
        *STATEFUL_SLICE,
    )
    outcomes = results.per_law()
    assert outcomes == {
        **{law: Outcome.PASS for law in STATEFUL_LAWS},
        CHARGED: Outcome.XFAIL,
    }, outcomes
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    run.assert_outcomes(passed=4, xfailed=1)
    assert report(tmp_path / "results.jsonl") == 0


def test_a_multi_law_failure_alone_leaves_its_other_laws_unjudged(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """Stopped at one law's failure, the state machine judged none of its other laws:
    with no other test of theirs in the run, they are unjudged, and the run is red."""
    run, results = run_suite(
        suite,
        tmp_path,
        ROGUE,
        "--hypothesis-profile",
        "ci",
        "--expectations",
        str(manifest(tmp_path, CHARGED)),
        "--pyargs",
        "conformance.laws.test_stateful",
    )
    assert results.per_law() == {CHARGED: Outcome.XFAIL}
    assert results.footer is not None
    assert results.footer.unjudged == sorted(set(STATEFUL_LAWS) - {CHARGED})
    assert run.ret == pytest.ExitCode.TESTS_FAILED, run.stdout.str()


FAILING_OWN_TEST = "def test_of_my_own():\n    assert False, 'not a law test'\n"


def test_a_failing_test_that_judges_no_law_keeps_the_run_red(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """The verdict is green (every law passed) but the user's own test failed: pytest's
    status stands, a green verdict does not cover what it did not judge."""
    suite.makepyfile(test_mine=FAILING_OWN_TEST)
    run, results = run_suite(
        suite,
        tmp_path,
        f"{FAULTY}:chat_only",
        "test_mine.py",
        "--pyargs",
        "conformance.laws.test_smoke",
    )
    assert results.per_law() == {"smoke.one-turn": Outcome.PASS}
    assert results.footer is not None and results.footer.verdict == "green"
    assert run.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("pytest_says", "red", "others", "status"),
    [
        (pytest.ExitCode.OK, True, 0, pytest.ExitCode.TESTS_FAILED),  # pytest thought green
        (pytest.ExitCode.TESTS_FAILED, False, 0, pytest.ExitCode.OK),  # only expected failures
        (pytest.ExitCode.TESTS_FAILED, False, 1, pytest.ExitCode.TESTS_FAILED),  # a non-law test
        (pytest.ExitCode.INTERRUPTED, False, 0, pytest.ExitCode.INTERRUPTED),  # stopped
        (pytest.ExitCode.USAGE_ERROR, True, 0, pytest.ExitCode.USAGE_ERROR),
        (pytest.ExitCode.NO_TESTS_COLLECTED, True, 0, pytest.ExitCode.NO_TESTS_COLLECTED),
        (pytest.ExitCode.OK, False, 0, pytest.ExitCode.OK),
    ],
)
def test_the_exit_status_follows_the_verdict_both_ways(
    pytest_says: int, red: bool, others: int, status: int
) -> None:
    assert exit_status(pytest_says, red=red, other_failures=others) == status
