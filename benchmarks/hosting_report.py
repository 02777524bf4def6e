"""The hosting rows of the report, and the durability count said loudly.

Kept apart from the measuring (`benchmarks.hosting`, `benchmarks.durability`) so that
`python -m benchmarks` reads as a list of what is measured and how it is printed.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from . import durability, flooding, hosting
from .report import Report, Row

TURN_COST_TARGET = 1.3
"""Issue 14: a hosted turn costs at most 1.3x a direct continue_from run plus its save."""


async def measure(plan: hosting.HostingPlan, report: Report) -> None:
    """Measure the host, then add its rows, notes and stages to `report`."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    cost = await hosting.measure(plan)
    measured = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="turnlaw-bench-kills-") as tmp:
        kills = await durability.measure(plan.kills, Path(tmp))
    report.stages["hosting (with host start-ups)"] = measured - started
    report.stages["durability (SIGKILL and restart)"] = time.perf_counter() - measured
    flooded = time.perf_counter()
    peaks = flooding.measure(plan.floods)
    report.stages["flooding hosts (suite runs)"] = time.perf_counter() - flooded
    report.rows += [
        Row(
            "suite run vs a 10^8-byte host (vs a plain host)",
            "MB peak",
            peaks["plain"],
            peaks["huge"],
        ),
        Row(
            "suite run vs an endless stream (vs a plain host)",
            "MB peak",
            peaks["plain"],
            peaks["endless"],
        ),
    ]
    report.rows.append(
        Row(
            "hosted turn, 1 session (vs direct run+save)",
            "ms/turn",
            cost["bare"][hosting.MS_PER_TURN],
            cost["turnlaw"][hosting.MS_PER_TURN],
            TURN_COST_TARGET,
        )
    )
    restart = statistics.median(kills.restart_seconds) if kills.restart_seconds else float("nan")
    report.notes += [
        f"hosted turn: median of {plan.cost_rounds} alternating rounds of {plan.cost_turns} "
        "turns in a new session each; host in-process (uvicorn, httpx client), the fake in "
        "its own process; both variants stream from the fake and save to SQLite",
        f"durability: {kills.kills} SIGKILLs of the CLI host mid-turn (held at the fake), "
        f"{kills.completed} completed turns, lost {kills.lost}, phantom {kills.phantoms}; "
        f"restart to URL median {restart:.2f} s",
        f"machine load (1-min average) {load_before:.2f} before hosting, "
        f"{os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores",
    ]
    if kills.lost or kills.phantoms or kills.problems:
        loud = f"DURABILITY: {kills.lost} COMPLETED TURN(S) LOST, {kills.phantoms} PHANTOM(S)"
        report.notes += [loud, *kills.problems]
        print(loud, *kills.problems, sep="\n", file=sys.stderr)
