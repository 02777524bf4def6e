"""Declares notes and an agent id grammar in its start reply (protocol v1's optional
`notes` and `agent_id_pattern`), like a Python implementation's attributes."""

from _minimal import START, ok, serve

DECLARED = {
    **START,
    "notes": ["run() resets the runtime's chat (its 'new chat' call)", "retries off"],
    "agent_id_pattern": "[a-z][a-z0-9-]{0,30}",
}

serve({"start": lambda request: ok(request, DECLARED)})
