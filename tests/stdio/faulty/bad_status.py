"""Answers a run with a status protocol v1 does not have."""

from _minimal import serve

serve({"run": lambda request: {"seq": request["seq"], "status": "maybe"}})
