"""A slow runtime: each run answers TURNLAW_LATE seconds (default 3) after it was asked,
having made its model call only then (to the agent's base_url, when it has one). If
the suite did not stop it at the TIMEOUT, that late call would land on the next test's
fake provider."""

import json
import os
import sys
import time
import urllib.request

from _minimal import normal, ok, serve

base_urls: dict[str, str] = {}


def create(request: dict) -> dict | None:
    base_urls[request["agent"]] = request["spec"]["base_url"]
    return ok(request)


def late(request: dict) -> dict | None:
    time.sleep(float(os.environ.get("TURNLAW_LATE", "3")))
    base_url = base_urls.get(request["agent"])
    if base_url:
        print(f"faulty adapter: late model call to {base_url}", file=sys.stderr, flush=True)
        body = {"model": "turnlaw-model", "messages": [{"role": "user", "content": "late"}]}
        call = urllib.request.Request(
            base_url.rstrip("/") + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer late"},
        )
        try:
            urllib.request.urlopen(call, timeout=5).read()
        except OSError as error:
            print(f"faulty adapter: the late call failed: {error}", file=sys.stderr, flush=True)
    return normal(request)


serve({"agent.create": create, "run": late})
