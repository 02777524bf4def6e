"""The conformance run as a pytest plugin: `pytest -p conformance.runner.plugin --pyargs
conformance.laws [--impl module:attr]` (what `nox -s conformance` runs).

It loads the implementation, parametrizes the law tests over its dialects, turns a law
whose capability is undeclared into NOT_APPLICABLE, runs the smoke law first and stops
with "adapter broken" when it fails, and reports one outcome per law.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from ..adapter import Implementation
from ..connectors import Connection, ConnectorError, connect, connector_plugins
from ..errors import AdapterGaveUp
from ..redaction import ArtifactSweep, ReportScrubber, learn_environment, session_redactor
from ..registry import SMOKE_LAW, RegistryError, law, load_laws
from ..verdicts import NOT_APPLICABLE_PREFIX, Outcome, known_premise_note, not_applicable_sentence
from ..wire import ScriptedProvider
from ._run_state import (
    COLLECTOR,
    DELIVERIES,
    DIALECTS,
    IMPLEMENTATION,
    PROFILE_BEFORE,
    SWEEP,
    deliveries_for,
    dialects_for,
)
from .collect import Collector, Judgment
from .parallel import is_controller, is_worker, send_judgment
from .parallel import start as start_parallel
from .profiles import register_profiles
from .reporting import JUDGED, PytestCounts
from .selection import (
    asked_deliveries,
    asked_dialects,
    deliveries_to_run,
    dialects_to_run,
    law_ids,
    not_offered,
    select_laws,
    suite_test_id,
)

register_profiles()  # before --hypothesis-profile is read; tests/conftest.py relies on it

DEFAULT_IMPL = "reference_impl.adapter:implementation"
DEFAULT_CALL_TIMEOUT = 30.0
COUNTS = "turnlaw-pytest-counts"
REPORT_FILES = ("--results", "--report-md", "--adapter-stderr", "xmlpath")
"""The files a run writes besides the repro and recording files, swept when it ends."""
DEFAULT_TEST_TIMEOUT = 240.0
"""A law test's own deadline (pytest-timeout), for a runtime that blocks the event loop
itself, where no per-call deadline can fire. Scaled by --timeout-multiplier; a timeout
the user configured for pytest-timeout wins."""

# The reports and a failure pytest cannot render; the profiles' bounded shrink; the law
# fixtures; each connector's options and report hooks (`--impl cmd:...` adapters' labels);
# repro files of failing tests.
pytest_plugins = (
    "conformance.runner.reporting",
    "conformance.runner.profiles",
    "conformance.runner.fixtures",
    "conformance.runner.host_fixtures",
    *connector_plugins(),
    "conformance.replay.capture",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnlaw", "turnlaw conformance suite")
    group.addoption(
        "--impl",
        default=DEFAULT_IMPL,
        help="module:attr of the Implementation, or cmd:<command line> of a stdio adapter",
    )
    group.addoption(
        "--dialects", default="all", help="comma-separated dialects to run (default: all it has)"
    )
    group.addoption(
        "--deliveries",
        default="all",
        help="comma-separated deliveries to run, stream and/or whole (default: all it offers)",
    )
    group.addoption(
        "--law",
        action="append",
        default=[],
        metavar="ID",
        help="run only the tests of this law (an id: run.no-history) or family (a prefix "
        "ending in '.': hosting.); repeatable",
    )
    group.addoption("--results", type=Path, help="write the results JSONL here")
    group.addoption("--report-md", type=Path, help="write the per-law Markdown matrix here")
    group.addoption("--expectations", type=Path, help="TOML manifest of expected failures")
    group.addoption(
        "--record", type=Path, help="write each test's normalized wire recording into this folder"
    )
    group.addoption(
        "--call-timeout",
        type=float,
        default=DEFAULT_CALL_TIMEOUT,
        help=f"seconds one adapter call may take before it is a TIMEOUT "
        f"(default {DEFAULT_CALL_TIMEOUT:g})",
    )
    group.addoption(
        "--timeout-multiplier",
        type=float,
        default=1.0,
        help="scale every deadline of the run: adapter calls, a cmd: adapter's replies, test "
        "timeouts (slow machines, slow runtimes; e.g. 2); default 1",
    )


def load_implementation(spec: str, config: pytest.Config | None = None) -> Implementation:
    """`--impl spec` -> the Implementation its connector makes (conformance.connectors:
    `module:attr` in this process, `cmd:<command line>` a stdio adapter for the
    session), or a UsageError that says what is wrong."""
    runs_tests = config is None or not is_controller(config)
    try:
        return connect(spec, Connection(config=config, runs_tests=runs_tests))
    except ConnectorError as error:
        raise pytest.UsageError(str(error)) from error


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "law(*ids): the conformance laws this test checks")
    if config.getoption("hypothesis_profile", default=None) is None:
        # Hypothesis' own default profile fails every law test on its function-scoped
        # fixtures; without a choice, run as documented: `ci` on CI, `dev` elsewhere.
        config.stash[PROFILE_BEFORE] = settings.get_current_profile_name()
        settings.load_profile("ci" if os.environ.get("CI") else "dev")
    # before anything runs: an adapter may print a key while it starts
    redactor = session_redactor(config)
    # imported here, not at the top: pytest rewrites the asserts of a `pytest_plugins`
    # module only if it registers it first, and warns about one imported before
    from .fixtures import FAKE_KEY

    redactor.learn(FAKE_KEY)
    learn_environment(redactor)
    config.pluginmanager.register(ReportScrubber(redactor), "turnlaw-report-scrubber")
    sweep = config.stash[SWEEP] = ArtifactSweep()
    worker = is_worker(config)  # under xdist: the controller writes the run's files
    for option in ("--adapter-stderr",) if worker else REPORT_FILES:
        sweep.add(config.getoption(option, default=None))
    wanted = asked_dialects(config.getoption("--dialects"))
    implementation = load_implementation(config.getoption("--impl"), config)
    config.stash[IMPLEMENTATION] = implementation
    config.stash[DIALECTS] = dialects_to_run(implementation, wanted)
    config.stash[DELIVERIES] = deliveries_to_run(
        implementation, asked_deliveries(config.getoption("--deliveries"))
    )
    config.stash[COLLECTOR] = Collector(
        implementation,
        results=None if worker else config.getoption("--results"),
        report_md=None if worker else config.getoption("--report-md"),
        expectations=config.getoption("--expectations"),
        seed=str(config.getoption("--hypothesis-seed", default=None) or ""),
        dialects=[str(d) for d in config.stash[DIALECTS]],
        deliveries=[str(d) for d in config.stash[DELIVERIES]],
        scrub=redactor.scrub_text,
        defer_results=is_controller(config),
    )
    start_parallel(config, smoke_wait=_test_timeout(config))
    if not worker:
        config.pluginmanager.register(PytestCounts(config), COUNTS)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    sweep = config.stash.get(SWEEP, None)
    # every file of the run, with every secret learned by its end; under xdist by the
    # controller alone, once every worker sent its secrets and files (a worker rewriting
    # a file another still appends to, --adapter-stderr, would lose lines)
    if sweep is not None and not is_worker(config):
        sweep.sweep(session_redactor(config))
    before = config.stash.get(PROFILE_BEFORE, None)
    if before is not None:  # an in-process nested run must not leave its profile behind
        settings.load_profile(before)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "dialect" in metafunc.fixturenames:
        dialects = dialects_for(metafunc.config)
        metafunc.parametrize("dialect", dialects, ids=[d.value for d in dialects])
    if "delivery" in metafunc.fixturenames:
        deliveries = deliveries_for(metafunc.config)
        metafunc.parametrize("delivery", deliveries, ids=[d.value for d in deliveries])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for law_id in law_ids(item):
            try:
                law(law_id)
            except RegistryError as error:
                raise pytest.UsageError(f"{item.nodeid}: {error}") from error
    select_laws(config, items, load_laws())
    items.sort(key=lambda item: SMOKE_LAW not in law_ids(item))  # stable: smoke first
    if config.pluginmanager.hasplugin("timeout") and not _timeout_configured(config):
        seconds = DEFAULT_TEST_TIMEOUT * config.getoption("--timeout-multiplier")
        for item in items:
            if law_ids(item) and item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(seconds))


def pytest_collection_finish(session: pytest.Session) -> None:
    """The law tests this run owes a verdict for: what -k, -m and deselection left."""
    collector = session.config.stash[COLLECTOR]
    laws = [item for item in session.items if law_ids(item)]
    collector.learn_ids({item.nodeid: suite_test_id(item) for item in laws})
    collector.select({suite_test_id(item): tuple(law_ids(item)) for item in laws})


def _test_timeout(config: pytest.Config) -> float:
    """A law test's deadline in this run: pytest-timeout's as configured, else ours."""
    if _timeout_configured(config):
        try:
            return float(config.getoption("timeout", None) or config.getini("timeout"))
        except (TypeError, ValueError):
            pass
    return DEFAULT_TEST_TIMEOUT * float(config.getoption("--timeout-multiplier"))


def _timeout_configured(config: pytest.Config) -> bool:
    try:
        return bool(config.getoption("timeout", None) or config.getini("timeout"))
    except ValueError:  # pytest-timeout's ini option is not registered
        return False


def pytest_runtest_setup(item: pytest.Item) -> None:
    implementation = item.config.stash[IMPLEMENTATION]
    capabilities = {str(c) for c in implementation.capabilities}
    callspec = getattr(item, "callspec", None)
    delivery = callspec.params.get("delivery") if callspec is not None else None
    why = not_offered(implementation, delivery) if delivery is not None and law_ids(item) else None
    if why is not None:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}{' '.join(law_ids(item))}: {why}")
    for law_id in law_ids(item):
        missing, one_of = law(law_id).missing(capabilities)
        if missing or one_of:
            why = not_applicable_sentence(missing, one_of)
            pytest.skip(f"{NOT_APPLICABLE_PREFIX}{law_id} {why}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    laws = law_ids(item)
    if laws:
        collector = item.config.stash[COLLECTOR]
        judgment = collector.add(item.nodeid, laws, report, call, _wire_broken(item))
        if judgment is not None and judgment.expected and report.failed:
            _mark_expected(collector, judgment, report)
        if report.failed:
            collector.failed_reports += 1
        stop = _why_stop(item, laws, judgment, call)
        if stop is not None:
            item.session.shouldstop = stop
            collector.adapter_broken = True
        if judgment is not None:
            setattr(report, JUDGED, len(judgment.records))
            send_judgment(item.config, report, judgment.records, stop)
    return report


def _why_stop(
    item: pytest.Item, laws: list[str], judgment: Judgment | None, call: Any
) -> str | None:
    """Why no further law can be judged after this test, if that is so. The smoke law
    failing stops the run even when the manifest expects it: no other law can be judged."""
    if call.excinfo is not None and call.excinfo.errisinstance(AdapterGaveUp):
        return (
            "adapter gave up: it crashed and used up its restarts, so no more laws can "
            f"be judged ({item.nodeid}). Its stderr tail is in that test's report."
        )
    failed = judgment is not None and judgment.outcome in (
        Outcome.FAIL,
        Outcome.ERROR,
        Outcome.TIMEOUT,
    )
    if SMOKE_LAW in laws and failed:
        return (
            "adapter broken: a one-turn run does not work, so no law can be judged. "
            f"Fix the adapter first ({item.nodeid})."
        )
    return None


WIRE_VERDICTS = {"exhausted", "unmatched", "invariant", "malformed"}


def _wire_broken(item: pytest.Item) -> bool:
    """Did the runtime send what the law's script did not allow? Then it is the law that
    broke, whatever exception the runtime raised about the fake's error reply."""
    fake = getattr(item, "funcargs", {}).get("fake")
    if not isinstance(fake, ScriptedProvider):
        return False
    return any(finding.kind in WIRE_VERDICTS for finding in fake.findings)


def _mark_expected(collector: Collector, judgment: Judgment, report: Any) -> None:
    """A FAIL charged only to laws the manifest expects to fail is an xfail, so pytest's
    own summary agrees with the verdict. The laws it was charged to decide, not the laws
    the test is marked with: a multi-law test's LawViolation charges one. A test that
    passed stays passed: a law fails as a whole (its worst test, in any dialect); a law
    none of whose tests failed is an XPASS, and the verdict is red for it."""
    if judgment.premise is not None:
        entry = collector.expected[judgment.premise]
        reason = known_premise_note(judgment.premise, entry.reason)
    else:
        reason = "; ".join(collector.expected[law_id].reason for law_id in judgment.laws)
    report.outcome = "skipped"
    report.wasxfail = f"expected by the manifest: {reason}"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    collector = config.stash.get(COLLECTOR, None)
    if collector is not None and not is_worker(config):  # a worker saw only its share
        counts = config.pluginmanager.get_plugin(COUNTS)
        if isinstance(counts, PytestCounts):
            collector.counts_line = counts.line()
        terminalreporter.write(collector.matrix())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The one place the run's exit status is decided: from the per-law verdicts."""
    collector = session.config.stash.get(COLLECTOR, None)
    if collector is None or is_worker(session.config):  # under xdist, the controller's
        return
    red = bool(collector.finish())
    others = session.testsfailed - collector.failed_reports
    session.exitstatus = exit_status(session.exitstatus, red=red, other_failures=others)


def exit_status(pytest_status: int, *, red: bool, other_failures: int) -> int:
    """The verdict decides, both ways: red is never 0 (pytest may have seen only xfails,
    skips or passes); green is 0 when pytest's only complaint is law tests' failures
    (every one an expected FAIL). What no verdict covers keeps pytest's own status: a
    usage error, an interruption, a failing test that judges no law."""
    if red:
        return (
            pytest.ExitCode.TESTS_FAILED if pytest_status == pytest.ExitCode.OK else pytest_status
        )
    if pytest_status == pytest.ExitCode.TESTS_FAILED and other_failures <= 0:
        return pytest.ExitCode.OK
    return pytest_status


__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_IMPL",
    "asked_dialects",
    "dialects_for",
    "dialects_to_run",
    "exit_status",
    "law_ids",
    "load_implementation",
]
