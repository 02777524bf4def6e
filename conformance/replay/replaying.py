"""The pytest side of a replay (`-p conformance.replay.replaying --replay-file FILE`).

Before the stored test runs, the test module's counters are set back to where they
stood when it failed, and its shrunk Hypothesis example is made the one to replay;
after it, a DidNotReproduce is the implementation passing that example, and is reported
as a pass. Hypothesis raises it in two ways: the example "completed successfully" (a
@given test), or it asked for more data than the blob holds — what a state machine does
when a step that failed before now passes and it wants the next one. The second also
means "the test changed", which the replay rules out first by the test's source hash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis.errors import DidNotReproduce

from .counters import restore_counters
from .hypothesis_examples import activate, set_on_given_test
from .model import ReproFile, load_repro

_REPRO = pytest.StashKey[ReproFile]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("turnlaw").addoption("--replay-file", type=Path, help="the repro file")


def pytest_configure(config: pytest.Config) -> None:
    path: Path | None = config.getoption("--replay-file")
    if path is not None:
        config.stash[_REPRO] = load_repro(path)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    repro = item.config.stash.get(_REPRO, None)
    if repro is None:
        return
    restore_counters(getattr(item, "module", None), repro.counters)
    if repro.example is None:
        return
    activate(repro.example)
    set_on_given_test(getattr(item, "obj", None), repro.example)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    activate(None)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Innermost, so the runner records the pass."""
    report = yield
    error = call.excinfo.value if call.excinfo else None
    passed = ("completed successfully", "shape of the test data has changed")
    if isinstance(error, DidNotReproduce) and any(words in str(error) for words in passed):
        report.outcome = "passed"
        report.longrepr = None
    return report
