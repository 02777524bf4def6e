"""One way into a conformance run: `conformance.run(...)` and `python -m conformance run`.

The suite is a pytest plugin, so a run is a pytest command line; this module is the one
place that spells it, for users and for every caller in this repository (nox, the kill
run, the mutant run, replay, benchmarks). Every option keeps the plugin's own spelling,
so what `python -m conformance run --help` lists is what pytest takes, and any option
this module does not name (`-x`, `--validate-protocol`, ...) is handed to pytest as is.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypedDict, Unpack

PLUGIN = "conformance.runner.plugin"
LAWS = "conformance.laws"
"""The package every law test lives in: what a run collects unless told otherwise."""
QUIET_LOOP_SCOPE = "asyncio_default_fixture_loop_scope=function"
"""pytest-asyncio warns on every run that does not choose its fixtures' loop scope; the
law fixtures are function-scoped, so the run chooses it, whatever the user's ini says."""
IMPORTED_FIRST = (
    "ignore:Module already imported so cannot be rewritten; conformance"
    ":pytest.PytestAssertRewriteWarning"
)
"""A run started from Python has imported this package before pytest could mark it for
assert rewriting; what it imported (this module, the CLI) asserts nothing, so the
warning says nothing a user can act on."""


class RunOptions(TypedDict, total=False):
    """The keywords `run`, `pytest_args` and `command` share with `run_options`."""

    laws: Iterable[str]
    dialects: str | None
    deliveries: str | None
    results: Path | str | None
    report_md: Path | str | None
    expectations: Path | str | None
    profile: str | None
    seed: int | str | None
    workers: int | str | None
    repro_dir: Path | str | None
    record: Path | str | None
    call_timeout: float | None
    timeout_multiplier: float | None
    options: Sequence[str]


def run_options(
    impl: str | None = None,
    *,
    laws: Iterable[str] = (),
    dialects: str | None = None,
    deliveries: str | None = None,
    results: Path | str | None = None,
    report_md: Path | str | None = None,
    expectations: Path | str | None = None,
    profile: str | None = None,
    seed: int | str | None = None,
    workers: int | str | None = None,
    repro_dir: Path | str | None = None,
    record: Path | str | None = None,
    call_timeout: float | None = None,
    timeout_multiplier: float | None = None,
    options: Sequence[str] = (),
) -> list[str]:
    """A run's options as both pytest (with the plugin) and `python -m conformance run`
    take them. None leaves an option to the plugin's default (the reference runtime, every
    dialect and delivery it has, `ci` on CI and `dev` elsewhere); `laws` are law ids or
    family prefixes such as `hosting.` (none: every law). Each is one `--flag=value`
    argument: a path given as an argument of its own is also read by pytest as a path to
    collect, and moves its rootdir."""
    named: list[tuple[str, object]] = [
        ("--impl", impl),
        ("--dialects", dialects),
        ("--deliveries", deliveries),
        ("--results", results),
        ("--report-md", report_md),
        ("--expectations", expectations),
        ("--hypothesis-profile", profile),
        ("--hypothesis-seed", seed),
        ("--numprocesses", workers),
        ("--repro-dir", repro_dir),
        ("--record", record),
        ("--call-timeout", call_timeout),
        ("--timeout-multiplier", timeout_multiplier),
    ]
    args = [f"{flag}={value}" for flag, value in named if value is not None]
    return [*args, *(f"--law={law}" for law in laws), *options]


def pytest_args(
    impl: str | None = None, *, select: Sequence[str] = (LAWS,), **run: Unpack[RunOptions]
) -> list[str]:
    """The whole pytest command line of a run (after `python -m pytest`). `select` names
    what to collect: packages or modules (`conformance.laws.test_run`), as `--pyargs`
    reads them; the keywords are `run_options`'."""
    return [
        "-p",
        PLUGIN,
        "-o",
        QUIET_LOOP_SCOPE,
        "-W",
        IMPORTED_FIRST,
        *run_options(impl, **run),
        "--pyargs",
        *select,
    ]


def run(
    impl: str | None = None,
    *,
    select: Sequence[str] = (LAWS,),
    plugins: Sequence[object] = (),
    **options: Unpack[RunOptions],
) -> int:
    """Run the suite in this process and return pytest's exit status (0 green, 1 red,
    2 interrupted, 3 internal error, 4 usage error, 5 nothing collected). `impl` is
    `module:attribute` of an Implementation or `cmd:<command line>` of a stdio adapter;
    see `run_options` for the rest. pytest imports the law modules once per process:
    run a second suite in a fresh interpreter (`command`)."""
    import pytest

    return int(pytest.main(pytest_args(impl, select=select, **options), plugins=list(plugins)))


def command(impl: str | None = None, **options: Unpack[RunOptions]) -> list[str]:
    """The command line that runs the suite in a child interpreter, as a user types it."""
    return [sys.executable, "-m", "conformance", "run", *run_options(impl, **options)]


def add_run_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`python -m conformance run`'s options: the common ones named (a path is handed on
    as `--flag=value`, see `run_options`), the rest pytest's."""
    parser = commands.add_parser(
        "run",
        help="run the laws against an implementation (any other option goes to pytest)",
        description="Run the conformance laws. Options not listed here are pytest's and "
        "the plugin's (python -m pytest -p conformance.runner.plugin --help), passed on.",
        allow_abbrev=False,
    )
    parser.add_argument("--impl", help="module:attr of an Implementation, or cmd:<command line>")
    parser.add_argument(
        "--law",
        action="append",
        default=[],
        dest="laws",
        metavar="ID",
        help="run this law (repeatable); an id prefix ending in '.' runs a family, e.g. hosting.",
    )
    parser.add_argument("--results", type=Path, help="write the results JSONL here")
    parser.add_argument("--report-md", type=Path, help="write the per-law Markdown report here")
    parser.add_argument("--expectations", type=Path, help="TOML manifest of expected failures")
    parser.add_argument("--dialects", help="comma-separated dialects (default: all it has)")
    parser.add_argument("--deliveries", help="stream and/or whole (default: all it offers)")
    parser.add_argument("--hypothesis-profile", dest="profile", help="ci, dev or thorough")
    parser.add_argument("--repro-dir", type=Path, help="write failing tests' repro files here")
    parser.add_argument("--record", type=Path, help="write each test's wire recording here")
    parser.add_argument(
        "-n", "--numprocesses", dest="workers", help="pytest-xdist workers (a number or auto)"
    )


def run_from_cli(args: argparse.Namespace, rest: Sequence[str]) -> int:
    return run(
        args.impl,
        laws=args.laws,
        results=args.results,
        report_md=args.report_md,
        repro_dir=args.repro_dir,
        record=args.record,
        expectations=args.expectations,
        dialects=args.dialects,
        deliveries=args.deliveries,
        profile=args.profile,
        workers=args.workers,
        options=list(rest),
    )
