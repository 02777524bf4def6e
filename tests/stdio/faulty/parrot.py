"""Answers each run with whatever bytes it is told to: the run's message is base64, and
`{SEQ}` in it becomes the run's seq. For fuzzing the connector with real pipes."""

import base64
import sys

from _minimal import serve


def parrot(request: dict) -> None:
    line = base64.b64decode(request["message"]).replace(b"{SEQ}", str(request["seq"]).encode())
    sys.stdout.buffer.write(line + b"\n")
    sys.stdout.flush()


serve({"run": parrot})
