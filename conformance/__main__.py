"""`python -m conformance laws-doc [--check]`: write (or check) docs/laws.md.
`python -m conformance report RESULTS.jsonl`: read a results file back, per law.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .lawdoc import laws_markdown
from .runner.report import print_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance")
    commands = parser.add_subparsers(dest="command", required=True)
    doc = commands.add_parser("laws-doc", help="generate docs/laws.md from the law registry")
    doc.add_argument("--out", type=Path, default=Path("docs/laws.md"))
    doc.add_argument("--check", action="store_true", help="fail if the file is out of date")
    report = commands.add_parser(
        "report", help="summarize a --results file; exit 2 when it is truncated"
    )
    report.add_argument("results", type=Path)
    args = parser.parse_args(argv)
    if args.command == "report":
        return print_report(args.results)
    text = laws_markdown()
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run python -m conformance laws-doc", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
