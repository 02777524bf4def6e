"""On run, writes log lines on stdout, one of them 20 MB long, around its reply: the
first stray line is a protocol error, and the report quotes it clipped."""

import sys

from _minimal import normal, send, serve


def chatter(request: dict) -> None:
    sys.stdout.write("INFO starting run " + "#" * 20_000_000 + "\n")
    sys.stdout.write("INFO still running\n")
    send(normal(request))


serve({"run": chatter})
