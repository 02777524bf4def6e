"""The conformance runner judged on small implementations made to misbehave.

Each case runs the real suite (a slice of it) in a nested pytest, against an
implementation module written into the test's directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401
import reference_impl.adapter  # noqa: F401
from conformance.verdicts import Outcome, read_results
from tests.harness.results_files import record, write_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

# The two imports above are not unused: pytester restores sys.modules after each nested
# run, so anything first imported inside one (the SDKs, the runtime) is imported again
# by the next, which pays for those imports again. Imported here, they stay.

PLUGIN = [*PLUGIN_ARGS, "--dialects", "openai-chat", "--deliveries", "stream"]
ONE_TURN_AND_RUN = [*PLUGIN, "--pyargs", "conformance.laws.test_smoke", "conformance.laws.test_run"]
SMOKE_ONLY = [*PLUGIN, "--pyargs", "conformance.laws.test_smoke"]

REFERENCE_WRAPPER = '''
from conformance.adapter import Capability
from reference_impl.adapter import ReferenceImplementation, ReferenceAgent


class Limited(ReferenceImplementation):
    name = "limited"
    capabilities = frozenset({Capability.FOLLOW_UP})


class Amnesiac(ReferenceImplementation):
    """run() forgets nothing: it always continues the last conversation (breaks run.no-history)."""

    name = "amnesiac"

    async def create_agent(self, spec):
        agent = await super().create_agent(spec)
        original = agent.run

        async def run(message, *, continue_from=None, **kw):
            if continue_from is None and agent.agent._conversation is not None:
                continue_from = agent.agent.checkpoint().to_data()
            return await original(message, continue_from=continue_from, **kw)

        agent.run = run
        return agent


class Broken(ReferenceImplementation):
    name = "broken"

    async def create_agent(self, spec):
        raise RuntimeError("this adapter cannot build an agent")


class GivesUp(ReferenceImplementation):
    """One turn works; then the (cmd:) adapter behind it is dead for good."""

    name = "gives up"

    async def create_agent(self, spec):
        from conformance.stdio import AdapterGaveUp

        agent = await super().create_agent(spec)

        async def follow_up(message):
            raise AdapterGaveUp("the adapter crashed and was restarted 2 time(s), the limit")

        agent.follow_up = follow_up
        return agent


limited, amnesiac, broken, gives_up = Limited(), Amnesiac(), Broken(), GivesUp()
not_an_implementation = object()
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester, impls=REFERENCE_WRAPPER)


def test_undeclared_capabilities_are_not_applicable(suite: pytest.Pytester, tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(*ONE_TURN_AND_RUN, "--impl", "impls:limited", "--results", str(results))
    run.assert_outcomes(passed=2, skipped=1)
    run.stdout.fnmatch_lines(
        ["*NOT_APPLICABLE*run.conversation-id-does-not-join*", "*MUST laws: 2/2 pass*"]
    )
    read = read_results(results)
    assert read.header["implementation"] == "limited"
    assert read.header["capabilities"] == ["follow_up"]
    assert not read.truncated
    assert read.footer is not None and read.footer.totals[Outcome.NOT_APPLICABLE] == 1
    skipped = [r for r in read.records if r.outcome is Outcome.NOT_APPLICABLE]
    # the reason alone: no checkout path, no plugin line number
    assert [r.detail for r in skipped] == [
        "Skipped: NOT_APPLICABLE: run.conversation-id-does-not-join needs the identity capability"
    ]


def test_record_writes_each_tests_wire(suite: pytest.Pytester, tmp_path: Path) -> None:
    folder = tmp_path / "recorded"
    run = suite.runpytest(*SMOKE_ONLY, "--impl", "impls:limited", "--record", str(folder))
    run.assert_outcomes(passed=1)
    (recording,) = folder.iterdir()
    exported = json.loads(recording.read_text())
    assert exported[0]["ir"]["messages"][0]["text"] == "Book me a table for two on Friday."
    assert "sk-turnlaw" not in recording.read_text()


def test_a_broken_law_fails_and_the_report_says_which(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    report = tmp_path / "report.md"
    run = suite.runpytest(*ONE_TURN_AND_RUN, "--impl", "impls:amnesiac", "--report-md", str(report))
    assert run.ret == 1
    run.stdout.fnmatch_lines(["*FAIL*MUST*run.no-history*"])
    assert "| `run.no-history` | MUST | FAIL |" in report.read_text()


def test_an_adapter_that_cannot_run_one_turn_stops_the_run(suite: pytest.Pytester) -> None:
    run = suite.runpytest(*ONE_TURN_AND_RUN, "--impl", "impls:broken")
    assert run.ret != 0
    run.stdout.fnmatch_lines(["*adapter broken*"])
    run.assert_outcomes(errors=0, failed=1)  # the smoke law, then nothing else ran


def test_expectations_turn_known_failures_into_xfail(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    manifest = tmp_path / "amnesiac.toml"
    manifest.write_text(
        '[law."run.no-history"]\noutcome = "FAIL"\nreason = "run() carries history"\n'
    )
    run = suite.runpytest(
        *ONE_TURN_AND_RUN,
        "-k",
        "one_turn or only_its_own",
        "--impl",
        "impls:amnesiac",
        "--expectations",
        str(manifest),
    )
    assert run.ret == 0, run.stdout.str()
    run.stdout.fnmatch_lines(["*XFAIL*run.no-history*"])


@pytest.mark.parametrize(
    ("manifest", "complaint"),
    [
        ('[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = "thought broken"\n', "*XPASS*"),
        ('[law."pending.resume-continues"]\noutcome = "FAIL"\nreason = "old"\n', "*stale entry*"),
    ],
)
def test_unexpected_passes_and_stale_entries_fail_the_run(
    suite: pytest.Pytester, tmp_path: Path, manifest: str, complaint: str
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(manifest)
    run = suite.runpytest(*SMOKE_ONLY, "--impl", "impls:limited", "--expectations", str(path))
    assert run.ret != 0
    run.stdout.fnmatch_lines([complaint])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("impls", "expected 'module:attribute'"),
        ("nowhere:impl", "cannot import nowhere"),
        ("impls:missing", "has no attribute 'missing'"),
        ("impls:not_an_implementation", "not an Implementation"),
    ],
)
def test_bad_impl_specs_are_usage_errors(suite: pytest.Pytester, spec: str, message: str) -> None:
    run = suite.runpytest(*SMOKE_ONLY, "--impl", spec)
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert message in run.stderr.str()


def test_a_results_file_without_footer_is_truncated(tmp_path: Path) -> None:
    path = write_results(
        tmp_path / "results.jsonl", [record("run.no-history", "PASS")], footer=False
    )
    read = read_results(path)
    assert read.truncated and len(read.records) == 1


@pytest.mark.parametrize(("ci", "profile"), [("", "dev"), ("true", "ci")])
def test_without_a_chosen_profile_the_property_laws_run_and_the_profile_is_restored(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, profile: str
) -> None:
    """Hypothesis' default profile would fail every law test on its function-scoped
    fixtures (a health check, an ERROR); the plugin picks `ci` on CI, `dev` elsewhere."""
    from hypothesis import settings

    monkeypatch.setenv("CI", ci)
    before = settings.get_current_profile_name()
    suite.makeconftest(
        "from hypothesis import settings\n"
        "def pytest_sessionfinish(session):\n"
        "    print('profile during the run:', settings.get_current_profile_name())\n"
    )
    run = suite.runpytest(
        *PLUGIN,
        "-s",
        "--pyargs",
        "conformance.laws.test_whose_conversation",
        "-k",
        "continues_its_own",
    )
    run.assert_outcomes(passed=1)
    run.stdout.fnmatch_lines([f"*profile during the run: {profile}"])
    assert settings.get_current_profile_name() == before


def test_an_adapter_that_gave_up_stops_the_run_instead_of_erroring_every_law(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *PLUGIN,
        "--pyargs",
        "conformance.laws.test_smoke",
        "conformance.laws.test_continuation",
        "conformance.laws.test_run",
        "--impl",
        "impls:gives_up",
        "--results",
        str(results),
    )
    assert run.ret != 0
    run.stdout.fnmatch_lines(["*adapter gave up*no more laws can be judged*"])
    records = read_results(results).records
    assert [r.outcome.value for r in records].count("ERROR") == 1, records
    assert not any(r.law.startswith("run.") for r in records), "the run went on after it"
