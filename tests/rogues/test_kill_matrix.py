"""The kill matrix as tests: one kill run per session, judged law by law.

Run by `nox -s rogues` (the `tests` session leaves this folder out: it is the slow
part). A failure here means the suite lost its teeth, or the reference regressed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.verdicts import Outcome

from .gallery import ROGUES, Rogue
from .kill import (
    DOC,
    MAX_SHRUNK_STEPS,
    REFERENCE,
    SHRINK_JOB,
    KillRun,
    must_laws_under_test,
    run,
    shrunk_steps,
)
from .matrix_doc import render, settled

# The kill run behind the first test is some 100 suite runs; the project's 60 s
# per-test timeout is for single tests.
pytestmark = pytest.mark.timeout(3000)


@pytest.fixture(scope="session")
def kill(tmp_path_factory: pytest.TempPathFactory) -> KillRun:
    folder: Path = tmp_path_factory.mktemp("kill")
    result = run(folder)
    missing = [name for name in [REFERENCE, *(r.id for r in ROGUES)] if name not in result.results]
    assert not missing, f"no results for {missing}; logs in {folder}"
    return result


def test_the_reference_passes_every_law(kill: KillRun) -> None:
    outcomes = kill.outcomes(REFERENCE)
    assert not kill.results[REFERENCE].truncated
    failing = {law: o.value for law, o in outcomes.items() if o is not Outcome.PASS}
    assert not failing, f"the reference does not pass: {failing}\n{kill.log(REFERENCE)[-3000:]}"
    assert set(must_laws_under_test()) <= set(outcomes), "some MUST laws were not run at all"


@pytest.mark.parametrize("rogue", ROGUES, ids=[r.id for r in ROGUES])
def test_each_rogue_fails_the_laws_it_breaks(kill: KillRun, rogue: Rogue) -> None:
    assert not kill.results[rogue.id].truncated, f"the run against {rogue.id} died"
    outcomes = kill.outcomes(rogue.id)
    survived = {
        law: outcomes.get(law) for law in rogue.breaks if outcomes.get(law) is not Outcome.FAIL
    }
    assert not survived, (
        f"rogue {rogue.id} ({rogue.change}) was not caught: {survived} "
        f"(FAIL expected)\n{kill.log(rogue.id)[-3000:]}"
    )


def test_every_must_law_is_killed_by_some_rogue(kill: KillRun) -> None:
    killed = {
        law
        for rogue in ROGUES
        for law in rogue.breaks
        if kill.outcomes(rogue.id).get(law) is Outcome.FAIL
    }
    unguarded = [law for law in must_laws_under_test() if law not in killed]
    assert not unguarded, f"unguarded MUST laws (no rogue kills them): {unguarded}"


def test_the_stateful_test_finds_a_deep_bug_and_shrinks_it(kill: KillRun) -> None:
    outcomes = kill.outcomes(SHRINK_JOB)
    assert Outcome.FAIL in outcomes.values(), (
        f"the stateful test missed the depth rogue: {outcomes}\n{kill.log(SHRINK_JOB)[-3000:]}"
    )
    steps = shrunk_steps(kill.log(SHRINK_JOB))
    assert 1 <= len(steps) <= MAX_SHRUNK_STEPS, f"shrunk to {len(steps)} steps: {steps}"


def test_the_committed_kill_matrix_is_current(kill: KillRun) -> None:
    """Every cell but collateral ones: those may differ from run to run (see `settled`)."""
    assert settled(DOC.read_text(encoding="utf-8")) == settled(render(kill)), (
        f"{DOC} does not match this run: regenerate it with python -m tests.rogues --write"
    )
