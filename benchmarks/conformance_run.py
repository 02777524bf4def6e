"""`python -m benchmarks.conformance_run`: the whole conformance run, timed.

Two figures, measured side by side in alternating rounds (median wall time of each):
the full suite against the reference under the `ci` profile, and the same suite
(Chat Completions only) against `benchmarks.trivial_impl`, whose runtime costs next to
nothing — the harness's own floor — next to the reference on that same dialect.
Targets: the full run <= 20 s wall on the 2-core machine; reference / floor <= 2x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = [
    sys.executable,
    "-m",
    "pytest",
    "-p",
    "conformance.runner.plugin",
    "--pyargs",
    "conformance.laws",
    "--hypothesis-profile=ci",
    "-q",
    "-p",
    "no:cacheprovider",
]
RUNS = {
    "reference, all dialects": [],
    "reference, openai-chat": ["--dialects", "openai-chat"],
    "floor (trivial impl), openai-chat": [
        "--impl",
        "benchmarks.trivial_impl:implementation",
        "--dialects",
        "openai-chat",
    ],
}


def wall(extra: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run([*SUITE, *extra], cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({' '.join(extra)}):\n{done.stdout[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.conformance_run")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    for _ in range(args.rounds):  # alternate, so machine noise hits every run alike
        for name, extra in RUNS.items():
            times[name].append(wall(extra))
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, value in median.items():
        print(f"{name:<36} {value:6.1f} s wall (median of {args.rounds})")
    ratio = median["reference, openai-chat"] / median["floor (trivial impl), openai-chat"]
    print(f"{'reference / floor (openai-chat)':<36} {ratio:6.2f}x   target <= 2x")
    print(f"{'full run':<36} {median['reference, all dialects']:6.1f} s   target <= 20 s")
    command = f"python -m benchmarks.conformance_run --rounds {args.rounds}"
    print(f"command: {command}; cores: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
