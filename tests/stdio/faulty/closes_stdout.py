"""On run, closes its stdout and keeps running (a runtime that redirects its own
output): no reply can come any more, so it is a CRASH, and the process is stopped."""

import os
import sys
import time

from _minimal import serve


def close_stdout(request: dict) -> None:
    sys.stdout.flush()
    os.close(1)
    print("faulty adapter: stdout closed, still running", file=sys.stderr, flush=True)
    time.sleep(600)


serve({"run": close_stdout})
