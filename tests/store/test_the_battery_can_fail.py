"""The battery can fail: run against each broken store (tests/store/broken_stores.py)
in a nested pytest, the test guarding the contract that store breaks FAILs, while the
tests it does not break still pass (so the FAIL is about that bug, not a broken
harness)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

NESTED = """
from hypothesis import settings

from conformance.batteries import SessionStoreBattery
from reference_impl.store import SessionOwnershipError, UnreadableSessionError

settings.register_profile("nested", max_examples=8, derandomize=True, deadline=None)
settings.load_profile("nested")


class Sqlite(SessionStoreBattery):
    damage_spec = "reference_impl.store:damage_session"
    unreadable_error = UnreadableSessionError
    ownership_error = SessionOwnershipError


class TestAbsentWhenUnreadable(Sqlite):
    store_spec = "tests.store.broken_stores:AbsentWhenUnreadable"


class TestSecondOwnerTakes(Sqlite):
    store_spec = "tests.store.broken_stores:SecondOwnerTakes"


class TestNulEndsTheId(Sqlite):
    store_spec = "tests.store.broken_stores:NulEndsTheId"


class TestWholeFileRewrite(SessionStoreBattery):
    store_spec = "tests.store.broken_stores:WholeFileRewrite"
    ownership_error = PermissionError
"""

BROKEN = {
    "TestAbsentWhenUnreadable": {"test_an_unreadable_session_is_not_absent"},
    "TestSecondOwnerTakes": {
        "test_the_first_owner_is_recorded_and_never_taken",
        "test_threads_claiming_one_session_leave_one_owner",
        "test_two_processes_writing_at_once_leave_no_split_brain",
    },
    "TestNulEndsTheId": {"test_awkward_ids_are_told_apart"},
    "TestWholeFileRewrite": {"test_two_processes_writing_at_once_leave_no_split_brain"},
}
"""Each broken store, and exactly the battery tests its bug fails."""

_LINE = re.compile(r"^(PASSED|FAILED) test_battery\.py::(\w+)::(\w+)")


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """One nested run for every broken store (each run imports the runtime afresh)."""
    folder = tmp_path_factory.mktemp("broken-stores")
    (folder / "test_battery.py").write_text(NESTED, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "test_battery.py", "-p", "no:cacheprovider", "-rA", "-q"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found: dict[tuple[str, str], str] = {}
    for line in result.stdout.splitlines():
        match = _LINE.match(line)
        if match:
            found[(match[2], match[3].split("[")[0])] = match[1]
    assert found, result.stdout[-4000:] + result.stderr[-2000:]
    return found


@pytest.mark.timeout(300)  # the first one waits for the nested run
@pytest.mark.parametrize("store", sorted(BROKEN))
def test_the_battery_fails_exactly_what_the_bug_breaks(
    verdicts: dict[tuple[str, str], str], store: str
) -> None:
    mine = {name: verdict for (cls, name), verdict in verdicts.items() if cls == store}
    assert {name for name, verdict in mine.items() if verdict == "FAILED"} == BROKEN[store]
    assert mine.get("test_an_absent_session_loads_as_nothing") == "PASSED"
