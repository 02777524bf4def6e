"""The benchmarks stay runnable: each variant must be answered by the mock it claims.

No timing is asserted here (figures belong in `nox -s benchmarks`); this only runs the
in-process measurements for one tiny round, so a change to the fake that mis-wires a
benchmark fails CI instead of the next person who measures. The conformance run's rows
(`benchmarks.conformance_run`) are checked on synthetic figures: which processes each row
runs and how often, what their command lines are, and how the table and the per-law
breakdown come out; of those processes only the cheapest runs (a bare pytest start).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import (
    conformance_run,
    in_process,
    law_breakdown,
    report,
    suite_report,
    suite_runs,
    unwarmed_launcher,
)
from benchmarks.rounds import Samples
from conformance.verdicts import Outcome
from conformance.verdicts import TestRecord as Record  # not collected as a test class
from reference_impl.adapter import _launcher
from tests.rogues import kill


async def test_in_process_benchmarks_are_wired() -> None:
    sdk = await in_process.sdk_per_request(rounds=1, batch=2)
    raw = await in_process.httpx_per_request(rounds=1, batch=2)
    assert set(sdk) == {"bare", "turnlaw"}
    assert set(raw) == {"bare", "turnlaw"}


# The conformance run's rows (`python -m benchmarks.conformance_run`): their plumbing only,
# on synthetic figures; the runs themselves take minutes and belong in `nox -s benchmarks`.


def _record(law: str, test: str, duration: float) -> Record:
    return Record(law=law, test=test, outcome=Outcome.PASS, duration=duration)


def test_the_breakdown_groups_durations_by_law_and_splits_shared_tests() -> None:
    records = [
        _record("a", "t1", 6.0),
        _record("a", "t2", 2.0),
        _record("b", "t3", 4.0),
        _record("b", "t4", 4.0),  # t4 checks b and c: its 4 s are split 2 / 2
        _record("c", "t4", 4.0),
        _record("d", "t5", 1.0),
    ]
    found = law_breakdown.breakdown(records, top=3)
    assert [(law.law, law.seconds, law.tests) for law in found.slowest] == [
        ("a", 8.0, 2),
        ("b", 6.0, 2),
        ("c", 2.0, 1),
    ]
    assert found.total == 17.0
    assert found.slowest[0].share == 8.0 / 17.0
    assert (found.laws, found.tests, found.shared_tests, found.shared_seconds) == (4, 5, 1, 4.0)


def test_rows_are_parsed_in_the_tables_order_and_unknown_ones_refused() -> None:
    assert conformance_run.parse_rows("breakdown, collection") == ("collection", "breakdown")
    with pytest.raises(argparse.ArgumentTypeError, match="nope"):
        conformance_run.parse_rows("floor,nope")
    args = conformance_run.parse_args(["--rows", "kill", "--rounds", "5", "--quick"])
    assert (args.rows, args.rounds, args.long_rounds) == (("kill",), 1, 1)
    assert conformance_run.parse_args([]).rows == conformance_run.ROW_NAMES


def test_each_row_runs_with_its_floor_and_long_runs_get_their_own_rounds() -> None:
    rounds_of = conformance_run.rounds_of
    assert rounds_of(["collection"], 3, 1) == {"pytest start": 3, "collection": 3}
    # the breakdown needs a run of every law; a floor is short, so it gets the short rounds
    assert rounds_of(["floor", "breakdown"], 3, 1) == {
        "pytest start": 3,
        "harness floor": 3,
        "harness floor, fresh": 3,
        "all": 1,
    }
    assert rounds_of(["kill"], 3, 2) == {"harness floor": 3, "kill": 2}
    # the note names the long runs by their run names ("all, -n 2" is the parallel row's)
    counts = rounds_of(["parallel"], 3, 2)
    assert counts == {"harness floor": 3, "all, -n 2": 2}
    assert "2 for the long ones: all, -n 2)" in conformance_run.notes(["parallel"], counts, 3, 2)[0]
    assert conformance_run.schedule({"x": 3, "y": 1, "z": 2}) == [
        ["x", "y", "z"],
        ["z", "x"],
        ["x"],
    ]


def test_the_runs_keep_docs_alone_and_split_the_doors_as_the_kill_run_does(
    tmp_path: Path,
) -> None:
    runs = suite_runs.runs(tmp_path)
    assert "--write" not in runs["kill"].argv
    assert runs["kill"].argv[runs["kill"].argv.index("--keep") + 1].startswith(str(tmp_path))
    agent = runs["agent"].argv[runs["agent"].argv.index("--pyargs") + 1 :]
    assert agent == kill.law_modules("agent") == runs["harness floor"].argv[-len(agent) :]
    servers = suite_runs.server_modules()
    assert servers == kill.law_modules("hosting") + kill.law_modules("sessions")
    assert not set(agent) & set(servers)
    assert f"--impl={suite_runs.FLOOR_IMPL}" in runs["harness floor"].argv
    assert f"--results={tmp_path / 'all.jsonl'}" in runs["all"].argv
    parallel = runs["all, -n 2"].argv
    assert "--numprocesses=2" in parallel
    assert not any(arg.startswith("--numprocesses") for arg in runs["all"].argv)
    assert parallel[parallel.index("--pyargs") :] == runs["all"].argv[-2:]
    collection = runs["collection"]
    assert collection.check(1, "2073 tests collected in 2.19s") is None
    assert collection.check(2, "2073 tests collected") is not None
    assert collection.check(0, "ERROR collecting") is not None


def test_a_fresh_run_imports_a_copy_of_the_sources_with_nothing_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fresh-checkout row pays for bytecode and Hypothesis's tables only if its
    process imports sources that have neither; the copy goes when the run ends."""
    checkout = tmp_path / "checkout"
    for name in suite_runs.SOURCES[:-1]:  # the packages; the last is pyproject.toml
        folder = checkout / name
        (folder / "__pycache__").mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        (folder / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"")
        (folder / ".hypothesis").mkdir()
    (checkout / "pyproject.toml").write_text("")
    monkeypatch.setattr(suite_runs, "ROOT", checkout)
    looks = (
        "import pathlib, conformance; "
        "here = pathlib.Path.cwd(); "
        "print(here, pathlib.Path(conformance.__file__).parent.parent == here, "
        "sorted(p.name for p in here.rglob('*') if p.name in ('__pycache__', '.hypothesis')))"
    )
    run = [sys.executable, "-B", "-c", looks]
    where, imports_copy, left = suite_runs.timed(suite_runs.Run(run, fresh=True)).output.split()
    assert (imports_copy, left) == ("True", "[]")
    assert Path(where) != checkout and not Path(where).exists()
    # the rogues: the checkout itself, and a copy that keeps what runs leave behind
    assert suite_runs.timed(suite_runs.Run(run)).output.split()[0] == str(checkout)
    monkeypatch.setattr(suite_runs, "LEFT_BEHIND", None)
    kept = suite_runs.timed(suite_runs.Run(run, fresh=True)).output
    assert "__pycache__" in kept and ".hypothesis" in kept


@pytest.mark.timeout(300)  # a child pytest: on a busy machine, past the project's 60 s
def test_the_pytest_start_floor_is_a_run_that_collects_nothing(tmp_path: Path) -> None:
    timing = suite_runs.timed(suite_runs.runs(tmp_path)["pytest start"])
    assert timing.code == 5


def test_the_report_shows_each_row_against_its_floor() -> None:
    def took(*seconds: float, code: int = 0) -> list[suite_runs.Timing]:
        return [suite_runs.Timing(s, 0.5, 1.5, "", code) for s in seconds]

    timings = {
        "pytest start": took(1.0, 2.0, 3.0),
        "collection": took(4.0, 4.0, 4.0),
        "harness floor": took(2.0, 2.0, 2.0),
        "all": took(10.0),
        "kill": took(90.0, code=1),
    }
    rows = conformance_run.report_rows(["collection", "kill", "breakdown"], timings)
    assert [row.floor_name for row in rows] == ["pytest start", "harness floor", "harness floor"]
    assert [row.ratio for row in rows] == [2.0, 5.0, 45.0]
    assert [row.met for row in rows] == [False, True, False]
    report = suite_report.SuiteReport(
        command="python -m benchmarks.conformance_run",
        rows=rows,
        breakdown=law_breakdown.breakdown([_record("a", "t1", 3.0), _record("b", "t2", 1.0)]),
        breakdown_source="from a run",
        load=((0.5, 0.4, 0.3), (1.5, 1.0, 0.5)),
    )
    text = report.render()
    assert re.search(r"<= 1.5 s  pytest start +2.00 +2.00x +0.5-1.5  MISSED\n", text)
    assert "MISSED, exit 1: red, or docs/kill-matrix.md stale" in text
    assert "slowest 2 of 2 laws, from a run: 4.00 s recorded over 2 tests" in text
    assert " 75.0%" in text
    assert "0.50 0.40 0.30 before the first run, 1.50 1.00 0.50 after the last" in text


def test_the_fakes_report_says_what_load_it_ran_under(tmp_path: Path) -> None:
    row = report.Row("in-process via openai SDK", "us/req", Samples([100.0]), Samples([112.0]), 1.1)
    found = report.Report(
        command="python -m benchmarks", rows=[row], load=((0.5, 0.4, 0.3), (1.5, 1.0, 0.5))
    )
    text = found.render()
    assert re.search(r"\(us/req\) +100 +112 +1\.12x +<= 1\.10x +MISSED\n", text)
    assert (
        "load average (1, 5, 15 min): 0.50 0.40 0.30 before the first run, 1.50 1.00 0.50" in text
    )
    found.write_json(tmp_path / "figures.json")
    written = json.loads((tmp_path / "figures.json").read_text())
    assert (written["load_before"], written["load_after"]) == ([0.5, 0.4, 0.3], [1.5, 1.0, 0.5])
    # without a measurement, the line says so rather than printing nothing
    assert "load average (1, 5, 15 min): - before the first run, - after the last" in (
        report.Report(command="x", rows=[row]).render()
    )


def test_the_failing_row_times_a_failing_runtime_against_the_reference_as_a_ratio(
    tmp_path: Path,
) -> None:
    assert conformance_run.rounds_of(["failing"], 3, 1) == {
        "agent, one dialect": 3,
        "failing runtime": 3,
        "failing runtime, full shrink": 3,
    }
    runs = suite_runs.runs(tmp_path)
    reference, failing = runs["agent, one dialect"].argv, runs["failing runtime"].argv
    full = runs["failing runtime, full shrink"].argv
    assert not any(arg.startswith("--impl=") for arg in reference)
    assert f"--impl={suite_runs.FAILING_IMPL}" in failing
    # the same laws on the same dialect; only the runtime (and, below, the budget) differ
    assert reference[reference.index("--pyargs") :] == failing[failing.index("--pyargs") :]
    assert full[full.index("--shrink-budget") + 1] == "full" and "--shrink-budget" not in failing
    # a run that fails fewer than ten laws is not the run the row claims to time
    table = "\n".join(f"  FAIL            MUST   law.{n}  docs/laws.md:1" for n in range(9))
    assert runs["failing runtime"].check(1, table) is not None
    assert runs["failing runtime"].check(1, table + "\n  FAIL            SHOULD law.x") is None
    assert runs["failing runtime"].check(0, table) is not None  # a failing run is red

    def took(*seconds: float) -> list[suite_runs.Timing]:
        return [suite_runs.Timing(s, 0.5, 1.5, "", 1) for s in seconds]

    rows = conformance_run.report_rows(
        ["failing"],
        {
            "agent, one dialect": took(20.0, 22.0, 24.0),
            "failing runtime": took(30.0, 36.0, 40.0),
            "failing runtime, full shrink": took(90.0),
        },
    )
    assert [(row.ratio, row.met, row.target_text) for row in rows] == [
        (36.0 / 22.0, False, "<= 1.5x"),
        (90.0 / 22.0, None, "-"),
    ]


def test_the_launch_rows_differ_from_their_floor_only_in_how_hosts_start(tmp_path: Path) -> None:
    """The same laws on the same dialect three times: forked from the warm launcher (the
    floor), started as new interpreters, forked from a launcher without the warm-up."""
    assert conformance_run.rounds_of(["launch"], 3, 1) == {
        "hosts, launcher": 3,
        "hosts, plain start": 3,
        "hosts, no warm-up": 3,
    }
    runs = suite_runs.runs(tmp_path)
    forked, plain, cold = (runs[f"hosts, {n}"] for n in ("launcher", "plain start", "no warm-up"))
    assert forked.argv[-len(suite_runs.server_modules()) :] == suite_runs.server_modules()
    assert (forked.argv, forked.env) == (plain.argv, ()) and plain.env
    assert dict(plain.env) == {"TURNLAW_FORK_LAUNCH": "0"}
    at = cold.argv.index(unwarmed_launcher.UNWARMED)
    assert cold.argv[at - 1] == "-p" and cold.argv[: at - 1] + cold.argv[at + 1 :] == forked.argv
    assert cold.env == ()


def test_a_runs_environment_reaches_its_process(tmp_path: Path) -> None:
    looks = [sys.executable, "-c", "import os; print(os.environ.get('TURNLAW_FORK_LAUNCH'))"]
    run = suite_runs.Run(looks, env=(("TURNLAW_FORK_LAUNCH", "0"),))
    assert suite_runs.timed(run).output.strip() == "0"


def test_the_unwarmed_launcher_is_the_references_without_its_warm_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Loaded as a plugin, the launcher the reference starts is this module; run, it is
    the reference's launcher whose warm-up does nothing."""
    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **_: started.append(argv))
    monkeypatch.setattr(_launcher, "subprocess", subprocess)  # put back after
    unwarmed_launcher.pytest_configure()
    launching = vars(_launcher)["subprocess"]
    launching.Popen([sys.executable, "-m", unwarmed_launcher.LAUNCHER, "7"])
    assert started == [[sys.executable, "-m", unwarmed_launcher.UNWARMED, "7"]]
    assert launching.DEVNULL == subprocess.DEVNULL  # the rest is untouched
    warmed: list[int] = []
    monkeypatch.setattr(_launcher, "warm_up", lambda: warmed.append(1))
    monkeypatch.setattr(_launcher, "main", lambda argv: len(argv))
    assert unwarmed_launcher.main(["7"]) == 1
    vars(_launcher)["warm_up"]()
    assert warmed == []
    # the launcher looks its warm-up up by name when it serves, so the swap takes
    assert "warm_up()" in inspect.getsource(_launcher._serve)
