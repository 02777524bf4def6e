"""A second wire in the tests (issue 31 §3): the hosting laws judge a host by its profile.

tests/harness/second_wire.py serves the reference host behind a proxy that says every
outcome its own way (other statuses, nested refusal kinds, a failed run with no code, a
pause as a 200, its own event names, the decision in `answer`, no read route) and
declares that wire as its `wire_profile`. Every hosting law runs against it as a user
runs the suite (a child `python -m pytest`, one dialect, one delivery): with its profile
it passes them all, each record listing how its wire differs from the default as
information; the same host declaring no profile is read by the default one, and fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import conformance
from conformance.adapter import profile_differences
from conformance.registry import load_laws
from conformance.verdicts import Outcome, ResultsFile, read_results
from tests.harness.second_wire import SECOND_WIRE_PROFILE
from tests.rogues.kill import law_modules

ROOT = Path(__file__).resolve().parents[2]
HARNESS = "tests.harness.second_wire"
ONE_CELL = ("openai-chat", "whole")
"""The hosting laws' logic shows in one dialect and one delivery (the laws' own `stream`
parameter still sends both JSON and streamed requests)."""
RUN_DEADLINE = 400
"""Seconds one child run may take (some 40 on an idle two-core machine)."""
UNCLASSIFIED = "does not classify"
"""What a reply its profile cannot read is called in a FAIL (`assert_said`, `describe`)."""


def hosting_laws() -> set[str]:
    return {
        law_id
        for law_id, law in load_laws().items()
        if law_id.startswith("hosting.") and law.planned is None and not law.retired
    }


def run_hosting_laws(tmp_path: Path, attribute: str, *extra: str) -> tuple[ResultsFile, str]:
    """Every hosting law against `tests.harness.second_wire:<attribute>`: its results
    and the tail of what the run printed."""
    results = tmp_path / f"{attribute}.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *conformance.pytest_args(
                f"{HARNESS}:{attribute}",
                select=law_modules("hosting"),
                profile="ci",
                results=results,
                options=["-q", "-p", "no:cacheprovider", *extra],
                dialects=ONE_CELL[0],
                deliveries=ONE_CELL[1],
            ),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_DEADLINE,
        check=False,
    )
    said = (done.stdout + done.stderr)[-4000:]
    assert results.exists(), f"the run wrote no results file:\n{said}"
    read = read_results(results)
    assert not read.truncated, f"the run died:\n{said}"
    return read, said


@pytest.mark.timeout(RUN_DEADLINE + 60)
def test_the_second_wire_passes_every_hosting_law_by_its_profile(tmp_path: Path) -> None:
    results, said = run_hosting_laws(tmp_path, "implementation")
    outcomes = results.per_law()
    missing = hosting_laws() - set(outcomes)
    assert not missing, f"hosting laws not judged: {sorted(missing)}\n{said}"
    failing = {law: o.value for law, o in outcomes.items() if o is not Outcome.PASS}
    assert not failing, f"behind the second wire, with its profile: {failing}\n{said}"
    differences = {f"host wire: {line}" for line in profile_differences(SECOND_WIRE_PROFILE)}
    assert any("'the run failed'" in line for line in differences)
    for record in results.records:
        assert differences <= set(record.information), (
            f"{record.test} does not list how the host's wire differs from the default: "
            f"{record.information}"
        )


@pytest.mark.timeout(RUN_DEADLINE + 60)
def test_without_its_profile_the_second_wire_fails_the_hosting_laws(tmp_path: Path) -> None:
    # no shrinking: what fails, fails at its first reply
    results, said = run_hosting_laws(tmp_path, "without_profile", "--shrink-budget", "0")
    outcomes = results.per_law()
    passed = sorted(law for law in hosting_laws() if outcomes.get(law) is Outcome.PASS)
    assert not passed, f"read by the default profile, the second wire passed {passed}\n{said}"
    for law in ("hosting.session-continues", "hosting.pause-served"):
        assert outcomes.get(law) is Outcome.FAIL, f"{law}: {outcomes.get(law)}\n{said}"
        failed = [r for r in results.records if r.law == law and r.outcome is Outcome.FAIL]
        unread = [r.test for r in failed if UNCLASSIFIED not in r.detail]
        assert not unread, f"{law} FAILed otherwise than on an unclassified reply: {unread}"
    described = [line for r in results.records for line in r.information if "host wire" in line]
    assert not described, f"a host that declares no profile has the default one: {described}"
