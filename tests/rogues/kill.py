"""The kill run: the suite against the reference and every rogue, and the matrix.

It proves the suite can fail, law by law: the reference passes everything, each rogue
FAILs the laws it was built to break (by those laws' own tests), and no MUST law goes
unkilled. Collateral failures are allowed, and listed. Rogues change runtime logic,
not the provider's wire, so the run uses one dialect (openai-chat) to stay fast; every
host rogue also runs behind the second wire (`<id>@second-wire`), a host wire of its own.
"""

from __future__ import annotations

import ast
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from conformance.registry import Level, load_laws
from conformance.verdicts import Outcome, ResultsFile, read_results

from .gallery import REFERENCE_SPEC, ROGUES
from .rogue import Surface

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "kill-matrix.md"
DIALECTS = "openai-chat"
REFERENCE = "reference"
DEPTH_ROGUE = "third-follow-up-after-continuation"
SHRINK_JOB = f"shrink-{DEPTH_ROGUE}"
MAX_SHRUNK_STEPS = 5
DURATIONS = Path(__file__).with_name("durations.json")
"""Seconds each job took in the last `--write` run: jobs are claimed longest first."""


@dataclass
class KillRun:
    """Per-implementation results of one kill run, and the logs that explain them."""

    folder: Path
    results: dict[str, ResultsFile] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    """Wall time of each job, as its worker measured it."""

    def outcomes(self, name: str) -> dict[str, Outcome]:
        return self.results[name].per_law()

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(encoding="utf-8") if path.exists() else "(no log)"


MODULES: dict[Surface, str] = {
    "agent": "test_*.py",
    "hosting": "test_hosting_*.py",
    "sessions": "test_sessions_*.py",
}
"""The law modules of each door a rogue's change is behind (an agent's: all but the
hosting and session modules, whose rogues change the host or the session runtime)."""


@cache
def marked_laws(path: Path) -> frozenset[str]:
    """The laws a law module's tests are marked with (`@pytest.mark.law("a", "b")`,
    read from the source: the marks are literals)."""
    found: set[object] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "law"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "mark"
        ):
            found |= {a.value for a in node.args if isinstance(a, ast.Constant)}
    return frozenset(law for law in found if isinstance(law, str))


def law_modules(surface: Surface, laws: tuple[str, ...] | None = None) -> list[str]:
    """A door's law modules (with `laws`: those holding a test of one of them).

    A rogue's job runs only the modules of the laws it is built to break: the reference
    job already proves that every other law passes, so the rest would only measure
    collateral, at the price of a whole suite run per rogue."""
    folder = ROOT / "conformance" / "laws"
    paths = set(folder.glob(MODULES[surface]))
    if surface == "agent":  # its pattern matches every module: leave out the other doors'
        paths -= {path for other in ("hosting", "sessions") for path in folder.glob(MODULES[other])}
    return [
        f"conformance.laws.{path.stem}"
        for path in sorted(paths)
        if laws is None or marked_laws(path) & set(laws)
    ]


def known_durations() -> dict[str, float]:
    """The last `--write` run's seconds per job (none when the file is missing or not a
    mapping of names to numbers: the order is then the gallery's, nothing else changes;
    an entry that is not a finite number is left out)."""
    try:
        found = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        str(name): float(seconds)
        for name, seconds in found.items()
        if isinstance(seconds, int | float)
        and not isinstance(seconds, bool)
        and math.isfinite(seconds)
    }


def longest_first(listed: list[dict[str, object]]) -> list[dict[str, object]]:
    """Jobs in the order workers claim them: the longest in the last run first, a job the
    last run did not have before all of them (its cost is unknown), ties in gallery order.

    A few rogues hold their tests to a bounded wait they never end (a turn that never
    finishes, a refusal that never comes) and take minutes where most take seconds;
    claimed last, one of them ran alone at the end of the run for over a minute."""
    known = known_durations()
    return sorted(listed, key=lambda job: -known.get(str(job["name"]), float("inf")))


def jobs() -> list[dict[str, object]]:
    whole = ["conformance.laws"]
    listed: list[dict[str, object]] = [
        # the one job that keeps shrinking
        {
            "name": SHRINK_JOB,
            "impl": next(r for r in ROGUES if r.id == DEPTH_ROGUE).impl_spec,
            "profile": "ci",
            "targets": ["conformance.laws.test_stateful"],
        },
        {"name": REFERENCE, "impl": REFERENCE_SPEC, "profile": "rogues", "targets": whole},
    ]
    listed += [
        {
            "name": r.id,
            "impl": r.impl_spec,
            "profile": "rogues",
            # only the modules of its laws; a host or session rogue changes only its door,
            # and one delivery shows a door's logic as well as two
            "targets": law_modules(r.surface, r.breaks),
            **({} if r.surface == "agent" else {"deliveries": "whole"}),
        }
        for r in ROGUES
    ]
    return longest_first([{**job, "dialects": DIALECTS} for job in listed])


def default_workers() -> int:
    """Three worker processes per core, at most eight: a job spends much of its time
    waiting (on hosts and session runtimes starting, on held turns, on the bounded waits
    a rogue never ends), so one per core leaves the cores idle; three per core kept them
    busy with the same verdicts (docs/speed.md)."""
    return min(8, 3 * (os.cpu_count() or 1))


def run(folder: Path | None = None, workers: int | None = None) -> KillRun:
    """Run every job in `workers` processes (default: `default_workers()`), the longest
    jobs of the last run first."""
    folder = folder or Path(tempfile.mkdtemp(prefix="turnlaw-kill-"))
    folder.mkdir(parents=True, exist_ok=True)
    listed = jobs()
    job_file = folder / "jobs.json"
    job_file.write_text(json.dumps(listed, indent=1), encoding="utf-8")
    count = workers or default_workers()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.rogues._worker", str(job_file)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(folder / f"worker-{n}.stderr").open("w"),
        )
        for n in range(count)
    ]
    try:
        for process in processes:
            process.wait()
    finally:  # interrupted (Ctrl-C, a timeout): leave no worker behind
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    outcome = KillRun(folder)
    for job in listed:
        name = str(job["name"])
        path = folder / f"{name}.jsonl"
        if path.exists():
            outcome.results[name] = read_results(path)
        with contextlib.suppress(OSError, ValueError):
            outcome.seconds[name] = float((folder / f"{name}.seconds").read_text("utf-8"))
    return outcome


def write_durations(kill: KillRun) -> None:
    """Keep this run's job times for the next run's order (whole seconds: the order needs
    no more, and the file changes less)."""
    rounded = {name: round(seconds) for name, seconds in sorted(kill.seconds.items())}
    DURATIONS.write_text(json.dumps(rounded, indent=1) + "\n", encoding="utf-8")


def must_laws_under_test() -> list[str]:
    return [
        law_id
        for law_id, law in load_laws().items()
        if law.level is Level.MUST and law.planned is None and not law.retired
    ]


def shrunk_steps(log: str) -> list[str]:
    """The steps of the shrunk failing sequence Hypothesis printed (`state.<rule>(...)`)."""
    steps: list[str] = []
    for line in log.splitlines():
        text = line.lstrip("E ")
        if text.startswith("state.teardown()"):
            break  # the first printed sequence; under CI pytest prints the report twice
        if text.startswith("state.") and "= Doors()" not in text:
            steps.append(text.split("state.", 1)[1])
    return steps


def problems(kill: KillRun) -> list[str]:
    """Everything that makes the kill run red, in words."""
    found: list[str] = []
    for name in [REFERENCE, *(r.id for r in ROGUES), SHRINK_JOB]:
        results = kill.results.get(name)
        if results is None:
            found.append(f"{name}: no results file; see {kill.folder / (name + '.log')}")
        elif results.truncated:
            found.append(f"{name}: results file truncated (the run died); see its log")
    if found:
        return found
    reference = kill.outcomes(REFERENCE)
    found += [
        f"reference: {law_id} is {outcome.value}, not PASS"
        for law_id, outcome in reference.items()
        if outcome is not Outcome.PASS
    ]
    for rogue in ROGUES:
        outcomes = kill.outcomes(rogue.id)
        found += [
            f"rogue {rogue.id}: its target {law_id} is {outcomes.get(law_id, 'not run')}, not FAIL"
            for law_id in rogue.breaks
            if outcomes.get(law_id) is not Outcome.FAIL
        ]
    killed = {law_id for rogue in ROGUES for law_id in rogue.breaks}
    found += [
        f"unguarded: MUST law {law_id} is no rogue's target"
        for law_id in must_laws_under_test()
        if law_id not in killed
    ]
    shrink = kill.outcomes(SHRINK_JOB)
    if Outcome.FAIL not in shrink.values():
        found.append(f"{SHRINK_JOB}: the stateful test did not find the depth rogue's bug")
    else:
        steps = shrunk_steps(kill.log(SHRINK_JOB))
        if not steps or len(steps) > MAX_SHRUNK_STEPS:
            found.append(
                f"{SHRINK_JOB}: shrunk to {len(steps)} steps, not 1..{MAX_SHRUNK_STEPS}: {steps}"
            )
    return found
