"""A replay of a deterministic runtime sends the same wire as the recorded run, also
when the test numbers its examples with a module-level counter that earlier tests had
moved (`_counter` in test_whose_conversation: "Reference <n>" in every first message)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import types
from pathlib import Path

import pytest

import conformance
from conformance.replay.counters import counter_values, restore_counters
from conformance.replay.model import load_repro
from tests.replay.test_replay import ROOT

pytestmark = pytest.mark.timeout(480)

DEFAULT_IDS_REFUSED = "tests.rogues.gallery:mismatch_refuses_default_ids"
"""A deterministic runtime that really breaks a counter-numbered law of the module's
third test: it counts the default id as a chosen name."""


def test_counters_are_read_without_moving_and_only_counters_are_restored() -> None:
    module = types.ModuleType("law_module")
    module._counter = itertools.count(5)  # type: ignore[attr-defined]
    module._stepped = itertools.count(0, 2)  # type: ignore[attr-defined]
    module.NAME = "x"  # type: ignore[attr-defined]
    assert counter_values(module) == {"_counter": 5}
    assert counter_values(module) == {"_counter": 5}, "reading it moved it"
    restore_counters(module, {"_counter": 22, "NAME": 3, "missing": 1})
    assert next(module._counter) == 22  # type: ignore[attr-defined]
    assert module.NAME == "x" and not hasattr(module, "missing")  # type: ignore[attr-defined]


def test_a_replay_after_a_moved_counter_sends_the_recorded_wire(tmp_path: Path) -> None:
    """The failing test is the module's third: when it starts, the first two have moved
    the counter; a replay runs it alone."""
    folder = tmp_path / "repro"
    suite = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *conformance.pytest_args(
                DEFAULT_IDS_REFUSED,
                select=["conformance.laws.test_whose_conversation"],
                profile="ci",
                dialects="openai-chat",
                deliveries="stream",
                repro_dir=folder,
                options=["-q", "-p", "no:cacheprovider"],
            ),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert suite.returncode == 1, suite.stdout[-3000:]
    (path,) = folder.glob("mismatch.default-id-never-refuses-*.json")
    repro = load_repro(path)
    assert repro.example is None, "an explicit example: the whole test is replayed"
    assert repro.counters.get("_counter", 0) > 0, repro.counters
    done = subprocess.run(
        [sys.executable, "-m", "conformance", "replay", str(path), "--impl", DEFAULT_IDS_REFUSED],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "verdict:  FAIL            mismatch.default-id-never-refuses" in done.stdout
    assert "wire:     identical to the recording" in done.stdout, done.stdout
