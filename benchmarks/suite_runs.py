"""What each conformance-run benchmark runs, and how one run is timed.

Every run is a fresh process, as a user starts it: interpreter start-up, imports and
collection are part of the figure. The law modules are split by door as the kill run
splits them (a wiring test holds the two together): the hosting and session modules,
whose runtimes are processes the suite starts, and the agent laws, every other one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Unpack

import conformance

ROOT = Path(__file__).resolve().parents[1]
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
"""pytest in a fresh process (`-p no:cacheprovider`: a benchmark leaves no cache behind)."""
FLOOR_IMPL = "benchmarks.trivial_impl:implementation"
FLOOR_DIALECT = "openai-chat"
FAILING_IMPL = "benchmarks.failing_impl:implementation"
UNWARMED = "benchmarks.unwarmed_launcher"
"""The plugin whose launcher skips the SDK warm-up."""
FAILING_LAWS = 10
"""How many laws the failing runtime's run must show FAIL for its row to be timed."""
FAIL_LINE = r"(?m)^  FAIL +(?:MUST|SHOULD|MAY) "
"""A law the terminal table shows as FAIL."""
SOURCES = ("conformance", "reference_impl", "benchmarks", "tests", "pyproject.toml")
"""What a fresh checkout's run imports and is configured by."""
LEFT_BEHIND = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc")
"""What a first run writes for the next one: bytecode (plain, and pytest's rewritten
modules) and Hypothesis's storage (its unicode tables among it)."""


@dataclass(frozen=True)
class Run:
    """One process to time, and what shows it did what it was meant to."""

    argv: list[str]
    exit_codes: frozenset[int] = frozenset({0})
    shows: str = ""
    """A pattern its output must match (the run may exit non-zero by design)."""
    at_least: int = 1
    """How many times `shows` must match."""
    fresh: bool = False
    """Run from a new copy of the sources, without what earlier runs left behind: the
    first run on a CI runner's new checkout."""
    env: tuple[tuple[str, str], ...] = ()
    """Set in its environment, beside ours."""

    def check(self, code: int, output: str) -> str | None:
        """Why this run's result cannot be timed as what it claims to be (None: it can)."""
        if code not in self.exit_codes:
            return f"exit status {code}, not {sorted(self.exit_codes)}"
        if self.shows and len(re.findall(self.shows, output)) < self.at_least:
            times = "" if self.at_least == 1 else f" {self.at_least} times"
            return f"its output does not show /{self.shows}/{times}"
        return None


@dataclass(frozen=True)
class Timing:
    """One run's wall time, and the 1-minute load average just before and after it."""

    seconds: float
    load_before: float
    load_after: float
    output: str
    code: int


LAWS = ROOT / "conformance" / "laws"
SERVER_LAWS = ("test_hosting_*.py", "test_sessions_*.py")
"""The hosting and session law modules: their runtimes are processes the suite starts."""


def law_modules(*, servers: bool) -> list[str]:
    """The server doors' law modules, or (`servers=False`) the agent laws: all the others."""
    found = {path for pattern in SERVER_LAWS for path in LAWS.glob(pattern)}
    if not servers:
        found = set(LAWS.glob("test_*.py")) - found
    return [f"conformance.laws.{path.stem}" for path in sorted(found)]


def agent_modules() -> list[str]:
    return law_modules(servers=False)


def server_modules() -> list[str]:
    return law_modules(servers=True)


COLLECTED = r"(\d+)(?:/\d+)? tests? collected"
"""pytest's count of what it collected: "567 tests collected", or "567/600 tests collected
(33 deselected)", whose first number is what runs."""


def suite(
    *select: str, impl: str | None = None, **run: Unpack[conformance.RunOptions]
) -> list[str]:
    """A conformance run of `select` (default: every law), in the `ci` profile unless
    told, spelled by conformance.pytest_args."""
    run.setdefault("profile", "ci")
    if select:
        return [*PYTEST, *conformance.pytest_args(impl, select=select, **run)]
    return [*PYTEST, *conformance.pytest_args(impl, **run)]


def floor_argv() -> list[str]:
    """The harness floor's command: the agent laws against the trivial runtime."""
    return suite(*agent_modules(), impl=FLOOR_IMPL, dialects=FLOOR_DIALECT)


def runs(scratch: Path) -> dict[str, Run]:
    """Every run a row can need, by name; `scratch` holds their files (the empty module,
    the results file of the run of every law, the kill run's logs)."""
    empty = scratch / "test_empty.py"
    empty.write_text("", encoding="utf-8")
    # the empty module is collected under the project's pytest configuration, like the suite
    bare = [*PYTEST, "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT)]
    floor = floor_argv()
    agent = agent_modules()
    servers = server_modules()
    found: dict[str, Run] = {
        "pytest start": Run(
            [*bare, "--collect-only", str(empty)], frozenset({5}), "no tests collected"
        ),
        # red too: the plugin counts every collected test as never reported
        "collection": Run(suite(options=["--collect-only"]), frozenset({0, 1}), COLLECTED),
        "harness floor": Run(floor),
        # the same on a new checkout: bytecode and Hypothesis's tables built as it goes
        "harness floor, fresh": Run(floor, fresh=True),
        "agent": Run(suite(*agent)),
        "all": Run(suite(results=scratch / "all.jsonl")),
        # the agent laws on one dialect, against the reference, then against a runtime
        # failing a dozen of them (found and shrunk by Hypothesis), as the suite shrinks
        # by default and as it shrinks when asked to go all the way
        "agent, one dialect": Run(suite(*agent, dialects=FLOOR_DIALECT)),
        "failing runtime": Run(
            suite(*agent, impl=FAILING_IMPL, dialects=FLOOR_DIALECT),
            frozenset({1}),
            FAIL_LINE,
            FAILING_LAWS,
        ),
        "failing runtime, full shrink": Run(
            suite(
                *agent,
                impl=FAILING_IMPL,
                dialects=FLOOR_DIALECT,
                options=["--shrink-budget", "full"],
            ),
            frozenset({1}),
            FAIL_LINE,
            FAILING_LAWS,
        ),
        # the laws that start processes, their hosts forked from the warm launcher (the
        # default), started as new interpreters, and forked from a launcher that skipped
        # the SDK warm-up: what the launcher and the warm-up each save
        "hosts, launcher": Run(suite(*servers, dialects=FLOOR_DIALECT)),
        "hosts, plain start": Run(
            suite(*servers, dialects=FLOOR_DIALECT), env=(("TURNLAW_FORK_LAUNCH", "0"),)
        ),
        "hosts, no warm-up": Run(suite(*servers, dialects=FLOOR_DIALECT, options=["-p", UNWARMED])),
        # the same with pytest-xdist, as `nox -s conformance` runs it (-n auto) on 2 cores
        "all, -n 2": Run(suite(workers=2)),
        # without --write the kill run only reads docs/kill-matrix.md: exit 1 when the run
        # is red or the doc stale, which the row reports rather than discards
        "kill": Run(
            [sys.executable, "-m", "tests.rogues", "--keep", str(scratch / "kill")],
            frozenset({0, 1}),
            r"kill run: \d+ runs in",
        ),
    }
    return found


def timed(run: Run) -> Timing:
    """Run it from the repository's root, as users do; a run that did not do what it
    claims ends the benchmark, with its output's tail."""
    with tempfile.TemporaryDirectory(prefix="turnlaw-checkout-") as checkout:
        root = _fresh_copy(Path(checkout)) if run.fresh else ROOT
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
            **dict(run.env),
        }
        before = os.getloadavg()[0]
        started = time.perf_counter()
        done = subprocess.run(
            run.argv,
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        seconds = time.perf_counter() - started
    after = os.getloadavg()[0]
    problem = run.check(done.returncode, done.stdout)
    if problem is not None:
        raise SystemExit(f"{' '.join(run.argv)}: {problem}:\n{done.stdout[-3000:]}")
    return Timing(seconds, before, after, done.stdout, done.returncode)


def _fresh_copy(folder: Path) -> Path:
    """The sources a checkout has, copied (untimed) into `folder`; first on PYTHONPATH,
    they are imported instead of the installed ones."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=LEFT_BEHIND)
        else:
            shutil.copy2(source, folder / name)
    return folder
