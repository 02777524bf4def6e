"""On run, starts a helper process that keeps stdout and stderr open (as a runtime's
worker would), then exits with status 5 at once. The exit is a CRASH whatever the
helper holds, and the helper dies with the adapter's process group. Each helper's pid
is appended to the file named by TURNLAW_PIDS_LOG, so a test can check it is gone."""

import os
import sys

from _minimal import serve, start_helper


def fork_and_exit(request: dict) -> None:
    helper = start_helper()
    print(f"faulty adapter: helper {helper} started; exiting", file=sys.stderr, flush=True)
    os._exit(5)


serve({"run": fork_and_exit})
