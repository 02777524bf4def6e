"""What each conformance-run benchmark runs, and how one run is timed.

Every run is a fresh process, as a user starts it: interpreter start-up, imports and
collection are part of the figure. The agent laws are the kill run's agent door
(`tests.rogues.kill.law_modules`): every law module but the hosting and session ones.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.rogues.kill import default_workers, law_modules

ROOT = Path(__file__).resolve().parents[1]
PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
SUITE = [*PYTEST, "-p", "conformance.runner.plugin", "--hypothesis-profile=ci"]
"""The suite's command line (`-p no:cacheprovider`: a benchmark leaves no cache behind)."""
FLOOR_IMPL = "benchmarks.trivial_impl:implementation"
FLOOR_DIALECT = "openai-chat"
KILL_WORKERS = default_workers()
"""What `python -m tests.rogues` uses by default: three per core (at most eight)."""


@dataclass(frozen=True)
class Run:
    """One process to time, and what shows it did what it was meant to."""

    argv: list[str]
    exit_codes: frozenset[int] = frozenset({0})
    shows: str = ""
    """A pattern its output must match (the run may exit non-zero by design)."""

    def check(self, code: int, output: str) -> str | None:
        """Why this run's result cannot be timed as what it claims to be (None: it can)."""
        if code not in self.exit_codes:
            return f"exit status {code}, not {sorted(self.exit_codes)}"
        if self.shows and not re.search(self.shows, output):
            return f"its output does not show /{self.shows}/"
        return None


@dataclass(frozen=True)
class Timing:
    """One run's wall time, and the 1-minute load average just before and after it."""

    seconds: float
    load_before: float
    load_after: float
    output: str
    code: int


def agent_modules() -> list[str]:
    return law_modules("agent")


def runs(scratch: Path) -> dict[str, Run]:
    """Every run a row can need, by name; `scratch` holds their files (the empty module,
    the results file of the run of every law, the kill run's logs)."""
    empty = scratch / "test_empty.py"
    empty.write_text("", encoding="utf-8")
    # the empty module is collected under the project's pytest configuration, like the suite
    bare = [*PYTEST, "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT)]
    collected = r"\d+ tests? collected"
    return {
        "pytest start": Run(
            [*bare, "--collect-only", str(empty)], frozenset({5}), "no tests collected"
        ),
        "plugin start": Run(
            [*bare, "-p", "conformance.runner.plugin", "--collect-only", str(empty)],
            frozenset({1, 5}),  # the plugin calls a run that judged nothing red
            "no tests collected",
        ),
        # red too: the plugin counts every collected test as never reported
        "collection": Run(
            [*SUITE, "--collect-only", "--pyargs", "conformance.laws"], frozenset({0, 1}), collected
        ),
        "harness floor": Run(
            [
                *SUITE,
                "--impl",
                FLOOR_IMPL,
                "--dialects",
                FLOOR_DIALECT,
                "--pyargs",
                *agent_modules(),
            ]
        ),
        "agent": Run([*SUITE, "--pyargs", *agent_modules()]),
        "all": Run(
            [*SUITE, "--results", str(scratch / "all.jsonl"), "--pyargs", "conformance.laws"]
        ),
        # the same with pytest-xdist, as `nox -s conformance` runs it (-n auto) on 2 cores
        "all, -n 2": Run([*SUITE, "-n", "2", "--pyargs", "conformance.laws"]),
        # without --write the kill run only reads docs/kill-matrix.md: exit 1 when the run
        # is red or the doc stale, which the row reports rather than discards
        "kill": Run(
            [
                sys.executable,
                "-m",
                "tests.rogues",
                "--workers",
                str(KILL_WORKERS),
                "--keep",
                str(scratch / "kill"),
            ],
            frozenset({0, 1}),
            r"kill run: \d+ runs in",
        ),
    }


def timed(run: Run) -> Timing:
    """Run it from the repository's root, as users do; a run that did not do what it
    claims ends the benchmark, with its output's tail."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(
        run.argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    seconds = time.perf_counter() - started
    after = os.getloadavg()[0]
    problem = run.check(done.returncode, done.stdout)
    if problem is not None:
        raise SystemExit(f"{' '.join(run.argv)}: {problem}:\n{done.stdout[-3000:]}")
    return Timing(seconds, before, after, done.stdout, done.returncode)
