"""`python -m benchmarks.conformance_run [--rows ROWS] [--rounds N] [--long-rounds M]
[--quick] [--json PATH]`: the conformance suite's own speed, row by row.

Rows (`--rows`, comma-separated; default every one):

- collection: `pytest --collect-only` of the suite, against a pytest start-up that
  collects an empty module;
- floor: the harness floor, the agent laws against `benchmarks.trivial_impl` on one
  dialect, against that same pytest start-up; under it, the floor run from a fresh copy
  of the sources (no bytecode, no `.hypothesis`), against the floor;
- agent: the agent laws against the reference, all three dialects, against the floor;
- all: every law (hosting and session laws included) against the reference, ditto;
- parallel: the same with `-n 2` (pytest-xdist, as `nox -s conformance` runs it);
- kill: `python -m tests.rogues` with its default workers (never `--write`: docs stay
  as they are; run as a process, so benchmarks import nothing of tests/);
- failing: the agent laws on one dialect against `benchmarks.failing_impl` (a runtime
  failing over ten of them, several found and shrunk by Hypothesis) as a ratio to the
  same laws against the reference; under it, the same run shrinking fully
  (`--shrink-budget full`), to show what the shrink budget saves;
- launch: the hosting and session laws on one dialect with their hosts started as new
  interpreters, against the same laws with hosts forked from the warm launcher (the
  default); under it, forked from a launcher that skipped the SDK warm-up: what the
  launcher and the warm-up each save;
- breakdown: the slowest five laws of a run of every law, with their share.

Every figure is the median wall time of its rounds; a round runs each needed process
once, in an order flipped every round, so machine noise hits them all alike. The long
rows (agent, all, parallel, kill) get `--long-rounds` (default 1),
the others `--rounds` (default 3). Targets are for a 2-core machine and are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from conformance.verdicts import read_results

from .law_breakdown import breakdown
from .report import command_line, figure
from .rounds import Samples
from .suite_report import SuiteReport, SuiteRow
from .suite_runs import (
    FAILING_LAWS,
    FLOOR_DIALECT,
    Timing,
    runs,
    timed,
)

MODULE = "benchmarks.conformance_run"


@dataclass(frozen=True)
class RowPlan:
    """A printed row: the run it times, the run it is a ratio to, its target in seconds."""

    title: str
    run: str
    floor: str
    target: float | None
    long: bool = False
    target_ratio: float | None = None
    """For a row compared with the same laws run otherwise: the ratio to stay within."""


ROWS: dict[str, RowPlan] = {
    "collection": RowPlan("pytest --collect-only of the suite", "collection", "pytest start", 1.5),
    "floor": RowPlan(
        f"harness floor: trivial runtime, agent laws, {FLOOR_DIALECT}",
        "harness floor",
        "pytest start",
        3,
    ),
    "agent": RowPlan(
        "agent laws vs the reference, 3 dialects", "agent", "harness floor", 6, long=True
    ),
    "all": RowPlan("every law vs the reference, 3 dialects", "all", "harness floor", 12, long=True),
    "parallel": RowPlan(
        "every law vs the reference, -n 2 (xdist)", "all, -n 2", "harness floor", 12, long=True
    ),
    "kill": RowPlan(
        "kill run: the reference and every rogue, default workers",
        "kill",
        "harness floor",
        45,
        long=True,
    ),
}
ROWS["failing"] = RowPlan(
    f"agent laws vs a runtime failing >= {FAILING_LAWS} laws, {FLOOR_DIALECT}",
    "failing runtime",
    "agent, one dialect",
    None,
    target_ratio=1.5,
)
ROWS["launch"] = RowPlan(
    f"hosting and session laws, hosts started plainly, {FLOOR_DIALECT}",
    "hosts, plain start",
    "hosts, launcher",
    None,
)
ROW_NAMES = (*ROWS, "breakdown")
EXPLAINED_BY = {
    "floor": (
        RowPlan("  the floor on a fresh checkout", "harness floor, fresh", "harness floor", None),
    ),
    "failing": (
        RowPlan(
            "  the same, shrinking fully",
            "failing runtime, full shrink",
            "agent, one dialect",
            None,
        ),
    ),
    "launch": (
        RowPlan("  forked, without the SDK warm-up", "hosts, no warm-up", "hosts, launcher", None),
    ),
}
"""Rows without a target printed under a row, to say where its time goes."""
ORDER = (
    "pytest start",
    "collection",
    "harness floor",
    "harness floor, fresh",
    "agent",
    "all",
    "all, -n 2",
    "kill",
    "agent, one dialect",
    "failing runtime",
    "failing runtime, full shrink",
    "hosts, launcher",
    "hosts, plain start",
    "hosts, no warm-up",
)
REMARKS = {
    "kill": "exit 1: red, or docs/kill-matrix.md stale (see tests.rogues)",
    "failing runtime": "exit 1: red, as a failing runtime's run is",
    "failing runtime, full shrink": "exit 1: red, as a failing runtime's run is",
}
"""What a run's accepted non-zero exit means, printed in its row's status."""


def parse_rows(text: str) -> tuple[str, ...]:
    """`collection,floor` -> the rows named, in the table's order; unknown names refused."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in ROW_NAMES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown row(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {','.join(ROW_NAMES)}"
        )
    return tuple(name for name in ROW_NAMES if name in names)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}",
        description="The conformance suite's wall time, row by row, as ratios to its floors.",
    )
    parser.add_argument(
        "--rows",
        type=parse_rows,
        default=ROW_NAMES,
        help=f"comma-separated rows to measure (default: {','.join(ROW_NAMES)})",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of the short rows (default 3)"
    )
    parser.add_argument(
        "--long-rounds",
        type=int,
        default=1,
        help="rounds of the long rows: agent, all, parallel, kill (default 1: minutes each today)",
    )
    parser.add_argument("--quick", action="store_true", help="one round of every row")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.long_rounds < 1:
        parser.error("--rounds and --long-rounds must be at least 1")
    if args.quick:
        args.rounds = args.long_rounds = 1
    return args


def rounds_of(rows: Sequence[str], rounds: int, long_rounds: int) -> dict[str, int]:
    """How many times each needed process runs: a row's run and its floor (breakdown
    needs a run of every law), `long_rounds` times for the long ones, `rounds` for the
    others, floors included: a floor is short, and every ratio divides by it."""
    needed = {run for plan in _plans(rows) for run in (plan.run, plan.floor)}
    long = {plan.run for plan in ROWS.values() if plan.long}
    return {run: long_rounds if run in long else rounds for run in ORDER if run in needed}


def _plans(rows: Sequence[str]) -> list[RowPlan]:
    """The rows to print: those asked for, in the table's order, each followed by what
    explains it; the run of every law is printed whenever it was run (the breakdown's)."""
    names = [n for n in ROWS if n in rows or (n == "all" and "breakdown" in rows)]
    plans: list[RowPlan] = []
    for name in names:
        plans.append(ROWS[name])
        plans.extend(EXPLAINED_BY.get(name, ()))
    return plans


def schedule(counts: Mapping[str, int]) -> list[list[str]]:
    """The runs of each round: every run still owed a round, in an order flipped every
    round, so drift over the minutes lands on all of them alike."""
    order = list(counts)
    return [
        [run for run in (order if index % 2 == 0 else order[::-1]) if counts[run] > index]
        for index in range(max(counts.values(), default=0))
    ]


def report_rows(rows: Sequence[str], timings: Mapping[str, list[Timing]]) -> list[SuiteRow]:
    """The printed rows, from what was timed."""
    return [_row(plan, timings) for plan in _plans(rows)]


def _row(plan: RowPlan, timings: Mapping[str, list[Timing]]) -> SuiteRow:
    runs_of = timings[plan.run]
    floors = timings[plan.floor]
    loads = [load for t in [*runs_of, *floors] for load in (t.load_before, t.load_after)]
    return SuiteRow(
        name=plan.title,
        seconds=Samples([t.seconds for t in runs_of]),
        floor_name=plan.floor,
        floor=Samples([t.seconds for t in floors]),
        target=plan.target,
        target_ratio=plan.target_ratio,
        load=(min(loads), max(loads)),
        remark=REMARKS.get(plan.run, "") if any(t.code != 0 for t in runs_of) else "",
    )


def notes(
    rows: Sequence[str], counts: Mapping[str, int], rounds: int, long_rounds: int
) -> list[str]:
    long_runs = {plan.run for plan in ROWS.values() if plan.long}  # keyed by run, not row
    long = [run for run in counts if run in long_runs]
    found = [
        f"seconds: median wall time of each process's rounds ({rounds} for the short rows"
        + (f", {long_rounds} for the long ones: {', '.join(long)}" if long else "")
        + "), every process in a fresh interpreter, rounds alternating in flipped order; "
        "choose with --rows, --rounds, --long-rounds",
        "ratio = seconds / floor seconds, both measured in this invocation",
    ]
    if "pytest start" in counts:
        found.append(
            "floor 'pytest start': `pytest --collect-only` of an empty module under the "
            "project's pytest configuration, without the turnlaw plugin: what any pytest "
            "process costs before a suite adds anything"
        )
    if "harness floor" in counts:
        found.append(
            "floor 'harness floor': the agent laws (the kill run's agent door: every law module "
            f"but test_hosting_*/test_sessions_*) against benchmarks.trivial_impl, the reference's "
            f"logic on a raw-HTTP provider, on {FLOOR_DIALECT} only: the harness's own cost; "
            "the agent, all and kill rows are ratios to it"
        )
    if "harness floor, fresh" in counts:
        found.append(
            "'the floor on a fresh checkout' runs it from a new copy of the sources "
            "(untimed), without __pycache__ or .hypothesis: what a CI runner's first run pays "
            "for bytecode, pytest's assertion rewriting and Hypothesis's unicode tables "
            "(installed packages' bytecode stays warm)"
        )
    if "all" in counts:
        found.append(
            "the run of every law also writes --results (read by the breakdown)"
            + (
                "; its row is printed because the breakdown needed the run"
                if "all" not in rows
                else ""
            )
        )
    if "failing runtime" in counts:
        found.append(
            "the failing row: the agent laws on one dialect against benchmarks.failing_impl (the "
            f"reference with over {FAILING_LAWS} laws broken; its run must show {FAILING_LAWS} "
            "FAIL lines), as a ratio to the same laws against the reference; 'shrinking fully' "
            "is that run with --shrink-budget full, what every failing property cost before "
            "the budget"
        )
    if "hosts, launcher" in counts:
        found.append(
            "the launch rows: the hosting and session laws on one dialect, their hosts and "
            "session runtimes forked from the warm launcher (the floor, the default), started "
            "as new interpreters (TURNLAW_FORK_LAUNCH=0), and forked from a launcher that "
            "skipped the SDK warm-up (-p benchmarks.unwarmed_launcher): a ratio above 1 is "
            "what the launcher, or the warm-up, saves"
        )
    if "kill" in counts:
        found.append(
            "the kill run is run without --write: it reads docs/kill-matrix.md, never rewrites "
            "it; its results and logs go to a scratch folder that is removed"
        )
    if "breakdown" in rows:
        found.append(
            "breakdown: the results file's per-test durations grouped by law (the runner's "
            "mapping); pytest records the call phase, and setup/teardown only when they failed "
            "or skipped, so start-up, collection and passing fixtures' setup are not in them"
        )
    return found


def measure(rows: Sequence[str], rounds: int, long_rounds: int, report: SuiteReport) -> None:
    counts = rounds_of(rows, rounds, long_rounds)
    timings: dict[str, list[Timing]] = {run: [] for run in counts}
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-") as folder:
        scratch = Path(folder)
        processes = runs(scratch)
        planned = schedule(counts)
        for index, order in enumerate(planned, start=1):
            for run in order:
                timing = timed(processes[run])
                timings[run].append(timing)
                print(
                    f"round {index}/{len(planned)}: {run} {figure(timing.seconds)} s "
                    f"(load {timing.load_before:.1f} -> {timing.load_after:.1f})",
                    file=sys.stderr,
                    flush=True,
                )
        if "breakdown" in rows:
            report.breakdown = breakdown(read_results(scratch / "all.jsonl").records)
            last = timings["all"][-1].seconds
            report.breakdown_source = (
                f"from the last run of every law against the reference ({figure(last)} s wall)"
            )
    report.rows = report_rows(rows, timings)
    report.seconds = sum(t.seconds for values in timings.values() for t in values)
    report.notes = notes(rows, counts, rounds, long_rounds)


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    args = parse_args(args_list)
    report = SuiteReport(command=command_line(args_list, MODULE))
    before = os.getloadavg()
    measure(args.rows, args.rounds, args.long_rounds, report)
    report.load = (before, os.getloadavg())
    print(report.render())
    if args.json is not None:
        report.write_json(args.json)
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
