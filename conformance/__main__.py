"""`python -m conformance`: run (the laws against an implementation; see conformance.run),
laws-doc (write or check docs/laws.md), report (read a results file back: 0 green, 1 red,
2 truncated/inconsistent, 3 unreadable), matrix (write or check docs/conformance-matrix.md
from results files), schema (print a file or protocol format's JSON Schema), replay
(replay a stored failing case)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ._run import add_run_parser, run_from_cli


def _schemas() -> dict[str, Any]:
    from .adapter import host_wire_profile_schema
    from .hosting import hosting_wire_schema
    from .replay.model import repro_file_schema
    from .stdio.protocol import adapter_schema

    return {
        "adapter": adapter_schema,
        "hosting": hosting_wire_schema,
        "host-wire-profile": host_wire_profile_schema,
        "repro-file": repro_file_schema,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance")
    commands = parser.add_subparsers(dest="command", required=True)
    add_run_parser(commands)
    doc = commands.add_parser("laws-doc", help="generate docs/laws.md from the law registry")
    doc.add_argument("--out", type=Path, default=Path("docs/laws.md"))
    doc.add_argument("--check", action="store_true", help="fail if the file is out of date")
    report = commands.add_parser(
        "report",
        help="summarize a --results file; exit 0 green, 1 red, 2 truncated or inconsistent, "
        "3 unreadable",
    )
    report.add_argument("results", type=Path)
    matrix = commands.add_parser(
        "matrix", help="generate docs/conformance-matrix.md from conformance results files"
    )
    matrix.add_argument(
        "--results",
        type=Path,
        nargs="*",
        default=[],
        help="results files named <column>.jsonl (reference, pydantic-ai, openai-agents, "
        "langgraph); none: re-render the doc from the committed columns",
    )
    matrix.add_argument(
        "--check", action="store_true", help="fail if a fresh run or the doc differs"
    )
    matrix.add_argument("--doc", type=Path, default=None, help="the Markdown file to write")
    matrix.add_argument("--columns", type=Path, default=None, help="folder of committed columns")
    matrix.add_argument("--readme", type=Path, default=None, help="README with a summary block")
    schema = commands.add_parser("schema", help="print a format's JSON Schema")
    schema.add_argument("format", choices=["adapter", "hosting", "host-wire-profile", "repro-file"])
    replay = commands.add_parser("replay", help="replay a stored failing case (repro file)")
    replay.add_argument("file", type=Path, help="repro/<law-id>-<hash>.json")
    chosen = replay.add_mutually_exclusive_group()
    chosen.add_argument("--impl", help="module:attr or cmd:<command line> to replay against")
    chosen.add_argument(
        "--impl-from-file",
        action="store_true",
        help="replay against the implementation the file names (it runs code: it is printed "
        "first); without this or --impl, replay refuses",
    )
    replay.add_argument("--timeout-multiplier", type=float, default=1.0)
    replay.add_argument("--validate-protocol", action="store_true")
    args, rest = parser.parse_known_args(argv)
    if args.command == "run":
        return run_from_cli(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "report":
        from .verdicts import print_report

        return print_report(args.results)
    if args.command == "matrix":
        return _matrix(args)
    if args.command == "schema":
        print(json.dumps(_schemas()[args.format](), indent=2))
        return 0
    if args.command == "replay":
        from .replay.player import replay_main

        return replay_main(
            args.file,
            impl=args.impl,
            impl_from_file=args.impl_from_file,
            timeout_multiplier=args.timeout_multiplier,
            validate_protocol=args.validate_protocol,
        )
    from .lawdoc import laws_markdown

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


def _matrix(args: argparse.Namespace) -> int:
    from .verdicts import matrix

    doc = args.doc or matrix.DOC
    folder = args.columns or matrix.COLUMN_DIR
    readme = args.readme or (matrix.README if matrix.README.exists() else None)
    try:
        if args.check:
            problems = matrix.check(args.results, doc=doc, folder=folder, readme=readme)
            for problem in problems:
                print(problem, file=sys.stderr)
            return 1 if problems else 0
        for path in matrix.write(args.results, doc=doc, folder=folder, readme=readme):
            print(f"wrote {path}")
    except matrix.MatrixError as error:
        print(f"python -m conformance matrix: {error}", file=sys.stderr)
        return 2
    return 0


CLOSED_PIPE = 141
"""The exit status of a run whose reader closed the pipe: 128 + SIGPIPE, as a shell says."""


def _piped(argv: list[str] | None = None) -> int:
    """`main`, for a shell: a reader that stops early (`| head`) ends the output, not
    with a traceback (Python's own advice: stdout pointed at devnull), and the exit
    status is a shell's for a closed pipe (128 + SIGPIPE), never a verdict's."""
    try:
        return main(argv)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return CLOSED_PIPE


if __name__ == "__main__":
    raise SystemExit(_piped())
