"""Never answers a run (a hung runtime)."""

from _minimal import serve

serve({"run": lambda request: None})
