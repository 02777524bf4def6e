"""Faulty adapters for the connector tests: small scripts in tests/stdio/faulty/."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conformance.stdio import ConnectorOptions, StdioImplementation

FAULTY = Path(__file__).parent / "faulty"

Start = Callable[..., StdioImplementation]


def faulty_argv(name: str) -> list[str]:
    return [sys.executable, str(FAULTY / f"{name}.py")]


@pytest.fixture
def start_faulty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., StdioImplementation]]:
    """`start_faulty("crash_on_run", max_restarts=1)` -> a started connector; every
    op the adapter receives is logged to tmp_path/ops.log, and the pid of every helper
    process it starts to tmp_path/pids.log. The connector's own reply deadline, which
    no answering call comes near on a busy machine: a test waiting for a TIMEOUT
    shortens it around the hanging call only (hang_deadline.py)."""
    monkeypatch.setenv("TURNLAW_OPS_LOG", str(tmp_path / "ops.log"))
    monkeypatch.setenv("TURNLAW_PIDS_LOG", str(tmp_path / "pids.log"))
    started: list[StdioImplementation] = []

    def start(name: str, **options: object) -> StdioImplementation:
        settings = {"start_timeout": 10.0, **options}
        implementation = StdioImplementation(faulty_argv(name), ConnectorOptions(**settings))  # type: ignore[arg-type]
        started.append(implementation)
        return implementation

    yield start
    for implementation in started:
        implementation.stop(timeout=2)


def ops(tmp_path: Path) -> list[str]:
    log = tmp_path / "ops.log"
    return log.read_text().splitlines() if log.exists() else []


def helper_pids(tmp_path: Path) -> list[int]:
    log = tmp_path / "pids.log"
    return [int(line) for line in log.read_text().split()] if log.exists() else []
