"""Works, but starts a helper process at once that holds stdout and outlives a clean
exit (a runtime's background worker): stopping the adapter must stop the helper too.
The helper's pid is appended to the file named by TURNLAW_PIDS_LOG."""

import os
import time

from _minimal import serve

helper = os.fork()
if helper == 0:
    time.sleep(600)
    os._exit(0)
log = os.environ.get("TURNLAW_PIDS_LOG")
if log:
    with open(log, "a", encoding="utf-8") as pids:
        pids.write(f"{helper}\n")
serve()
