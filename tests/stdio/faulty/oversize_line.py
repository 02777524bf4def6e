"""Answers a run with a well-formed reply whose answer is TURNLAW_LINE_MB (default 8)
megabytes long: over a small --adapter-max-line, it is refused without being kept."""

import json
import os
import sys

from _minimal import serve


def oversize(request: dict) -> None:
    size = int(float(os.environ.get("TURNLAW_LINE_MB", "8")) * 1_000_000)
    result = {"answer": "x" * size, "paused": None, "checkpoint": None}
    sys.stdout.write(json.dumps({"seq": request["seq"], "status": "ok", "result": result}) + "\n")
    sys.stdout.flush()


serve({"run": oversize})
