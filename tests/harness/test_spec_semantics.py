"""No false FAIL from the spec's words: runtimes that read them as real ones do PASS.

Each case runs the laws a reading touches, in a nested pytest, against a runtime from
`semantics_runtimes.py` that honours those laws in its own way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import conformance.runner.plugin
from conformance.verdicts import Outcome, ResultsFile, read_results
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


def test_a_runtime_whose_trace_tool_needs_an_informed_call_passes_the_trace_laws(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """Its trace tool answers a call with unknown arguments by listing what can be asked;
    the scripted model asks again with one of those, as a model does."""
    results = judged(
        suite,
        tmp_path,
        "trace_needs_informed_call",
        "conformance.laws.test_self_explain",
        "conformance.laws.test_explains_from_the_trace",
    )
    laws = results.per_law()
    assert laws["self-explain.reads-the-trace"] is Outcome.PASS
    assert laws["self-explain.trace-tools-say-so"] is Outcome.PASS
    assert failures(results) == []


AGENT_LAWS = [
    f"conformance.laws.{path.stem}"
    for path in sorted(
        (Path(conformance.runner.plugin.__file__).parents[1] / "laws").glob("test_*.py")
    )
    if not path.stem.startswith(("test_hosting", "test_sessions"))
]


def test_a_runtime_wrapping_tool_outputs_passes_every_law_it_obeys(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """It shows the model `{"result": "<output>"}` for every tool output and decision:
    the laws compare tool results by the output they carry, and the failure laws' faults,
    scripted to fire on a decision, fire (had they not, the failed resume would have
    answered, and its law FAILed)."""
    results = judged(suite, tmp_path, "wraps_tool_outputs", *AGENT_LAWS)
    assert failures(results) == []
    failed_resumes = [r for r in results.records if r.law == "failure.failed-resume-stays-pending"]
    assert failed_resumes and all(r.outcome is Outcome.PASS for r in failed_resumes)
    assert results.per_law()["pending.resume-continues"] is Outcome.PASS


def test_a_runtime_with_a_name_grammar_is_handed_only_names_it_declares(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """Its agents refuse ids outside their grammar (as build errors of its own). Declared as
    `agent_id_pattern`, the mismatch laws draw only names it takes and pass; undeclared,
    the names outside it are the adapter's ERRORs, which is why the declaration exists."""
    declared = judged(suite, tmp_path, "name_grammar", "conformance.laws.test_whose_conversation")
    assert failures(declared) == []
    assert declared.per_law()["mismatch.refuses-another-agents-conversation"] is Outcome.PASS
    undeclared = judged(
        suite,
        tmp_path / "undeclared",
        "name_grammar_undeclared",
        "conformance.laws.test_whose_conversation",
    )
    refused = [r for r in undeclared.records if "invalid agent name" in r.detail]
    assert refused and all(r.outcome is Outcome.ERROR for r in refused), failures(undeclared)


def test_a_runtime_refusing_blank_input_first_passes_the_refusal_kind_laws(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """An empty or whitespace message is refused as invalid_input, in flight or with a
    question pending alike: refused before anything was sent, which is the core."""
    results = judged(
        suite,
        tmp_path,
        "refuses_blank_input",
        "conformance.laws.test_in_flight",
        "conformance.laws.test_pending",
    )
    laws = results.per_law()
    assert laws["in-flight.refusal-kind"] is Outcome.PASS
    assert laws["pending.refusal-kind"] is Outcome.PASS
    assert failures(results) == []


def test_a_runtime_noticing_dropped_turns_as_a_user_message_passes_the_window_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """The notice is not one of the conversation's turns: the window is counted by the
    messages the test sent, and the notice is judged on its own."""
    results = judged(
        suite,
        tmp_path,
        "notices_dropped_turns",
        "conformance.laws.test_recall",
        "conformance.laws.test_continuation",
        "conformance.laws.test_bounded_context",
    )
    assert results.per_law()["window.bounds-what-is-shown"] is Outcome.PASS
    assert results.per_law()["checkpoint.no-trim"] is Outcome.PASS
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
