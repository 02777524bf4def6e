"""`python -m tests.rogues [--write] [--workers N] [--keep DIR]`: the kill run.

Runs the suite against the reference and every rogue, prints what is wrong (if
anything), and checks docs/kill-matrix.md against the fresh run — or rewrites it with
`--write` (which also keeps each job's time in tests/rogues/durations.json, the order
the next run claims them in). Exit status 1 when the run is red or the file is stale.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .kill import DOC, DURATIONS, problems, run, write_durations
from .matrix_doc import render, settled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.rogues")
    parser.add_argument("--write", action="store_true", help="rewrite docs/kill-matrix.md")
    parser.add_argument("--workers", type=int, help="worker processes (default: 3 per CPU, max 8)")
    parser.add_argument("--keep", type=Path, help="keep results and logs in this folder")
    args = parser.parse_args(argv)
    started = time.monotonic()
    kill = run(args.keep, args.workers)
    print(f"kill run: {len(kill.results)} runs in {time.monotonic() - started:.1f} s")
    print(f"results and logs: {kill.folder}")
    found = problems(kill)
    for problem in found:
        print(f"  PROBLEM {problem}", file=sys.stderr)
    if found:
        return 1
    text = render(kill)
    if args.write:
        DOC.write_text(text, encoding="utf-8")
        write_durations(kill)
        print(f"wrote {DOC} and {DURATIONS}")
        return 0
    if not DOC.exists() or settled(DOC.read_text(encoding="utf-8")) != settled(text):
        print(f"{DOC} is stale: run python -m tests.rogues --write", file=sys.stderr)
        return 1
    print(f"{DOC} is current; every MUST law is killed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
