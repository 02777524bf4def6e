"""The suite against a runtime in another language: examples/js-runtime on Node, through
its own stdio adapter, with its expectation manifest."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.verdicts import Outcome, read_results
from tests.suite_args import SUITE_COMMAND

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "js-runtime"
DECLARED_AND_PASSING = {
    "smoke.one-turn",
    "run.no-history",
    "follow-up.shows-last-answer",
    "follow-up.refuses-before-first-run",
    "continue-from.any-conversation",
    "checkpoint.plain-json",
    "checkpoint.final-answer",
    "checkpoint.no-trim",
    "conversation.verbatim",
    "mismatch.refuses-another-agents-conversation",
    "mismatch.default-id-never-refuses",
    "mismatch.changed-agent-continues",
    "in-flight.refused-before-send",
    "in-flight.first-run-intact",
    "in-flight.refusal-kind",
    "in-flight.per-instance",
    "failure.follow-up-continues-last-completed",
    "failure.checkpoint-is-last-completed",
}
KNOWN_GAPS = {"follow-up.is-continue-from-checkpoint", "failure.malformed-checkpoint-refused"}
"""Laws its expectations list as FAIL (XFAIL here)."""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        if os.environ.get("TURNLAW_REQUIRE_NODE"):
            pytest.fail("node is not on PATH, and TURNLAW_REQUIRE_NODE says it must be")
        pytest.skip("node is not on PATH: the JS runtime example cannot run here")
    return found


@pytest.mark.timeout(180)
def test_the_js_runtime_passes_what_it_declares_except_its_known_gap(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    done = subprocess.run(
        [
            *SUITE_COMMAND,
            "--impl",
            f"cmd:{node()} {EXAMPLE / 'adapter.mjs'}",
            "--validate-protocol",
            "--expectations",
            str(EXAMPLE / "expectations.toml"),
            "--results",
            str(results),
            "--repro-dir",
            str(tmp_path / "repro"),
        ],
        capture_output=True,
        text=True,
        timeout=170,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    read = read_results(results)
    assert read.header["implementation"] == "turnlaw js-runtime example 0.1.0 (javascript, stdio)"
    assert read.header["capabilities"] == [
        "call_service",
        "continue_from",
        "follow_up",
        "named_agents",
    ]
    # the start reply's notes say how its doors map (a cmd: adapter's, like a Python one's)
    notes = read.header["implementation_notes"]
    assert [note.split(":")[0] for note in notes] == ["run()", "follow_up()"]
    outcomes = read.per_law()
    assert {law for law, o in outcomes.items() if o is Outcome.PASS} == DECLARED_AND_PASSING
    assert {law: outcomes[law] for law in KNOWN_GAPS} == dict.fromkeys(KNOWN_GAPS, Outcome.XFAIL)
    rest = set(outcomes) - DECLARED_AND_PASSING - KNOWN_GAPS
    assert rest and all(outcomes[law] is Outcome.NOT_APPLICABLE for law in rest), outcomes
    assert not (tmp_path / "repro").exists(), "a known (expected) failure wrote a repro file"
