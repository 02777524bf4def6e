"""Answers a run with a result nested 200,000 lists deep (a runtime serialising a
cyclic structure by hand). The suite refuses it as a protocol error and stops the
process; it must not lose its reader to a RecursionError."""

import sys

from _minimal import serve

DEPTH = 200_000


def deep(request: dict) -> None:
    body = "[" * DEPTH + "]" * DEPTH
    sys.stdout.write(f'{{"seq": {request["seq"]}, "status": "ok", "result": {body}}}\n')
    sys.stdout.flush()


serve({"run": deep})
