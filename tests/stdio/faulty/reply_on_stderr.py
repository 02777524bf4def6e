"""Writes its run reply on stderr instead of stdout (a logger pointed the wrong way):
no reply arrives, so it is a TIMEOUT, and the message says where the reply went."""

import json
import sys

from _minimal import normal, serve


def on_stderr(request: dict) -> None:
    print(json.dumps(normal(request)), file=sys.stderr, flush=True)


serve({"run": on_stderr})
