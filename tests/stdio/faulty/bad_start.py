"""Declares a capability the suite does not know."""

from _minimal import START, ok, serve

serve({"start": lambda request: ok(request, {**START, "capabilities": ["teleport"]})})
