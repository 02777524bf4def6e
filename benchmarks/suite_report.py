"""The conformance run's printed table: each row's seconds, its target, its ratio to its
floor, the load it ran under; then the slowest laws, notes and the environment.

Laid out like `benchmarks.report` (a missed target is printed, never raised), but a row
here is one run against its floor, not a bare/turnlaw pair, and its target is seconds,
or for a row that compares two runs of the same laws, a ratio to its floor.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .law_breakdown import Breakdown
from .report import environment, figure, load_line
from .rounds import Samples


@dataclass(frozen=True)
class SuiteRow:
    """One timed run, next to the floor measured in the same invocation."""

    name: str
    seconds: Samples
    floor_name: str
    floor: Samples
    target: float | None
    """Seconds of wall time to stay within; None for rows that explain another."""
    load: tuple[float, float]
    """The lowest and highest 1-minute load average seen just before and after its runs."""
    remark: str = ""
    """What the status column says besides ok/MISSED (e.g. a red kill run)."""
    target_ratio: float | None = None
    """A ratio to the floor to stay within, for a row whose floor is the same laws run
    otherwise (the failing runtime against the reference)."""

    @property
    def ratio(self) -> float:
        return self.seconds.median / self.floor.median

    @property
    def met(self) -> bool | None:
        if self.target_ratio is not None:
            return self.ratio <= self.target_ratio
        return None if self.target is None else self.seconds.median <= self.target

    @property
    def target_text(self) -> str:
        if self.target_ratio is not None:
            return f"<= {self.target_ratio:g}x"
        return "-" if self.target is None else f"<= {self.target:g} s"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seconds": self.seconds.median,
            "target_seconds": self.target,
            "target_ratio": self.target_ratio,
            "met": self.met,
            "floor": self.floor_name,
            "floor_seconds": self.floor.median,
            "ratio": self.ratio,
            "load_1min": list(self.load),
            "remark": self.remark,
            "rounds": {"run": self.seconds.values, "floor": self.floor.values},
        }


@dataclass
class SuiteReport:
    command: str
    rows: list[SuiteRow] = field(default_factory=list)
    breakdown: Breakdown | None = None
    breakdown_source: str = ""
    """Which run the breakdown was read from, and its wall time."""
    notes: list[str] = field(default_factory=list)
    load: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())
    """os.getloadavg() before the first run and after the last."""
    seconds: float = 0.0
    """Wall time of every timed process together."""

    def render(self) -> str:
        width = max([len("row"), *(len(row.name) for row in self.rows)])
        floor_width = max([len("floor"), *(len(row.floor_name) for row in self.rows)])
        lines = [
            f"{'row':<{width}}  {'seconds':>8}  {'rounds':>6}  {'target':>9}  "
            f"{'floor':<{floor_width}}  {'floor s':>8}  {'ratio':>7}  {'load 1m':>9}  status"
        ]
        for row in self.rows:
            status = {None: "", True: "ok", False: "MISSED"}[row.met]
            status = ", ".join(filter(None, [status, row.remark]))
            low, high = row.load
            lines.append(
                f"{row.name:<{width}}  {figure(row.seconds.median):>8}  "
                f"{len(row.seconds.values):>6}  {row.target_text:>9}  "
                f"{row.floor_name:<{floor_width}}  {figure(row.floor.median):>8}  "
                f"{row.ratio:>6.2f}x  {f'{low:.1f}-{high:.1f}':>9}  {status}".rstrip()
            )
        if self.breakdown is not None:
            lines += ["", *self.breakdown_lines(self.breakdown)]
        lines += ["", *(f"note: {note}" for note in self.notes), ""]
        lines.append(f"command: {self.command}")
        lines.append(load_line(self.load))
        lines += [f"{key}: {value}" for key, value in environment().items()]
        lines.append(
            f"time: {self.seconds:.1f} s of timed runs (imports and reading results not included)"
        )
        return "\n".join(lines)

    def breakdown_lines(self, found: Breakdown) -> list[str]:
        width = max([len("law"), *(len(law.law) for law in found.slowest)])
        lines = [
            f"slowest {len(found.slowest)} of {found.laws} laws, {self.breakdown_source}: "
            f"{figure(found.total)} s recorded over {found.tests} tests",
            f"  {'law':<{width}}  {'seconds':>8}  {'share':>6}  tests",
        ]
        lines += [
            f"  {law.law:<{width}}  {figure(law.seconds):>8}  {law.share:>6.1%}  {law.tests}"
            for law in found.slowest
        ]
        if found.shared_tests:
            lines.append(
                f"  ({found.shared_tests} tests check several laws: their "
                f"{figure(found.shared_seconds)} s are split evenly among their laws)"
            )
        return lines

    def write_json(self, path: Path) -> None:
        data = {
            "command": self.command,
            "environment": environment(),
            "load_before": list(self.load[0]),
            "load_after": list(self.load[1]),
            "cores": os.cpu_count(),
            "results": [row.as_json() for row in self.rows],
            "breakdown": None if self.breakdown is None else self.breakdown.as_json(),
            "breakdown_source": self.breakdown_source,
            "notes": self.notes,
        }
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
