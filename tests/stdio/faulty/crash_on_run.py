"""Crashes on every run: a long log on stderr (longer than the kept tail), its last
words, then exit status 3."""

import sys

from _minimal import serve


def crash(request: dict) -> None:
    for n in range(100):
        print(f"faulty adapter: loading shard {n} of the runtime's state", file=sys.stderr)
    print("faulty adapter: segfault in the runtime (simulated)", file=sys.stderr, flush=True)
    sys.exit(3)


serve({"run": crash})
