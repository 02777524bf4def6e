"""`conformance.run` and `python -m conformance run`: the one command line of a run.

The child runs are real: the command a user types, from a folder that is not the
checkout, judged by the results file it writes (`python -m conformance report`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import conformance
from conformance.__main__ import main as conformance_cli

NARROW = ["-k", "test_a_second_run_shows_only_its_own_message and openai-chat"]
"""One law in one dialect: enough to tell a green run from a red one."""
ROGUE = "tests.rogues.gallery:run_carries_previous"
"""Breaks run.no-history and nothing else it meets here."""
CHECKOUT = Path(__file__).parents[2]


def test_options_keep_the_plugins_spelling_and_leave_unset_ones_to_it() -> None:
    args = conformance.run_options(
        "pkg.mod:impl",
        laws=["run.no-history", "hosting."],
        results=Path("out.jsonl"),
        profile="ci",
        workers=2,
        options=["-x"],
    )
    assert args == [
        "--impl=pkg.mod:impl",
        "--results=out.jsonl",
        "--hypothesis-profile=ci",
        "--numprocesses=2",
        "--law=run.no-history",
        "--law=hosting.",
        "-x",
    ]
    assert conformance.run_options() == []


def test_the_pytest_command_line_loads_the_plugin_and_collects_the_laws() -> None:
    args = conformance.pytest_args(dialects="openai-chat", select=["conformance.laws.test_run"])
    assert args[:2] == ["-p", "conformance.runner.plugin"]
    assert args[-2:] == ["--pyargs", "conformance.laws.test_run"]
    assert "--dialects=openai-chat" in args
    assert conformance.pytest_args()[-2:] == ["--pyargs", "conformance.laws"]


def _child(tmp_path: Path, impl: str | None) -> tuple[int, int]:
    """A child run's exit status, and `report`'s reading of its results file."""
    results = tmp_path / "results.jsonl"
    argv = conformance.command(
        impl, results=results, profile="ci", options=[*NARROW, "-p", "no:cacheprovider"]
    )
    assert argv[1:4] == ["-m", "conformance", "run"]
    env = {"PYTHONPATH": str(CHECKOUT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    report = subprocess.run(
        [sys.executable, "-m", "conformance", "report", str(results)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "run.no-history" in report.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    return done.returncode, report.returncode


def test_a_child_run_of_the_reference_is_green(tmp_path: Path) -> None:
    assert _child(tmp_path, None) == (0, 0)


def test_a_child_run_of_a_rogue_is_red(tmp_path: Path) -> None:
    assert _child(tmp_path, ROGUE) == (1, 1)


def test_other_commands_refuse_options_that_only_a_run_passes_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        conformance_cli(["schema", "adapter", "-x"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: -x" in capsys.readouterr().err
