"""turnlaw's pytest plugin: the fake-provider fixtures.

Registered as the `turnlaw` pytest11 entry point. It changes nothing process-wide:
heavy imports wait for the fixtures, and the httpx->httpx2 alias is opt-in
(`-p conformance.httpx2_alias`), so merely having turnlaw installed costs other
test suites nothing.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from conformance.redaction import session_redactor

if TYPE_CHECKING:
    from conformance.wire import LoopbackServer, ScriptedProvider

_CALL_FAILED = pytest.StashKey[bool]()
_SKIPPED = pytest.StashKey[bool]()
_SERVER = pytest.StashKey["LoopbackServer"]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "turnlaw(allow_unused=False, check_invariants=True, hold_limit=60.0, max_body=...): "
        "configure the fake_provider / loopback_provider fixtures for this test",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        # an expected failure (pytest's xfail, or a conformance manifest entry) failed too
        expected = report.skipped and hasattr(report, "wasxfail")
        item.stash[_CALL_FAILED] = report.failed or expected
        # skipped half way (NOT_APPLICABLE once it learnt the runtime cannot be asked
        # what it needs): the script it did not get to is no finding; the rest still are
        item.stash[_SKIPPED] = report.skipped and not expected
    return report


def _provider_for(request: pytest.FixtureRequest) -> ScriptedProvider:
    from conformance.wire import ScriptedProvider

    marker = request.node.get_closest_marker("turnlaw")
    options: dict[str, Any] = dict(marker.kwargs) if marker else {}
    return ScriptedProvider(redactor=session_redactor(request.config), **options)


def _verify_unless_failed(request: pytest.FixtureRequest, provider: ScriptedProvider) -> None:
    """Fail at teardown on provider findings, unless the test already failed for its own
    reason — then the findings are attached to its report instead of piling on."""
    provider.release_all()
    if request.node.stash.get(_CALL_FAILED, False):
        findings = provider.findings
        if findings:
            text = "\n".join(f"[{f.kind}] {f.message}" for f in findings)
            text = provider.redactor.scrub_text(text)
            request.node.add_report_section("teardown", "turnlaw findings", text)
        return
    if request.node.stash.get(_SKIPPED, False):
        provider.allow_unused()
    provider.verify()


@pytest.fixture
def fake_provider(request: pytest.FixtureRequest) -> Iterator[ScriptedProvider]:
    """An in-process fake provider: every httpx/httpx2 client in this process that calls
    `provider.base_url` (or api.openai.com / api.anthropic.com) is answered by it."""
    from conformance.wire import InProcess

    provider = _provider_for(request)
    with InProcess(provider):
        yield provider
    _verify_unless_failed(request, provider)


@pytest.fixture(scope="session")
def turnlaw_loopback_server(pytestconfig: pytest.Config) -> Generator[LoopbackServer, None, None]:
    """One loopback server for the session; each test attaches its own provider, under its
    own base URL, so a late request from an earlier test never reaches a later one."""
    from conformance.wire import LoopbackServer

    server = LoopbackServer()
    server.start()
    pytestconfig.stash[_SERVER] = server
    yield server
    server.stop()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Say so when the session server refused late requests: a runtime kept calling the
    model after its test had ended (they were recorded by no test)."""
    server = config.stash.get(_SERVER, None)
    if server is not None and server.late_requests:
        shown = ", ".join(server.late[:3])
        terminalreporter.write_line(
            f"turnlaw: refused {server.late_requests} late request(s) to the fake provider "
            f"of a test that had already ended ({shown}); none reached a later test"
        )


@pytest.fixture
def loopback_provider(
    request: pytest.FixtureRequest, turnlaw_loopback_server: LoopbackServer
) -> Iterator[ScriptedProvider]:
    """A fake provider served over real HTTP on 127.0.0.1 (`provider.base_url`)."""
    provider = turnlaw_loopback_server.attach(_provider_for(request))
    yield provider
    _verify_unless_failed(request, provider)
