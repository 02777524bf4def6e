"""Run the conformance suite against each mutant and say which laws killed it.

Each mutant gets a copy of reference_impl/ with its one snippet replaced, and a suite run
of its own in a fresh interpreter (`_suite_process`) whose PYTHONPATH puts that copy
first. A mutant is KILLED when a law FAILs; CRASHED when no law fails but one is an
ERROR or a TIMEOUT, or the run itself died (weaker evidence: the runtime broke rather
than broke a law); SURVIVED otherwise.
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import conformance
from conformance.verdicts import Outcome, read_results

from .catalog import ROOT, Mutant

ALL_DIALECTS = "openai-chat,openai-responses,anthropic-messages"
"""A killed mutant's run is longer than a reference run (Hypothesis finds, then
shrinks), and running every mutant in every dialect would triple the whole run. Each
mutant runs in the dialects its catalog entry names instead (`--dialects` overrides)."""
TARGETS: tuple[str, ...] | None = None
"""What every suite run collects when given (`--targets`); None: each mutant's own
(`Mutant.targets`: its catalog `modules`, else the whole suite)."""
RUN_TIMEOUT = 900.0
"""A whole suite run's deadline; a mutant that hangs the run is CRASHED."""
STDIO_CALL_TIMEOUT = 10
"""Over stdio a call answers in well under a second; a mutant that hangs a call (the
in-flight laws hold requests) should not cost the suite's default 30 s a call."""
IN_PROCESS = "reference_impl.adapter:implementation"


class Verdict(enum.Enum):
    KILLED = "killed"
    CRASHED = "crashed"
    SURVIVED = "survived"
    BROKEN = "broken"
    """The run proved nothing: the mutated copy was not what it loaded."""


@dataclass(frozen=True, slots=True)
class MutantResult:
    mutant: Mutant
    verdict: Verdict
    seconds: float
    failed: tuple[str, ...] = ()
    """Laws that FAILed."""
    crashed: tuple[str, ...] = ()
    """Laws that were an ERROR or a TIMEOUT (and why the run died, if it did)."""
    log: Path | None = None


@dataclass
class MutantRun:
    """What one run of the runner found, in catalog order."""

    results: list[MutantResult] = field(default_factory=list)
    folder: Path | None = None
    dialects: str | None = None
    """The dialects every mutant ran in; None: each its own (the catalog's)."""

    def of(self, verdict: Verdict) -> list[MutantResult]:
        return [r for r in self.results if r.verdict is verdict]

    def kill_rate(self) -> tuple[int, int]:
        """(killed or crashed, counted mutants: neither equivalent nor outside the seed)."""
        counted = [r for r in self.results if r.mutant.counted]
        dead = [r for r in counted if r.verdict in (Verdict.KILLED, Verdict.CRASHED)]
        return len(dead), len(counted)


def impl_spec(mutant: Mutant) -> str:
    if mutant.impl == "stdio":
        return f"cmd:{sys.executable} -P -m reference_impl.adapter"
    return IN_PROCESS


def prepare(mutant: Mutant, folder: Path) -> Path:
    """A copy of reference_impl/ under `folder` with the mutant applied; its root."""
    root = folder / "src"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(
        ROOT / "reference_impl",
        root / "reference_impl",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (root / mutant.file).write_text(mutant.mutated_source(ROOT), encoding="utf-8")
    return root


def suite_command(
    mutant: Mutant,
    root: Path,
    folder: Path,
    dialects: str | None,
    targets: Sequence[str] | None = None,
) -> list[str]:
    return [
        sys.executable,
        "-P",  # the checkout's own reference_impl/ must not shadow the copy
        "-m",
        "tests.mutants._suite_process",
        str(root),
        mutant.module,
        str(folder / "proof"),
        "--",
        *conformance.pytest_args(
            impl_spec(mutant),
            select=mutant.targets if targets is None else targets,
            dialects=dialects or mutant.dialects,
            profile="mutants",  # ci without shrinking (see _suite_process)
            call_timeout=STDIO_CALL_TIMEOUT if mutant.impl == "stdio" else None,
            results=folder / "results.jsonl",
            repro_dir=folder / "repro",
            options=[
                *("-p", "no:cacheprovider", "-q"),
                "--import-mode=append",  # the copy stays first for spawned runtimes
            ],
        ),
    ]


def judge(mutant: Mutant, folder: Path, seconds: float, timed_out: bool) -> MutantResult:
    """The verdict from the run's results file and its proof of what it loaded."""
    log = folder / "log.txt"
    if timed_out:
        return MutantResult(mutant, Verdict.CRASHED, seconds, crashed=("(run timed out)",), log=log)
    results_path = folder / "results.jsonl"
    if not (folder / "proof").exists() or not results_path.exists():
        # the run did not prove it loaded the mutated copy (or the copy does not import):
        # whatever it wrote says nothing about this mutant
        return MutantResult(mutant, Verdict.BROKEN, seconds, crashed=(_last_line(log),), log=log)
    results = read_results(results_path)
    outcomes = results.per_law()
    failed = tuple(sorted(law for law, o in outcomes.items() if o is Outcome.FAIL))
    crashed = tuple(
        sorted(law for law, o in outcomes.items() if o in (Outcome.ERROR, Outcome.TIMEOUT))
    )
    if results.truncated:
        crashed = (*crashed, "(results truncated)")
    if failed:
        verdict = Verdict.KILLED
    elif crashed:
        verdict = Verdict.CRASHED
    else:
        verdict = Verdict.SURVIVED
    return MutantResult(mutant, verdict, seconds, failed, crashed, log)


def _last_line(log: Path) -> str:
    lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return lines[-1][:300] if lines else "(no output)"


def run_one(
    mutant: Mutant,
    folder: Path,
    dialects: str | None = None,
    targets: Sequence[str] | None = TARGETS,
) -> MutantResult:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in ("proof", "results.jsonl"):
        (folder / stale).unlink(missing_ok=True)
    root = prepare(mutant, folder)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)]),
        # a runtime the run spawns (`python -m ...` from the checkout) must not find the
        # checkout's reference_impl/ first in its working directory (_suite_process)
        "PYTHONSAFEPATH": "1",
        # each run its own Hypothesis database: no failing example of one mutant is
        # replayed against another, so every verdict is the ci profile's own
        "HYPOTHESIS_STORAGE_DIRECTORY": str(folder / "hypothesis"),
    }
    started = time.monotonic()
    timed_out = False
    with (folder / "log.txt").open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            suite_command(mutant, root, folder, dialects, targets),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            process.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            timed_out = True
            (folder / "timed-out").touch()
            os.killpg(process.pid, 9)  # its own session: the run and any cmd: adapter
            process.wait()
    return judge(mutant, folder, time.monotonic() - started, timed_out)


def run(
    mutants: Sequence[Mutant],
    folder: Path,
    *,
    workers: int = 2,
    dialects: str | None = None,
    targets: Sequence[str] | None = TARGETS,
    progress: Callable[[MutantResult], None] | None = None,
) -> MutantRun:
    """Every mutant, `workers` at a time, the stdio ones (the slowest) first."""
    ordered = sorted(mutants, key=lambda m: m.impl != "stdio")

    def one(mutant: Mutant) -> MutantResult:
        result = run_one(mutant, folder / mutant.id, dialects, targets)
        if progress is not None:
            progress(result)
        return result

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        done = {r.mutant.id: r for r in pool.map(one, ordered)}
    return MutantRun([done[m.id] for m in mutants], folder, dialects)


class NotAKeptRun(Exception):
    """The folder handed to `--rejudge` is not a kept run of these mutants."""


def rejudge(mutants: Sequence[Mutant], folder: Path, dialects: str | None = None) -> MutantRun:
    """The verdicts of a kept run (`--keep DIR`), read again without running anything:
    for re-rendering docs/mutants.md after the catalog's analysis changed."""
    missing = [m.id for m in mutants if not (folder / m.id).is_dir()]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        shown = ", ".join(missing[:5]) + more
        raise NotAKeptRun(f"{folder} holds no run of {shown}: keep a whole run with --keep DIR")
    results = []
    for mutant in mutants:
        timed_out = (folder / mutant.id / "timed-out").exists()
        results.append(judge(mutant, folder / mutant.id, 0.0, timed_out))
    return MutantRun(results, folder, dialects)
