"""No false FAIL from the spec's words: runtimes that read them as real ones do PASS.

Each case runs the laws a reading touches, in a nested pytest, against a runtime from
`semantics_runtimes.py` that honours those laws in its own way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
from conformance.runner.collect import ResultsFile, read_results
from conformance.runner.outcomes import Outcome
from tests.suite_args import PLUGIN_ARGS, nested_suite

RUNTIMES = Path(__file__).with_name("semantics_runtimes.py")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester)


def judged(suite: pytest.Pytester, tmp_path: Path, impl: str, *modules: str) -> ResultsFile:
    """The laws of `modules` against `impl`: an attribute of semantics_runtimes, or a
    `cmd:` to run."""
    results = tmp_path / "results.jsonl"
    if not impl.startswith("cmd:"):
        impl = f"tests.harness.semantics_runtimes:{impl}"
    suite.runpytest(
        *PLUGIN_ARGS,
        "--dialects",
        "openai-chat",
        "--hypothesis-profile=ci",
        "--impl",
        impl,
        "--results",
        str(results),
        "--pyargs",
        *modules,
    )
    return read_results(results)


def failures(results: ResultsFile) -> list[str]:
    return [
        f"{r.law}: {r.outcome} {r.detail[:300]}"
        for r in results.records
        if r.outcome not in (Outcome.PASS, Outcome.NOT_APPLICABLE)
    ]


def test_a_runtime_minting_ids_and_timestamps_per_agent_passes_the_two_doors_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = judged(suite, tmp_path, "mints_ids", "conformance.laws.test_continuation")
    assert results.per_law()["follow-up.is-continue-from-checkpoint"] is Outcome.PASS
    assert failures(results) == []


def test_a_runtime_compacting_by_size_passes_the_compaction_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = judged(suite, tmp_path, "compacts_by_size", "conformance.laws.test_recall")
    folded = [r for r in results.records if r.law == "compaction.folded-travels"]
    # one test per trigger and delivery: the size trigger passes in every delivery, the
    # turn trigger is not applicable in every one
    by_trigger: dict[str, set[Outcome]] = {}
    for record in folded:
        trigger = "chars" if "chars" in record.test else "turns"
        by_trigger.setdefault(trigger, set()).add(record.outcome)
    assert by_trigger == {"chars": {Outcome.PASS}, "turns": {Outcome.NOT_APPLICABLE}}, folded
    skipped = [r for r in folded if r.outcome is Outcome.NOT_APPLICABLE]
    assert all("triggered by turns" in r.detail for r in skipped), skipped
    assert failures(results) == []


def test_a_runtime_whose_trace_tool_needs_activation_passes_the_self_explain_laws(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = judged(
        suite, tmp_path, "trace_needs_activation", "conformance.laws.test_self_explain"
    )
    assert results.per_law()["self-explain.trace-tools-say-so"] is Outcome.PASS
    assert failures(results) == []


@pytest.mark.parametrize(
    ("runtime", "module", "law"),
    [
        ("trace_needs_activation", "test_self_explain", "self-explain.trace-tools-say-so"),
        ("compacts_by_size", "test_recall", "compaction.folded-travels"),
    ],
)
def test_the_start_reply_carries_the_activation_tool_and_the_triggers(
    suite: pytest.Pytester, tmp_path: Path, runtime: str, module: str, law: str
) -> None:
    command = f"cmd:{sys.executable} {RUNTIMES} {runtime}"
    results = judged(suite, tmp_path, command, f"conformance.laws.{module}")
    assert any(r.law == law and r.outcome is Outcome.PASS for r in results.records)
    assert failures(results) == []


def test_a_runtime_whose_loader_mutates_the_checkpoint_it_is_handed_passes(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    # the failure-path laws hand one paused checkpoint to run(continue_from=), then to
    # resume twice: each door must get the checkpoint as the suite took it
    results = judged(suite, tmp_path, "consumes_checkpoints", "conformance.laws.test_failure")
    assert results.records
    assert failures(results) == []
