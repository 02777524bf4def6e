"""Crashes on every run: a message on stderr, then exit status 3."""

import sys

from _minimal import serve


def crash(request: dict) -> None:
    print("faulty adapter: segfault in the runtime (simulated)", file=sys.stderr, flush=True)
    sys.exit(3)


serve({"run": crash})
