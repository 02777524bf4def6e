"""A minimal protocol v1 adapter with no runtime behind it, for the faulty adapters.

It answers every request at once (a run answers "ok" without calling any model), and
writes each request's op to the file named by TURNLAW_OPS_LOG when set, so a test can
see what the connector sent (restarts replay start and agent.create). A faulty adapter
overrides one op with `serve({"run": misbehave})`; an override returning None sends no
reply.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

Reply = dict[str, Any] | None
Handler = Callable[[dict[str, Any]], Reply]

START = {
    "implementation": {"name": "faulty", "language": "python"},
    "capabilities": [],
    "dialects": ["openai-chat"],
}


def ok(request: dict[str, Any], result: Any = None) -> Reply:
    return {"seq": request["seq"], "status": "ok", "result": result}


def normal(request: dict[str, Any]) -> Reply:
    op = request["op"]
    if op == "start":
        return ok(request, START)
    if op in ("run", "follow_up", "resume"):
        return ok(request, {"answer": "ok", "paused": None, "checkpoint": {"turns": 1}})
    if op == "checkpoint":
        return ok(request, {"turns": 1})
    if op == "can_explain":
        return ok(request, False)
    return ok(request)


def send(reply: Reply) -> None:
    if reply is not None:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def serve(overrides: dict[str, Handler] | None = None) -> None:
    log = os.environ.get("TURNLAW_OPS_LOG")
    for line in sys.stdin:
        request = json.loads(line)
        if log:
            with open(log, "a", encoding="utf-8") as ops:
                ops.write(f"{request['op']} {request.get('agent', '')}".rstrip() + "\n")
        handler = (overrides or {}).get(request["op"], normal)
        send(handler(request))
        if request["op"] == "stop":
            return


def start_helper() -> int:
    """Fork a helper that sleeps with this process's stdout and stderr open (a runtime's
    background worker); append its pid to the file named by TURNLAW_PIDS_LOG, so a test
    can check that stopping the adapter stopped it too."""
    helper = os.fork()
    if helper == 0:
        time.sleep(600)
        os._exit(0)
    log = os.environ.get("TURNLAW_PIDS_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as pids:
            pids.write(f"{helper}\n")
    return helper
