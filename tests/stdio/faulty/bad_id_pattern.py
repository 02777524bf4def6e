"""Declares an agent id pattern that does not compile."""

from _minimal import START, ok, serve

serve({"start": lambda request: ok(request, {**START, "agent_id_pattern": "[a-z"})})
