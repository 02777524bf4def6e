"""`python -m tests.mutants [--only ID ...] [--workers N] [--dialects D] [--keep DIR] [--write]`

Runs the conformance suite against every mutant of reference_impl/ (or the `--only`
ones), prints each verdict as it comes and the kill rate, and with `--write` rewrites
docs/mutants.md. Exit status 1 when the catalog is unsound, a run is broken, or an
"equivalent" mutant was killed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from .catalog import catalog_problems, load_mutants
from .report import DOC, problems, render, summary
from .runner import ALL_DIALECTS, TARGETS, MutantResult, NotAKeptRun, rejudge, run


def _show(result: MutantResult) -> None:
    laws = ", ".join([*result.failed, *result.crashed]) or "-"
    print(
        f"{result.verdict.value:9} {result.seconds:6.1f}s  {result.mutant.id}  [{laws}]", flush=True
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants")
    parser.add_argument("--only", nargs="+", metavar="ID", help="run only these mutants")
    parser.add_argument("--workers", type=int, default=2, help="suite runs at once (default 2)")
    parser.add_argument(
        "--dialects",
        help=f"every mutant in these (e.g. {ALL_DIALECTS}); default: each mutant's own",
    )
    parser.add_argument(
        "--targets",
        nargs="+",
        metavar="PYTEST_ARG",
        help="what every suite run collects (pytest --pyargs arguments; default: each "
        "mutant's catalog `modules`, else conformance.laws): narrow a check of one law's "
        "test, never for --write",
    )
    parser.add_argument("--keep", type=Path, help="keep copies, results and logs here")
    parser.add_argument("--write", action="store_true", help="rewrite docs/mutants.md")
    parser.add_argument(
        "--rejudge", type=Path, metavar="DIR", help="judge a kept run's folder again; run nothing"
    )
    args = parser.parse_args(argv)
    mutants = load_mutants()
    unsound = catalog_problems(mutants)
    for problem in unsound:
        print(f"  CATALOG {problem}", file=sys.stderr)
    if unsound:
        return 1
    if args.only:
        unknown = sorted(set(args.only) - {m.id for m in mutants})
        if unknown:
            parser.error(f"no such mutants: {', '.join(unknown)}")
        mutants = [m for m in mutants if m.id in args.only]
    if args.write and (args.only or args.targets):
        parser.error("--write documents the whole catalog and suite: drop --only/--targets")
    if args.rejudge is not None:
        try:
            result = rejudge(mutants, args.rejudge, args.dialects)
        except NotAKeptRun as error:
            print(f"turnlaw mutants: {error}", file=sys.stderr)
            return 2
    else:
        folder = args.keep or Path(tempfile.mkdtemp(prefix="turnlaw-mutants-"))
        started = time.monotonic()
        result = run(
            mutants,
            folder,
            workers=args.workers,
            dialects=args.dialects,
            targets=tuple(args.targets) if args.targets else TARGETS,
            progress=_show,
        )
        print(f"{len(mutants)} runs in {time.monotonic() - started:.0f} s; logs in {folder}")
    print(summary(result))
    found = problems(result)
    for problem in found:
        print(f"  PROBLEM {problem}", file=sys.stderr)
    if args.write:
        DOC.write_text(render(result), encoding="utf-8")
        print(f"wrote {DOC}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
