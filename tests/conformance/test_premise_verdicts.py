"""A failed premise is charged to its own law, and one root cause reads as one.

Nested runs of two tiny law tests: `pending.refuses-new-message`'s own test (the core),
and a test of `pending.refusal-kind` whose set-up needs a refusal to come at all (its
premise: a kind can only be read off a refusal). The rule for the
exit status (docs/suite.md, "The exit status"): a premise ERROR is expected exactly when
the manifest expects its premise law to FAIL — and that law's own tests then must still
fail, or the entry is an XPASS and the run is red. So a runtime with one known failure
stays green, and a premise failing on a law that passes its own tests is never hidden.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import verdicts
from conformance.__main__ import main as conformance_cli
from conformance.verdicts import Outcome, consequence_note, read_results, root_causes
from conformance.verdicts.matrix import column_from_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

WINDOW, NO_TRIM = "pending.refuses-new-message", "pending.refusal-kind"
"""The premise law (the core) and the law resting on it (the kind); the names are the
module's history: the no-trim law no longer rests on the window."""

IMPL = """
from conformance.adapter import Capability


class DeclaresEverything:
    name = "declares everything"
    capabilities = frozenset(Capability)

    async def create_agent(self, spec):
        raise NotImplementedError("these law tests build no agent")


implementation = DeclaresEverything()
"""

LAWS = """
import pytest

from conformance.laws._kit import premise

WINDOW_HOLDS = {window}
WINDOW_HOLDS_IN_SET_UP = {set_up}
NO_TRIM_HOLDS = {no_trim}


@pytest.mark.law("pending.refuses-new-message")
def test_the_window_bounds_what_is_shown():
    assert WINDOW_HOLDS, "the window showed every turn"


@pytest.mark.law("pending.refusal-kind")
def test_nothing_trims_the_stored_history():
    premise(
        "pending.refuses-new-message", WINDOW_HOLDS_IN_SET_UP, "the set-up's window showed all"
    )
    assert NO_TRIM_HOLDS, "the stored history was trimmed"
"""


def run_laws(
    pytester: pytest.Pytester,
    tmp_path: Path,
    *,
    window: bool,
    set_up: bool,
    no_trim: bool = True,
    expected: tuple[str, ...] = (),
) -> tuple[pytest.RunResult, Path]:
    suite = nested_suite(pytester, premise_impl=IMPL)
    suite.makepyfile(test_laws=LAWS.format(window=window, set_up=set_up, no_trim=no_trim))
    # These law tests are not the suite's own (conformance.laws), which is all a repro file
    # may name: the capture writes none for them, and must not crash trying.
    args = [*PLUGIN_ARGS, "--repro-dir", str(tmp_path / "repro")]
    args += ["--impl", "premise_impl:implementation", "test_laws.py"]
    results, report_md = tmp_path / "reference.jsonl", tmp_path / "report.md"
    args += ["--results", str(results), "--report-md", str(report_md)]
    if expected:
        manifest = tmp_path / "manifest.toml"
        manifest.write_text(
            "".join(
                f'[law."{law}"]\noutcome = "FAIL"\nreason = "known: {law}"\n' for law in expected
            )
        )
        args += ["--expectations", str(manifest)]
    return suite.runpytest(*args), results


def test_a_failed_premise_is_an_error_marked_as_a_consequence_of_its_law(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, path = run_laws(pytester, tmp_path, window=False, set_up=False)
    results = read_results(path)
    assert results.per_law() == {WINDOW: Outcome.FAIL, NO_TRIM: Outcome.ERROR}
    [record] = [r for r in results.records if r.law == NO_TRIM]
    assert record.premise == WINDOW
    assert f"premise not met: {WINDOW}: the set-up's window showed all" in record.detail
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    # a user's own law module (not conformance.laws) gets no repro file, and no crash
    assert not (tmp_path / "repro").exists() or not list((tmp_path / "repro").iterdir())
    assert "INTERNALERROR" not in run.stdout.str()
    consequence = f"possibly a consequence of {WINDOW}"
    assert any(NO_TRIM in line and consequence in line for line in run.outlines), run.outlines
    markdown = (tmp_path / "report.md").read_text()
    assert f"| `{NO_TRIM}` | MUST | ERROR | {consequence}: " in markdown, markdown
    capsys.readouterr()
    assert conformance_cli(["report", str(path)]) == 1
    said = capsys.readouterr().out
    assert any(NO_TRIM in line and consequence in line for line in said.splitlines()), said
    cell = column_from_results(path).laws[NO_TRIM]
    assert cell.outcome == "ERROR"
    assert (
        cell.reason == f"{consequence}: premise not met: {WINDOW}: the set-up's window showed all"
    )


def test_a_premise_error_is_expected_when_its_law_s_failure_is(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One known failure (the window), seen by two tests: the run stays green, and the
    matrix charges it to the window's law (BLOCKED), not to the law it stopped."""
    run, path = run_laws(pytester, tmp_path, window=False, set_up=False, expected=(WINDOW,))
    results = read_results(path)
    assert results.per_law() == {WINDOW: Outcome.XFAIL, NO_TRIM: Outcome.XFAIL}
    assert results.footer is not None and results.footer.verdict == "green"
    assert run.ret == pytest.ExitCode.OK, run.stdout.str()
    assert run.parseoutcomes().get("xfailed") == 2
    assert conformance_cli(["report", str(path)]) == 0
    markdown = (tmp_path / "report.md").read_text()
    assert f"premise not met: {WINDOW}, a known failure: known: {WINDOW}" in markdown
    cell = column_from_results(path).laws[NO_TRIM]
    assert cell.outcome == "BLOCKED", cell
    assert f"premise not met: {WINDOW}, a known failure" in cell.reason


def test_a_premise_error_is_never_expected_when_its_law_passed(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """The window's own test passes, so the manifest's entry for it is an XPASS: the
    premise that failed elsewhere cannot keep the run green."""
    run, path = run_laws(pytester, tmp_path, window=True, set_up=False, expected=(WINDOW,))
    results = read_results(path)
    assert results.per_law() == {WINDOW: Outcome.XPASS, NO_TRIM: Outcome.XFAIL}
    assert results.footer is not None and results.footer.verdict == "red"
    assert run.ret == pytest.ExitCode.TESTS_FAILED


def test_a_premise_error_is_not_expected_by_the_law_under_test_s_own_entry(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """Listing the law that was never judged does not make its ERROR expected."""
    run, path = run_laws(pytester, tmp_path, window=False, set_up=False, expected=(NO_TRIM,))
    results = read_results(path)
    assert results.per_law()[NO_TRIM] is Outcome.ERROR
    assert run.ret == pytest.ExitCode.TESTS_FAILED


def test_a_law_s_own_fail_after_its_assumed_law_failed_is_marked(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    _, path = run_laws(pytester, tmp_path, window=False, set_up=True, no_trim=False)
    results = read_results(path)
    assert results.per_law() == {WINDOW: Outcome.FAIL, NO_TRIM: Outcome.FAIL}
    assert root_causes(results.per_law(), results.records) == {NO_TRIM: [WINDOW]}
    cell = column_from_results(path).laws[NO_TRIM]
    assert cell.reason.startswith(f"possibly a consequence of {WINDOW}: not in the manifest")


def record(law: str, outcome: Outcome, premise: str | None = None) -> verdicts.TestRecord:
    return verdicts.TestRecord(law=law, test="t", outcome=outcome, duration=0.0, premise=premise)


@pytest.mark.parametrize(
    ("outcomes", "causes"),
    [
        ({WINDOW: Outcome.FAIL, NO_TRIM: Outcome.FAIL}, {NO_TRIM: [WINDOW]}),
        ({WINDOW: Outcome.XFAIL, NO_TRIM: Outcome.XFAIL}, {NO_TRIM: [WINDOW]}),
        ({WINDOW: Outcome.PASS, NO_TRIM: Outcome.FAIL}, {}),  # its own failure
        ({WINDOW: Outcome.FAIL, NO_TRIM: Outcome.PASS}, {}),
        ({WINDOW: Outcome.FAIL, NO_TRIM: Outcome.ERROR}, {}),  # an ERROR of its own
        ({WINDOW: Outcome.NOT_APPLICABLE, NO_TRIM: Outcome.FAIL}, {}),
    ],
)
def test_root_causes_are_assumed_laws_that_failed_too(
    outcomes: dict[str, Outcome], causes: dict[str, list[str]]
) -> None:
    records = [record(law, outcome) for law, outcome in outcomes.items()]
    assert root_causes(outcomes, records) == causes


def test_a_premise_names_a_root_cause_the_registry_does_not_list() -> None:
    """The law a premise named is a root cause even when `assumes` does not list it."""
    outcomes = {"run.no-history": Outcome.FAIL, "smoke.one-turn": Outcome.ERROR}
    records = [record("smoke.one-turn", Outcome.ERROR, premise="run.no-history")]
    assert root_causes(outcomes, records) == {"smoke.one-turn": ["run.no-history"]}
    assert consequence_note(["a.b", "c.d"]) == "possibly a consequence of a.b, c.d"


WIRE_LAWS = """
import httpx
import pytest

from conformance.laws._kit import premise, text

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.law("pending.refusal-kind")
def test_a_premise_break_the_fake_also_saw(fake):
    fake.script([text("the only answer scripted")])
    url = f"{fake.base_url}/chat/completions"
    sent = [httpx.post(url, json=BODY, headers={"authorization": "Bearer k"}) for _ in "ab"]
    # the second request is one the script did not allow: the fake saw the break too
    premise("pending.refuses-new-message", len(sent) == 1, "two requests where one was due")
"""


def test_a_premise_the_wire_also_saw_broken_is_still_the_premise_s_error(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """A kind law's test whose core broke: the extra request exhausts the fake's script,
    which alone would make the test a FAIL. The test named the premise, so it is an
    ERROR charged to the premise law (a known failure when the manifest expects it)."""
    suite = nested_suite(pytester, premise_impl=IMPL)
    suite.makepyfile(test_wire_laws=WIRE_LAWS)
    results = tmp_path / "results.jsonl"
    manifest = tmp_path / "manifest.toml"
    manifest.write_text(f'[law."{WINDOW}"]\noutcome = "FAIL"\nreason = "known"\n')
    args = [*PLUGIN_ARGS, "-p", "no:conformance.replay.capture"]
    args += ["--impl", "premise_impl:implementation", "test_wire_laws.py"]
    suite.runpytest(*args, "--results", str(results))
    [record] = [r for r in read_results(results).records if r.law == NO_TRIM]
    assert (record.outcome, record.premise) == (Outcome.ERROR, WINDOW), record
    suite.runpytest(*args, "--results", str(results), "--expectations", str(manifest))
    [record] = [r for r in read_results(results).records if r.law == NO_TRIM]
    assert (record.outcome, record.premise) == (Outcome.XFAIL, WINDOW), record
