"""The `cmd:` connector (conformance.connectors) and its pytest plugin, which the runner
loads because the registry names it: the runner's side of `--impl cmd:...`.

Options: `--validate-protocol` (check every message both ways against the protocol
models), `--adapter-restarts N`, `--adapter-stderr FILE`, `--adapter-max-line SIZE`. The
connector keeps each call's deadline (`--call-timeout` times `--timeout-multiplier`);
the runner's guard leaves it to it. A test that failed because the adapter process did
(crash, garbage, wrong seq, no reply) gets a label first in its report — `CRASH:`,
`PROTOCOL:`, `TIMEOUT:` — so the results file says at once that the adapter, not the
law, is what failed. A request still unanswered when its test is over stops the
adapter before the next test begins.
"""

from __future__ import annotations

import argparse
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from ..adapter import Implementation, Refused
from ..connectors import Connection, ConnectorError
from ..errors import AdapterFailure
from .connector import (
    MAX_LINE,
    MAX_RESTARTS,
    REPLY_TIMEOUT,
    CommandSpecError,
    ConnectorOptions,
    StdioImplementation,
    parse_command,
)

MESSAGE_LIMIT = 3000
DETAIL_LIMIT = 3500
"""The results file keeps the last 4000 characters of an ERROR's report: the label and
the adapter's message come first and the traceback is clipped to fit after them."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("turnlaw", "turnlaw conformance suite")
    group.addoption(
        "--validate-protocol",
        action="store_true",
        help="cmd: adapters: validate every message, both ways, against protocol v1's models",
    )
    group.addoption(
        "--adapter-restarts",
        type=int,
        default=MAX_RESTARTS,
        help=f"cmd: adapters: restarts allowed after crashes and protocol errors (default "
        f"{MAX_RESTARTS}); a stop for a timeout is not counted",
    )
    group.addoption(
        "--adapter-stderr", type=Path, help="cmd: adapters: also copy the adapter's stderr here"
    )
    group.addoption(
        "--adapter-max-line",
        type=byte_size,
        default=MAX_LINE,
        metavar="SIZE",
        help="cmd: adapters: longest reply line accepted, in bytes or with K, M or G "
        f"(default {MAX_LINE // (1 << 20)}M); a longer one is a PROTOCOL error",
    )


_SIZE = re.compile(r"\s*(\d+)\s*([kmg]?)i?b?\s*", re.IGNORECASE)


def byte_size(text: str) -> int:
    """`65536`, `512K`, `64M`, `1G` (powers of 1024) -> bytes; at least 1 KiB."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (say e.g. 65536, 512K, 64M, 1G)")
    size = int(match[1]) << (10 * " kmg".index(match[2].lower() or " "))
    if size < 1024:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a reply line limit under 1K would refuse every reply"
        )
    return size


def command_implementation(spec: str, connection: Connection) -> Implementation:
    """Start the `cmd:` adapter for this session, or a ConnectorError saying why it
    cannot. An xdist controller's adapter only says what it is, and is stopped at once:
    its workers start their own."""
    config = connection.config
    options = ConnectorOptions()
    multiplier = float(config.getoption("--timeout-multiplier", default=1.0)) if config else 1.0
    if multiplier <= 0:
        raise ConnectorError(f"--timeout-multiplier {multiplier:g}: must be more than 0")
    if config is not None:
        options = ConnectorOptions(
            # the runner's --call-timeout: the connector is its one enforcer for cmd:
            reply_timeout=float(config.getoption("--call-timeout", default=REPLY_TIMEOUT)),
            validate=bool(config.getoption("--validate-protocol", default=False)),
            max_restarts=int(config.getoption("--adapter-restarts", default=MAX_RESTARTS)),
            # an xdist controller's adapter writes no log: its workers' adapters do (and
            # the file, made now, would move their rootdir: see Collector._open_results)
            stderr_log=config.getoption("--adapter-stderr", default=None)
            if connection.runs_tests
            else None,
            max_line=int(config.getoption("--adapter-max-line", default=MAX_LINE)),
        ).scaled(multiplier)
    log = options.stderr_log
    try:
        if log is not None:  # like --results: its folder is made, a file it cannot be is named
            log.parent.mkdir(parents=True, exist_ok=True)
        implementation = StdioImplementation(parse_command(spec), options)
    except OSError as error:
        raise ConnectorError(f"--adapter-stderr {log}: cannot write it: {error}") from None
    except CommandSpecError as error:
        raise ConnectorError(str(error)) from error
    except (AdapterFailure, Refused) as error:  # AdapterReportedError is a failure too
        raise ConnectorError(
            f"--impl {spec!r}: the adapter did not start: {type(error).__name__}: {error}"
        ) from error
    if not connection.runs_tests:
        implementation.stop()
    if config is not None:
        config.stash[_STARTED] = implementation
        config.add_cleanup(lambda: _stop(implementation))
    return implementation


def _stop(implementation: StdioImplementation) -> None:
    implementation.stop()


_STDERR_MARK = pytest.StashKey[int]()
_STARTED = pytest.StashKey[StdioImplementation]()
"""The adapter this run's `--impl cmd:` started, for the hooks below."""


def _stdio_implementation(item: pytest.Item) -> StdioImplementation | None:
    return item.config.stash.get(_STARTED, None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    implementation = _stdio_implementation(item)
    if implementation is not None:
        item.stash[_STDERR_MARK] = implementation.stderr.written


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """After the test's own teardown (its agents closed): a request still unanswered
    belongs to no one, and would run on into the next test; stop the adapter."""
    try:
        return (yield)
    finally:
        implementation = _stdio_implementation(item)
        if implementation is not None:
            strays = implementation.end_stray_requests(item.nodeid)
            if strays:
                warnings.warn(
                    pytest.PytestWarning(
                        f"{item.nodeid}: the adapter still had {', '.join(strays)} "
                        "unanswered after the test; it was stopped (the next request "
                        "restarts it)"
                    ),
                    stacklevel=1,
                )


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Innermost, so the runner's collector already sees the label. A failed test also
    gets what the adapter wrote on stderr while it ran, as a report section."""
    report = yield
    implementation = _stdio_implementation(item)
    if report.failed and implementation is not None and _STDERR_MARK in item.stash:
        written = implementation.stderr.since(item.stash[_STDERR_MARK])
        if written:
            report.sections.append(("adapter stderr (during this test)", written))
    failure = _adapter_failure(call) if implementation is not None else None
    if report.failed and failure is not None:
        message = f"{failure.label}: {type(failure).__name__}: {failure}"
        if len(message) > MESSAGE_LIMIT:  # keep the label and the stderr tail's end
            message = message[:1000] + "\n[…]\n" + message[-(MESSAGE_LIMIT - 1010) :]
        rest = str(report.longrepr or "")
        room = max(DETAIL_LIMIT - len(message), 500)
        report.longrepr = f"{message}\n\n--- traceback (tail) ---\n{rest[-room:]}"
    return report


def _adapter_failure(call: pytest.CallInfo[None]) -> AdapterFailure | None:
    """The labelled AdapterFailure (a process failure) behind a failed call, also as a
    cause or in a group (not a mere context: an assertion raised while handling a crash
    is still a judgment)."""
    if call.excinfo is None:
        return None
    seen: list[BaseException] = [call.excinfo.value]
    while seen:
        error = seen.pop()
        if isinstance(error, AdapterFailure) and error.label is not None:
            return error
        if isinstance(error, BaseExceptionGroup):
            seen.extend(error.exceptions)
        if error.__cause__ is not None:
            seen.append(error.__cause__)
    return None


__all__ = ["byte_size", "command_implementation"]
