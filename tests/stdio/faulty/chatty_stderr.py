"""Works, but writes plenty on stderr (a verbose runtime): stderr is evidence, not a crash."""

import sys

from _minimal import normal, serve


def verbose(request: dict) -> dict | None:
    for n in range(200):
        print(f"debug {n}: thinking about {request['op']}", file=sys.stderr)
    sys.stderr.flush()
    return normal(request)


serve({"run": verbose})
