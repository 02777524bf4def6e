"""Works, but starts a helper process at once that holds stdout and outlives a clean
exit (a runtime's background worker): stopping the adapter must stop the helper too.
The helper's pid is appended to the file named by TURNLAW_PIDS_LOG."""

from _minimal import serve, start_helper

start_helper()
serve()
