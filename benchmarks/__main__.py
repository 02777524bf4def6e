"""`python -m benchmarks [--quick] [--only fake|hosting] [--json PATH]`: measure, then
print the table (the fake's rows, then the host's: `benchmarks.hosting_report`).

httpx must be aliased to httpx2 before anything imports httpx or respx (see
`benchmarks.in_process`), so that import comes first, here too.
"""

from __future__ import annotations

import conformance.httpx2_alias  # noqa: F401  (must come before httpx and respx)

# isort: split

import argparse
import asyncio
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import hosting_report, in_process, loopback
from .hosting import HostingPlan
from .report import Report, Row, command_line
from .rounds import Samples


@dataclass(frozen=True)
class Plan:
    """How much to measure: rounds per benchmark and the size of each round."""

    sdk_rounds: int
    sdk_batch: int
    httpx_rounds: int
    httpx_batch: int
    throughput: loopback.Load
    latency: loopback.Load
    hosting: HostingPlan


FULL = Plan(
    sdk_rounds=41,
    sdk_batch=30,
    httpx_rounds=41,
    httpx_batch=80,
    throughput=loopback.Load("throughput", connections=64, seconds=0.6, rounds=15),
    latency=loopback.Load("latency", connections=1, seconds=0.5, rounds=7),
    hosting=HostingPlan(cost_rounds=15, cost_turns=6, kills=50, floods=3),
)
"""Many short rounds: a shared machine's speed drifts from one second to the next, and
short rounds see both variants alike."""

QUICK = Plan(
    sdk_rounds=9,
    sdk_batch=15,
    httpx_rounds=9,
    httpx_batch=40,
    throughput=loopback.Load("throughput", connections=64, seconds=0.25, rounds=5),
    latency=loopback.Load("latency", connections=1, seconds=0.15, rounds=3),
    hosting=HostingPlan(cost_rounds=3, cost_turns=4, kills=5),
)
"""Enough to see a regression, too few rounds to trust a small difference."""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="What the turnlaw fake provider costs next to bare baselines, as ratios.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer, shorter rounds (QUICK instead of FULL)"
    )
    parser.add_argument(
        "--only",
        choices=["fake", "hosting"],
        help="measure only the fake provider's rows, or only the host's (default: both)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures here")
    return parser.parse_args(argv)


async def measure(plan: Plan, report: Report, only: str | None = None) -> None:
    if only != "hosting":
        await measure_fake(plan, report)
    if only != "fake":
        await hosting_report.measure(plan.hosting, report)


async def measure_fake(plan: Plan, report: Report) -> None:
    clock = time.perf_counter
    started = clock()
    sdk = await in_process.sdk_per_request(rounds=plan.sdk_rounds, batch=plan.sdk_batch)
    sdk_done = clock()
    raw = await in_process.httpx_per_request(rounds=plan.httpx_rounds, batch=plan.httpx_batch)
    raw_done = clock()
    per = in_process.PER_REQUEST
    report.rows += [
        Row("in-process via openai SDK", "us/req", sdk["bare"][per], sdk["turnlaw"][per], 1.10),
        Row("in-process via raw httpx", "us/req", raw["bare"][per], raw["turnlaw"][per], 2.0),
    ]
    tables = await loopback.measure([plan.throughput, plan.latency])
    report.stages = {
        "in-process SDK": sdk_done - started,
        "in-process httpx": raw_done - sdk_done,
        "loopback (with server start-ups)": clock() - raw_done,
    }
    busy, latency = tables[plan.throughput.name], tables[plan.latency.name]
    report.rows += [
        Row(
            f"loopback throughput, {plan.throughput.connections} conns",
            "req/s",
            busy["bare"][loopback.REQUESTS_PER_SECOND],
            busy["turnlaw"][loopback.REQUESTS_PER_SECOND],
            0.80,
            better="higher",
        ),
        Row(
            "  server CPU",
            "us/req",
            busy["bare"][loopback.SERVER_CPU],
            busy["turnlaw"][loopback.SERVER_CPU],
        ),
        Row(
            "  server busy",
            "% of a core",
            _percent(busy["bare"][loopback.SERVER_BUSY]),
            _percent(busy["turnlaw"][loopback.SERVER_BUSY]),
        ),
        Row(
            "loopback latency, 1 conn",
            "ms/req",
            latency["bare"][loopback.LATENCY],
            latency["turnlaw"][loopback.LATENCY],
        ),
        Row(
            "  server busy",
            "% of a core",
            _percent(latency["bare"][loopback.SERVER_BUSY]),
            _percent(latency["turnlaw"][loopback.SERVER_BUSY]),
        ),
    ]
    client = max(
        max(figures[loopback.CLIENT_CPU].values)
        for table in (busy, latency)
        for figures in table.values()
    )
    report.notes += [
        f"in-process: median of {plan.sdk_rounds} (SDK) and {plan.httpx_rounds} (httpx) "
        f"alternating rounds of {plan.sdk_batch} and {plan.httpx_batch} sequential requests",
        f"loopback: median of {plan.throughput.rounds} (throughput) and {plan.latency.rounds} "
        f"(latency) alternating rounds of ~{plan.throughput.seconds:g} s and "
        f"~{plan.latency.seconds:g} s, keep-alive connections with one request in flight "
        f"each; the load generator used at most {client:.0%} of a core",
        "ratio = turnlaw / bare; rows without a target are shown to explain others (an "
        "indented one, the row above it)",
    ]
    ours = latency["turnlaw"]
    if ours[loopback.SERVER_BUSY].median < 0.5 and ours[loopback.LATENCY].median > 10:
        report.notes.append(
            f"on one connection turnlaw's server was busy only "
            f"{ours[loopback.SERVER_BUSY].median:.0%} of the time, yet each request took "
            f"{ours[loopback.LATENCY].median:.1f} ms: it waits rather than computes (the "
            "signature of Nagle's algorithm meeting delayed ACKs, i.e. TCP_NODELAY off)"
        )


def _percent(samples: Samples) -> Samples:
    return Samples([value * 100 for value in samples.values])


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    args = parse_args(args_list)
    report = Report(command=command_line(args_list))
    before = os.getloadavg()
    asyncio.run(measure(QUICK if args.quick else FULL, report, args.only))
    report.load = (before, os.getloadavg())
    print(report.render())
    if args.json is not None:
        report.write_json(args.json)
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
