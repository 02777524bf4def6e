"""Answers a run with a seq nobody sent."""

from _minimal import ok, serve

serve({"run": lambda request: ok({"seq": request["seq"] + 1000}, {"answer": "ok"})})
