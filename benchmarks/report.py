"""The printed table, the environment lines under it, and the optional JSON file.

Every row is bare vs turnlaw and their ratio (turnlaw / bare), with the target it is read
against. A missed target is printed as such, never raised: these are measurements.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
from dataclasses import dataclass, field
from importlib import metadata, util
from pathlib import Path
from typing import Any, Literal

from .rounds import Samples

PACKAGES = ("turnlaw", "openai", "httpx", "httpx2", "respx", "uvicorn", "h11", "pydantic")


@dataclass(frozen=True)
class Row:
    """One benchmark: a figure measured for both variants, and its target ratio."""

    name: str
    unit: str
    bare: Samples
    turnlaw: Samples
    target: float | None = None
    """Ratio turnlaw/bare to stay within; None for figures shown only to explain others."""
    better: Literal["lower", "higher"] = "lower"

    @property
    def ratio(self) -> float:
        return self.turnlaw.median / self.bare.median

    @property
    def paired_ratio(self) -> float:
        """Median of the per-round ratios: less sensitive to drift between rounds."""
        pairs = zip(self.turnlaw.values, self.bare.values, strict=True)
        return statistics.median(ours / bare for ours, bare in pairs)

    @property
    def target_text(self) -> str:
        if self.target is None:
            return "-"
        return f"{'<=' if self.better == 'lower' else '>='} {self.target:.2f}x"

    @property
    def met(self) -> bool | None:
        if self.target is None:
            return None
        return self.ratio <= self.target if self.better == "lower" else self.ratio >= self.target

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "unit": self.unit,
            "bare": self.bare.median,
            "turnlaw": self.turnlaw.median,
            "ratio": self.ratio,
            "paired_ratio": self.paired_ratio,
            "target": self.target_text if self.target is not None else None,
            "met": self.met,
            "rounds": {"bare": self.bare.values, "turnlaw": self.turnlaw.values},
        }


@dataclass
class Report:
    command: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    """Seconds each part of the run took, imports excluded."""
    load: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())
    """os.getloadavg() before the first round and after the last: a busy machine does not
    slow both sides of a ratio equally, so a ratio is read with the load it ran under."""

    def environment(self) -> dict[str, str]:
        return environment()

    def render(self) -> str:
        width = max(len(row.name) + len(row.unit) + 3 for row in self.rows)
        lines = [
            f"{'benchmark':<{width}}  {'bare':>10}  {'turnlaw':>10}  {'ratio':>7}  "
            f"{'target':>8}  status"
        ]
        for row in self.rows:
            status = {None: "", True: "ok", False: "MISSED"}[row.met]
            lines.append(
                f"{row.name + ' (' + row.unit + ')':<{width}}  {figure(row.bare.median):>10}  "
                f"{figure(row.turnlaw.median):>10}  {row.ratio:>6.2f}x  {row.target_text:>8}  "
                f"{status}"
            )
        lines += ["", *(f"note: {note}" for note in self.notes), ""]
        lines.append(f"command: {self.command}")
        lines.append(load_line(self.load))
        lines += [f"{key}: {value}" for key, value in self.environment().items()]
        stages = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.stages.items())
        lines.append(f"time: {sum(self.stages.values()):.1f} s ({stages}; imports not included)")
        return "\n".join(lines)

    def write_json(self, path: Path) -> None:
        data = {
            "command": self.command,
            "environment": self.environment(),
            "load_before": list(self.load[0]),
            "load_after": list(self.load[1]),
            "stage_seconds": self.stages,
            "results": [row.as_json() for row in self.rows],
            "notes": self.notes,
        }
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def environment() -> dict[str, str]:
    """What the figures depend on besides the code: interpreter, packages, cores."""
    versions = {name: _version(name) for name in PACKAGES}
    loop = "uvloop" if util.find_spec("uvloop") else "asyncio"
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "packages": " ".join(f"{name}={version}" for name, version in versions.items()),
        # the fake's server is h11 (its guarded protocol) and the bare one names h11 too
        "uvicorn stack": f"http=h11 loop={loop} (the same for both servers)",
        "cores": f"{os.cpu_count()} (usable by this process: {affinity})",
        "platform": platform.platform(),
    }


def load_line(load: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    """The machine's load around the measurements, as printed under every table."""
    before, after = load
    return (
        f"load average (1, 5, 15 min): {_loads(before)} before the first run, "
        f"{_loads(after)} after the last"
    )


def _loads(values: tuple[float, ...]) -> str:
    return " ".join(f"{value:.2f}" for value in values) or "-"


def figure(value: float) -> str:
    """A figure with as many digits as its size deserves."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


def command_line(argv: list[str], module: str = "benchmarks") -> str:
    """The command exactly as run, and where from."""
    return f"{' '.join([sys.executable, '-m', module, *argv])}  (in {os.getcwd()})"
