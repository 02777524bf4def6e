"""Expectation manifests as third-party runs use them: a pinned framework version, an
expected failure the fake also saw on the wire, and a results header that carries both."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

import conformance.runner.plugin  # noqa: F401
import reference_impl.adapter  # noqa: F401
from conformance.__main__ import main as conformance_cli
from conformance.verdicts import ExpectationsError, Outcome, load_expectations, read_results
from tests.suite_args import PLUGIN_ARGS, nested_suite

# Imported here so each nested run does not import the SDKs again (see test_runner.py).

PLUGIN = [
    *PLUGIN_ARGS,
    "--dialects",
    "openai-chat",
    "--deliveries",
    "stream",
    "--pyargs",
    "conformance.laws.test_smoke",
    "conformance.laws.test_run",
]
NO_HISTORY = '[law."run.no-history"]\noutcome = "FAIL"\nreason = "the second run asks twice"\n'

IMPLS = '''
from reference_impl.adapter import ReferenceImplementation


class Twice(ReferenceImplementation):
    """Every run after the first one asks the model twice: the second ask finds the fake's
    script used up, so the fake records a finding besides the failed law."""

    name = "twice"
    version = "9.9.9"
    notes = ("runs after the first ask twice",)

    async def create_agent(self, spec):
        agent = await super().create_agent(spec)
        original, runs = agent.run, []

        async def run(message, **kw):
            runs.append(message)
            if len(runs) > 1:
                await original(message, **kw)
            return await original(message, **kw)

        agent.run = run
        return agent


class TwiceOnChat(Twice):
    """Misbehaves in one dialect only."""

    async def create_agent(self, spec):
        if spec.dialect == "openai-chat":
            return await super().create_agent(spec)
        return await ReferenceImplementation.create_agent(self, spec)


twice, twice_on_chat = Twice(), TwiceOnChat()
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    return nested_suite(pytester, impls=IMPLS)


def test_an_expected_failure_the_fake_also_flagged_stays_xfail(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    manifest = tmp_path / "twice.toml"
    manifest.write_text(NO_HISTORY)
    results = tmp_path / "results.jsonl"
    run = suite.runpytest(
        *PLUGIN,
        "-k",
        "one_turn or only_its_own",
        "--impl",
        "impls:twice",
        "--expectations",
        str(manifest),
        "--results",
        str(results),
    )
    assert run.ret == 0, run.stdout.str()
    run.stdout.fnmatch_lines(["*XFAIL*run.no-history*"])
    run.assert_outcomes(passed=1, xfailed=1, errors=0)
    header = read_results(results).header
    assert header["implementation_version"] == "9.9.9"
    assert header["implementation_notes"] == ["runs after the first ask twice"]
    assert header["expectations"] == {
        "run.no-history": {
            "outcome": "FAIL",
            "reason": "the second run asks twice",
            "link": None,
            "intermittent": False,
        }
    }


@pytest.mark.parametrize(
    ("pin", "message"),
    [
        ('package = "pytest"\nversion = "0.0.1"\n', "describes pytest 0.0.1, but"),
        ('package = "no-such-dist-turnlaw"\nversion = "1"\n', "which is not installed"),
        ('package = "pytest"\n', "[framework]"),
        # found by the hostile fuzzer's dev profile: a line break echoed into the message
        ('package = "pytest"\nversion = "1\\n2"\n', "[framework].version: String should match"),
    ],
)
def test_a_manifest_pinned_to_another_version_refuses_to_run(
    suite: pytest.Pytester, tmp_path: Path, pin: str, message: str
) -> None:
    manifest = tmp_path / "pinned.toml"
    manifest.write_text(f"[framework]\n{pin}\n{NO_HISTORY}")
    run = suite.runpytest(*PLUGIN, "--impl", "impls:twice", "--expectations", str(manifest))
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert message in run.stderr.str()


def test_a_manifest_pinned_to_the_installed_version_runs(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    manifest = tmp_path / "pinned.toml"
    manifest.write_text(f'[framework]\npackage = "pytest"\nversion = "{version("pytest")}"\n')
    run = suite.runpytest(
        *PLUGIN, "-k", "one_turn", "--impl", "impls:twice", "--expectations", str(manifest)
    )
    assert run.ret == 0, run.stdout.str() + run.stderr.str()


def test_a_law_that_fails_in_one_dialect_only_is_still_expected_to_fail(
    suite: pytest.Pytester, tmp_path: Path
) -> None:
    """A law's outcome is its worst test's: the dialect where it passes is no XPASS."""
    manifest = tmp_path / "twice.toml"
    manifest.write_text(NO_HISTORY)
    args = [a for a in PLUGIN if a != "openai-chat"]
    args[args.index("--dialects") + 1 : args.index("--dialects") + 1] = [
        "openai-chat,openai-responses"
    ]
    run = suite.runpytest(
        *args,
        "-k",
        "only_its_own",
        "--impl",
        "impls:twice_on_chat",
        "--expectations",
        str(manifest),
    )
    assert run.ret == 0, run.stdout.str()
    run.assert_outcomes(passed=1, xfailed=1)
    run.stdout.fnmatch_lines(["*XFAIL*run.no-history*"])


def passing_everywhere(suite: pytest.Pytester, manifest: Path, results: Path) -> pytest.RunResult:
    """run.no-history's own test where twice_on_chat keeps the law: every test passes."""
    return suite.runpytest(
        *PLUGIN,
        "-k",
        "only_its_own",
        "--impl",
        "impls:twice_on_chat",
        "--dialects",
        "openai-responses",
        "--expectations",
        str(manifest),
        "--results",
        str(results),
    )


def test_a_law_expected_to_fail_that_passes_everywhere_fails_the_run(
    suite: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "stale.toml"
    manifest.write_text(NO_HISTORY)
    results = tmp_path / "results.jsonl"
    run = passing_everywhere(suite, manifest, results)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines(["*XPASS*run.no-history*", "*but it passed: remove the entry*"])

    # read back later, the results file says the same, and why it is red
    assert read_results(results).per_law() == {"run.no-history": Outcome.XPASS}
    assert conformance_cli(["report", str(results)]) == 1
    said = capsys.readouterr().out
    assert "XPASS           run.no-history" in said
    assert "problem: run.no-history: expected FAIL" in said


def test_an_intermittent_failure_that_passes_is_reported_but_not_red(
    suite: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runtime that races fails a law in some runs only: its entry says so, and a run
    where it passes is an XPASS the manifest accepts, in the run and in its results."""
    manifest = tmp_path / "races.toml"
    manifest.write_text(NO_HISTORY + "intermittent = true\n")
    results = tmp_path / "results.jsonl"
    run = passing_everywhere(suite, manifest, results)
    assert run.ret == 0, run.stdout.str()
    run.stdout.fnmatch_lines(["*XPASS*run.no-history*known intermittent*", "*verdict: green*"])
    assert "remove the entry" not in run.stdout.str()
    assert read_results(results).per_law() == {"run.no-history": Outcome.XPASS}
    assert read_results(results).red_reasons() == []
    assert conformance_cli(["report", str(results)]) == 0
    capsys.readouterr()

    # and in the runs where it fails, the failure is the expected one
    failing = suite.runpytest(
        *PLUGIN,
        "-k",
        "only_its_own",
        "--impl",
        "impls:twice",
        "--expectations",
        str(manifest),
    )
    assert failing.ret == 0, failing.stdout.str()
    failing.stdout.fnmatch_lines(["*XFAIL*run.no-history*"])


def test_only_a_failure_can_be_intermittent(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(
        '[law."smoke.one-turn"]\noutcome = "NOT_APPLICABLE"\nreason = "x"\nintermittent = true\n'
    )
    with pytest.raises(ExpectationsError, match="intermittent = true goes with"):
        load_expectations(path)
    path.write_text('[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = "x"\nintermittent = 2\n')
    with pytest.raises(ExpectationsError, match="intermittent"):
        load_expectations(path)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (b'[law."smoke.one-turn"]\noutcome = "FAIL\xff"\n', "not UTF-8 text (line 2"),
        (b'[law]\n"smoke.one-turn" = "FAIL"\n', '[law."smoke.one-turn"]: Input should be'),
        (b'[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = 3\n', '."smoke.one-turn"].reason'),
        (b'law = ["smoke.one-turn"]\n', "[law]: Input should be a valid dictionary"),
        (b'[[law]]\noutcome = "FAIL"\n', "[law]: Input should be a valid dictionary"),
        (b'[laws."smoke.one-turn"]\noutcome = "FAIL"\n', "[laws]: extra inputs are not permitted"),
        (b'[law."smoke.one-turn"]\noutcome = "FAIL"\n', '[law."smoke.one-turn"].reason: field'),
        (b'[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = ""\n', "at least 1 character"),
        (b'[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = "x"\nnote = 1\n', ".note: extra"),
        (b'[law."smoke.one-turn"\n', "not TOML"),
        (b'[framework]\npackage = ""\nversion = "1"\n', "[framework].package: String should"),
        (b'[framework]\npackage = "pytest"\nversion = 1\n', "[framework].version: Input should"),
        (b'[law."no.such-law"]\noutcome = "FAIL"\nreason = "x"\n', "unknown law ids"),
    ],
)
def test_a_broken_manifest_is_a_typed_error_naming_the_entry(
    tmp_path: Path, text: bytes, said: str
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_bytes(text)
    with pytest.raises(ExpectationsError) as raised:
        load_expectations(path)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("outcome", ["PASS", "XPASS", "XFAIL", "ERROR", "TIMEOUT", "MAYBE"])
def test_an_entry_names_an_outcome_the_law_may_have(tmp_path: Path, outcome: str) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(f'[law."smoke.one-turn"]\noutcome = "{outcome}"\nreason = "x"\n')
    with pytest.raises(ExpectationsError, match=r'\[law."smoke.one-turn"\].outcome'):
        load_expectations(path)


@pytest.mark.parametrize("outcome", ["FAIL", "NOT_APPLICABLE"])
def test_fail_and_not_applicable_are_expectable(tmp_path: Path, outcome: str) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(f'[law."smoke.one-turn"]\noutcome = "{outcome}"\nreason = "x"\n')
    assert load_expectations(path)["smoke.one-turn"].outcome == outcome


@pytest.mark.parametrize(
    "text",
    [b'[law."smoke.one-turn"]\noutcome = "FAIL"\nreason = "\xff"\n', b'[law]\n"x" = 1\n'],
)
def test_a_broken_manifest_stops_the_run_as_a_usage_error(
    suite: pytest.Pytester, tmp_path: Path, text: bytes
) -> None:
    manifest = tmp_path / "manifest.toml"
    manifest.write_bytes(text)
    run = suite.runpytest(*PLUGIN, "--impl", "impls:twice", "--expectations", str(manifest))
    assert run.ret == pytest.ExitCode.USAGE_ERROR, run.stderr.str()
    assert "INTERNALERROR" not in run.stderr.str() + run.stdout.str()
