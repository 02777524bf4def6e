"""A failing runtime's run is not spent shrinking: Hypothesis shrinks a failing law test only
within a budget in the everyday profiles, not at all for a failure the manifest
expects, and fully when asked; the example it stopped at is the one the repro file keeps,
and replay plays it.

The evidence is counted, not timed: every example builds fresh agents, so the agents a
run built say how many examples Hypothesis ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import hypothesis.internal.conjecture.engine as engine
import pytest
from hypothesis import Phase, settings

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.runner.profiles import LIMITS, SHRINK_BUDGETS, asked_budget, bounded_shrinking
from conformance.verdicts import Outcome, read_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

LAW = "mismatch.refuses-another-agents-conversation"
COUNTING = '''
import os
from benchmarks.failing_impl import FailingAgent
from reference_impl.adapter import ReferenceImplementation


class Counting(ReferenceImplementation):
    """The benchmark's failing runtime (names outside [a-z]+ are no names: only generated
    pairs find it), noting every agent it builds."""

    async def create_agent(self, spec):
        with open(os.environ["TURNLAW_AGENTS"], "a") as made:
            made.write("agent\\n")
        return await super().create_agent(spec)


implementation = Counting(name="counting failing runtime", agent_class=FailingAgent)
'''


def agents_built(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, Path]:
    """How many agents one failing property test built, and its results file."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    counted = tmp_path / "agents.txt"
    counted.write_text("", encoding="utf-8")
    monkeypatch.setenv("TURNLAW_AGENTS", str(counted))
    results = tmp_path / "results.jsonl"
    run = nested_suite(pytester, counting=COUNTING).runpytest(
        *PLUGIN_ARGS,
        "--hypothesis-profile=ci",
        "--impl",
        "counting:implementation",
        "--dialects",
        "openai-chat",
        "--deliveries",
        "stream",
        "--results",
        str(results),
        "--repro-dir",
        str(tmp_path / "repro"),
        "-k",
        "refuses_another_named",
        *args,
        "--pyargs",
        "conformance.laws.test_whose_conversation",
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED or args, run.stdout.str()[-3000:]
    outcomes = read_results(results).per_law()
    assert outcomes[LAW] in (Outcome.FAIL, Outcome.XFAIL), outcomes
    return len(counted.read_text(encoding="utf-8").splitlines()), results


def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(f'[law."{LAW}"]\noutcome = "FAIL"\nreason = "known"\n', encoding="utf-8")
    return path


def test_the_budget_bounds_shrinking_and_a_known_failure_is_not_shrunk(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unshrunk, _ = agents_built(pytester, tmp_path / "none", monkeypatch, "--shrink-budget", "0")
    budget, _ = agents_built(pytester, tmp_path / "ci", monkeypatch)
    full, _ = agents_built(pytester, tmp_path / "full", monkeypatch, "--shrink-budget", "full")
    known, _ = agents_built(
        pytester, tmp_path / "known", monkeypatch, "--expectations", str(manifest(tmp_path))
    )
    assert unshrunk < budget < full, (unshrunk, budget, full)
    assert known == unshrunk, "a failure the manifest expects is not shrunk"


def test_the_example_the_budget_stopped_at_is_the_one_replay_plays(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents_built(pytester, tmp_path, monkeypatch, "--shrink-budget", "1")
    (stored,) = (tmp_path / "repro").glob(f"{LAW}-*.json")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "replay",
            str(stored),
            "--impl",
            "benchmarks.failing_impl:implementation",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the shrunk Hypothesis example" in done.stdout
    assert f"FAIL            {LAW}" in done.stdout, done.stdout


def test_the_everyday_profiles_are_bounded_and_thorough_is_not() -> None:
    assert SHRINK_BUDGETS["ci"] is not None and SHRINK_BUDGETS["dev"] is not None
    assert SHRINK_BUDGETS["thorough"] is None
    assert Phase.explain not in settings.get_profile("ci").phases
    assert Phase.shrink in settings.get_profile("ci").phases
    assert set(settings.get_profile("thorough").phases) == set(Phase)


def test_the_engine_limits_are_set_for_a_test_and_put_back() -> None:
    """Hypothesis bounds shrinking only through these module limits: were a release to
    drop them, this fails rather than every budget silently lifting."""
    assert all(hasattr(engine, name) for name in LIMITS)
    before = (engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS)
    with bounded_shrinking(3, 7.0):
        assert (engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS) == (3, 7.0)
    assert before == (engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS)
    with bounded_shrinking(None, 7.0):
        assert before == (engine.MAX_SHRINKS, engine.MAX_SHRINKING_SECONDS)


@pytest.mark.parametrize("option", ["-1", "some", "1.5"])
def test_a_budget_that_is_no_number_is_a_usage_error(option: str) -> None:
    with pytest.raises(pytest.UsageError, match="--shrink-budget"):
        asked_budget(option)
    assert asked_budget("full") == "full" and asked_budget("4") == 4 and asked_budget(None) is None


def test_full_shrinking_runs_every_phase_and_leaves_the_profile_as_it_was(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = settings.get_current_profile_name()
    seen = tmp_path / "phases.txt"
    pytester.makeconftest(
        f"""
from hypothesis import settings

def pytest_collection_finish(session):
    with open({str(seen)!r}, "w") as out:
        out.write(" ".join(sorted(p.name for p in settings.default.phases)))
"""
    )
    agents_built(pytester, tmp_path, monkeypatch, "--shrink-budget", "full")
    assert "explain" in seen.read_text(encoding="utf-8").split()
    assert settings.get_current_profile_name() == before
