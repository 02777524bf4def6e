"""The memory a suite run takes against a host that floods it, beside a plain host.

One law test (its JSON and streamed cases) runs as a child `python -m pytest` against
the reference host, then against `flooding_host:huge` (10^8 bytes per reply) and
`flooding_host:endless` (events forever), alternating. Each run is wrapped in a process
of its own whose only child is the run, so its peak resident size is that run's alone.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from .rounds import Samples
from .suite_runs import suite

IMPLEMENTATIONS = {
    "plain": "reference_impl.conformance_adapter:ReferenceImplementation",
    "huge": "benchmarks.flooding_host:huge",
    "endless": "benchmarks.flooding_host:endless",
}
ONE_LAW_TEST = "test_a_session_shows_its_own_turns_verbatim"
DEADLINE = "5"
_PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], capture_output=True, timeout=300, check=False)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def one_law_run(impl: str, results: Path) -> list[str]:
    """The command of one law test's cases against `impl`, each call under DEADLINE."""
    return suite(
        impl=impl,
        dialects="openai-chat",
        call_timeout=float(DEADLINE),
        results=results,
        options=["-k", ONE_LAW_TEST],
    )


def _peak_mb(impl: str, results: Path) -> float:
    run = one_law_run(impl, results)
    said = subprocess.run(
        [sys.executable, "-c", _PEAK, *run], capture_output=True, text=True, timeout=360
    )
    records = [json.loads(line) for line in results.read_text().splitlines()]
    if not any(r.get("type") == "test" for r in records):
        raise RuntimeError(f"the run against {impl} wrote no records: {said.stderr[-2000:]}")
    return int(said.stdout.strip().splitlines()[-1]) / 1024  # ru_maxrss is in KiB


def measure(rounds: int) -> dict[str, Samples]:
    """Peak MB per run, per implementation, `rounds` runs each, alternating."""
    peaks: dict[str, list[float]] = {name: [] for name in IMPLEMENTATIONS}
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-flood-") as tmp:
        for number in range(rounds):
            for name, impl in IMPLEMENTATIONS.items():
                results = Path(tmp) / f"{name}-{number}.jsonl"
                peaks[name].append(_peak_mb(impl, results))
    return {name: Samples(values) for name, values in peaks.items()}
