"""Prints a log line on stdout (where only replies belong) when asked to run."""

import sys

from _minimal import serve


def chatter(request: dict) -> None:
    sys.stdout.write("INFO starting run\n")
    sys.stdout.flush()


serve({"run": chatter})
