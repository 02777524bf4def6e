"""Shared fixtures: every wire test runs over both transports. Also the Hypothesis
profiles (`--hypothesis-profile ci|dev|thorough`, and `tests` when none is chosen) and the
hostile suite's report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import conformance.runner.plugin  # noqa: F401  (registers the ci, dev and thorough profiles)
from conformance.wire import ScriptedProvider
from tests.hostile.budget import FATES, TALLY, profile_name

pytest_plugins = ["pytester"]

API_KEY = "sk-turnlaw-test-SECRET-0123456789"

settings.register_profile(
    "tests",
    deadline=None,
    suppress_health_check=[
        *settings.get_profile("default").suppress_health_check,
        HealthCheck.too_slow,
    ],
)
settings.load_profile("tests")  # `--hypothesis-profile` is read later, and wins
"""Hypothesis' own default without its two clocks: a 200 ms deadline per example and a
health check on how fast examples are generated time the machine, not the code, and a CI
machine is busy with other work. No test here may depend on how fast the machine is."""


@pytest.fixture(params=["in_process", "loopback"])
def provider(request: pytest.FixtureRequest) -> ScriptedProvider:
    """The plugin's fake provider over one transport or the other."""
    name = "fake_provider" if request.param == "in_process" else "loopback_provider"
    fixture: ScriptedProvider = request.getfixturevalue(name)
    return fixture


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hostile-tally",
        type=Path,
        default=None,
        help="write tests/hostile's per-target counts (inputs, typed, untyped, ...) here",
    )


HOSTILE = Path(__file__).parent / "hostile"
THOROUGH_TIMEOUT = 900.0
"""Seconds a hostile target may take in the thorough profile (10,000 inputs, some of them
real subprocesses), instead of the project's 60 s per test."""
HOSTILE_TIMEOUT = 300.0
"""Seconds a hostile target may take in the other profiles: hundreds of inputs, some of
them real sockets and processes, on a machine that may be busy with something else."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seconds = THOROUGH_TIMEOUT if profile_name() == "thorough" else HOSTILE_TIMEOUT
    for item in items:
        if item.path.is_relative_to(HOSTILE) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(seconds))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """How many hostile inputs each target got and what became of them."""
    rows = TALLY.rows()
    if not rows:
        return
    profiles = ", ".join(sorted(TALLY.profiles)) or profile_name()
    terminalreporter.section(f"hostile inputs (profile {profiles})")
    terminalreporter.write_line(
        f"{'target':<44} {'tried':>7} " + " ".join(f"{fate:>11}" for fate in FATES)
    )
    for row in rows:
        cells = " ".join(f"{row[fate]:>11}" for fate in FATES)
        terminalreporter.write_line(f"{row['target']:<44} {row['tried']:>7} {cells}")
    path = config.getoption("--hostile-tally")
    if path is not None:
        path.write_text(
            json.dumps({"profile": profiles, "targets": rows}, indent=2) + "\n",
            encoding="utf-8",
        )
