"""Honest, but very verbose: writes 100 MB on stderr (TURNLAW_FLOOD_MB to change it)
before each run's reply. The suite must read stderr as fast as it comes, or the
adapter blocks on a full pipe and an honest run is a TIMEOUT."""

import os
import sys

from _minimal import normal, serve

BLOCK = b"".join(b"debug %06d: a very verbose runtime\n" % n for n in range(30_000))


def flood(request: dict) -> dict | None:
    wanted = int(os.environ.get("TURNLAW_FLOOD_MB", "100")) * 1_000_000
    written = 0
    while written < wanted:
        sys.stderr.buffer.write(BLOCK)
        written += len(BLOCK)
    sys.stderr.buffer.write(b"faulty adapter: flood done\n")
    sys.stderr.flush()
    return normal(request)


serve({"run": flood})
