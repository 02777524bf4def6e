"""Answers start and agent.create, then never reads its stdin again (a runtime whose
loop is blocked): a large request fills the pipe, so the suite's write blocks too."""

import json
import sys
import time

from _minimal import normal, send

for line in sys.stdin:
    request = json.loads(line)
    if request["op"] not in ("start", "agent.create"):
        break
    send(normal(request))
print("faulty adapter: not reading stdin any more", file=sys.stderr, flush=True)
time.sleep(600)
