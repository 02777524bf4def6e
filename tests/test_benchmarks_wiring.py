"""The benchmarks stay runnable: each variant must be answered by the mock it claims.

No timing is asserted here (figures belong in `nox -s benchmarks`); this only runs the
in-process measurements for one tiny round, so a change to the fake that mis-wires a
benchmark fails CI instead of the next person who measures. The conformance run's rows
(`benchmarks.conformance_run`) are checked on synthetic figures: which processes each row
runs and how often, what their command lines are, and how the table and the per-law
breakdown come out; of those processes only the cheapest run (a bare pytest start, seven
empty tests).
"""

from __future__ import annotations

import argparse
import json
import re
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
)
from benchmarks.payloads import REPLY_TEXT
from benchmarks.rounds import Samples
from conformance.verdicts import Outcome
from conformance.verdicts import TestRecord as Record  # not collected as a test class
from conformance.wire import InProcess, ScriptedProvider, text
from conformance.wire._plan import Plan, RawRequest
from tests.rogues import kill


async def test_in_process_benchmarks_are_wired() -> None:
    sdk = await in_process.sdk_per_request(rounds=1, batch=2)
    raw = await in_process.httpx_per_request(rounds=1, batch=2)
    assert set(sdk) == {"bare", "turnlaw", in_process.STUBBED}
    assert set(raw) == {"bare", "turnlaw"}


async def test_the_stubbed_fake_is_what_answers_its_variant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stubbed row is the transport's own cost only if the stub, and nothing else,
    answered every request of its rounds."""
    made: list[in_process.DecisionStubbed] = []
    stub_class = in_process.DecisionStubbed

    def stub() -> in_process.DecisionStubbed:
        made.append(stub_class())
        return made[-1]

    monkeypatch.setattr(in_process, "DecisionStubbed", stub)
    await in_process.sdk_per_request(rounds=1, batch=2)
    # a warm-up round and a measured one, two requests each
    assert [one.answered for one in made] == [2, 2]


async def test_a_stubbed_round_answered_by_another_fake_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rogue: InProcess routes the stubbed round's requests to a real fake, which
    answers them correctly, so only the stub's own count can tell."""
    served_instead = ScriptedProvider([text(REPLY_TEXT)] * 2)
    real_in_process = InProcess

    def elsewhere(provider: ScriptedProvider) -> InProcess:
        provider.base_url = in_process.OUR_BASE_URL  # looks served, is not
        return real_in_process(served_instead)

    stubbed = in_process._sdk_variants(2)[in_process.STUBBED]
    monkeypatch.setattr(in_process, "InProcess", elsewhere)
    with pytest.raises(in_process.MiswiredError, match="answered 0 of 2"):
        await stubbed()
    assert len(served_instead.wire) == 2


async def test_a_stub_that_also_runs_the_real_fake_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rogue: a stub that counts and answers, but also runs the real respond() (so
    the row would time the checks it claims to leave out)."""
    stub_respond = in_process.DecisionStubbed.respond

    def records_too(self: in_process.DecisionStubbed, raw: RawRequest) -> Plan:
        ScriptedProvider.respond(self, raw)  # parsed, checked, recorded (and refused)
        return stub_respond(self, raw)

    monkeypatch.setattr(in_process.DecisionStubbed, "respond", records_too)
    with pytest.raises(in_process.MiswiredError, match="recorded 2 exchange"):
        await in_process._sdk_variants(2)[in_process.STUBBED]()


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
    assert rounds_of(["collection"], 3, 1) == {
        "pytest start": 3,
        "plugin start": 3,
        "collection": 3,
    }
    # the breakdown needs a run of every law; a floor is short, so it gets the short rounds
    assert rounds_of(["floor", "breakdown"], 3, 1) == {
        "pytest start": 3,
        "harness floor": 3,
        "pytest per test": 3,
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
    assert not [
        m for m in agent if m.split(".")[-1].startswith(("test_hosting_", "test_sessions_"))
    ]
    assert suite_runs.FLOOR_IMPL in runs["harness floor"].argv
    assert str(tmp_path / "all.jsonl") in runs["all"].argv
    parallel = runs["all, -n 2"].argv
    assert parallel[parallel.index("-n") + 1] == "2" and "-n" not in runs["all"].argv
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
def test_the_empty_tests_are_as_many_as_the_floor_collects(tmp_path: Path) -> None:
    """The row that says how much of the floor is pytest's own protocol is only that if it
    runs the floor's count of tests, each doing nothing, and every one of them passes."""
    assert "pytest per test" not in suite_runs.runs(tmp_path)  # no count, no run
    run = suite_runs.runs(tmp_path, floor_tests=7)["pytest per test"]
    assert "conformance.runner.plugin" not in run.argv
    module = (tmp_path / "test_per_test.py").read_text()
    assert "range(7)" in module and "async def" in module
    timing = suite_runs.timed(run)
    assert run.check(timing.code, timing.output) is None
    # the rogues: fewer or more tests ran, one was skipped, one failed (exit 0 claimed)
    for output in ("6 passed in 0.1s", "17 passed in 0.1s", "7 passed, 1 skipped in 0.1s"):
        assert run.check(0, output) is not None, output
    assert run.check(0, "7 passed, 1 failed in 0.1s") is not None
    assert run.check(1, "7 passed in 0.1s") is not None


@pytest.mark.timeout(300)  # four child pytest runs: on a busy machine, past 60 s
def test_the_floors_count_is_what_its_command_collects(tmp_path: Path) -> None:
    """Counted by the command's own --collect-only: a run the plugin calls red (exit 1)
    still has a count, and a deselected test is not counted."""
    (tmp_path / "test_seven.py").write_text(suite_runs.PER_TEST_MODULE.format(count=7))
    bare = [*suite_runs.PYTEST, "-c", str(suite_runs.ROOT / "pyproject.toml"), str(tmp_path)]
    assert suite_runs.count_tests(bare) == 7
    assert suite_runs.count_tests([*bare, "-k", "not nothing[6]"]) == 6  # "6/7 collected"
    # the plugin calls a run that judged nothing red: exit 1, and still 7
    assert suite_runs.count_tests([*bare, "-p", "conformance.runner.plugin"]) == 7
    with pytest.raises(SystemExit, match="no count"):
        suite_runs.count_tests([*bare, "--no-such-option"])


@pytest.mark.timeout(300)  # a child pytest: on a busy machine, past the project's 60 s
def test_the_pytest_start_floor_is_a_run_that_collects_nothing(tmp_path: Path) -> None:
    timing = suite_runs.timed(suite_runs.runs(tmp_path)["pytest start"])
    assert timing.code == 5


def test_the_report_shows_each_row_against_its_floor() -> None:
    def took(*seconds: float, code: int = 0) -> list[suite_runs.Timing]:
        return [suite_runs.Timing(s, 0.5, 1.5, "", code) for s in seconds]

    timings = {
        "pytest start": took(1.0, 2.0, 3.0),
        "plugin start": took(1.5, 1.5, 1.5),
        "collection": took(4.0, 4.0, 4.0),
        "harness floor": took(2.0, 2.0, 2.0),
        "all": took(10.0),
        "kill": took(90.0, code=1),
    }
    rows = conformance_run.report_rows(["collection", "kill", "breakdown"], timings)
    assert [row.floor_name for row in rows] == [
        "pytest start",
        "pytest start",
        "harness floor",
        "harness floor",
    ]
    assert [row.ratio for row in rows] == [2.0, 0.75, 5.0, 45.0]
    assert [row.met for row in rows] == [False, None, True, False]
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
    assert "--impl" not in reference and suite_runs.FAILING_IMPL in failing
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
