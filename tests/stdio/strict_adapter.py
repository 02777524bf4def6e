"""An adapter written against protocol v1 as first released, that rejects what it does
not know: any op or field outside that release's documentation makes it exit (status 3),
naming it on stderr. Behind it, the reference runtime, declaring only what an adapter of
that release could declare: its capabilities (hosting aside), streamed replies, the
turns trigger, and revision 1.

`python tests/stdio/strict_adapter.py`: the suite must keep judging it as it did when it
was written (tests/stdio/test_evolution.py), however the protocol grew since.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from conformance.adapter import Capability, Delivery
from conformance.stdio.protocol import ImplementationInfo
from conformance.stdio.serve import serve_async
from reference_impl.adapter import ReferenceImplementation

AGENT = {"agent", "op", "seq"}
FIRST_RELEASE: dict[str, set[str]] = {
    "start": {"op", "seq", "version"},
    "agent.create": AGENT | {"spec"},
    "run": AGENT | {"message", "continue_from", "identity", "session_id"},
    "follow_up": AGENT | {"message"},
    "checkpoint": AGENT,
    "resume": AGENT | {"checkpoint", "decision"},
    "abandon_pause": AGENT,
    "can_explain": AGENT,
    "last_identity": AGENT,
    "agent.close": AGENT,
    "stop": {"op", "seq"},
}
"""Each op's fields, as the first release documented them."""

SPEC = {
    "id",
    "system",
    "model",
    "dialect",
    "base_url",
    "api_key",
    "tools",
    "memory",
    "self_explain",
    "window",
    "compaction",
}
COMPACTION = {"trigger_turns", "keep_recent_turns", "keep_originals"}
IDENTITY = {"conversation_id", "tenant", "principal"}

CAPABILITIES = frozenset(
    {
        Capability.FOLLOW_UP,
        Capability.CONTINUE_FROM,
        Capability.NAMED_AGENTS,
        Capability.IDENTITY,
        Capability.SESSION_ID,
        Capability.TOOL_CONTEXT,
        Capability.IDENTITY_REPORT,
        Capability.MEMORY,
        Capability.PAUSE,
        Capability.SELF_EXPLAIN,
        Capability.WINDOW,
        Capability.COMPACTION,
        Capability.IN_FLIGHT_GUARD,
    }
)
"""The first release's capabilities, but hosting (this adapter starts no hosts)."""


def unknown(request: dict[str, Any]) -> str | None:
    """What in `request` the first release did not document, or None."""
    op = request.get("op")
    if op not in FIRST_RELEASE:
        return f"unknown op {op!r}"
    extra = set(request) - FIRST_RELEASE[op]
    if extra:
        return f"unknown field(s) {sorted(extra)} in {op}"
    parts = [("spec", request.get("spec"), SPEC), ("identity", request.get("identity"), IDENTITY)]
    spec = request.get("spec")
    if isinstance(spec, dict):
        parts.append(("spec.compaction", spec.get("compaction"), COMPACTION))
    for where, value, known in parts:
        if isinstance(value, dict) and set(value) - known:
            return f"unknown field(s) {sorted(set(value) - known)} in {op}'s {where}"
    return None


def checked(lines: Iterable[str]) -> Iterator[str]:
    """The requests, each refused by exiting when it holds anything unknown."""
    for line in lines:
        if line.strip():
            problem = unknown(json.loads(line))
            if problem is not None:
                print(f"strict adapter: {problem}", file=sys.stderr, flush=True)
                os._exit(3)
        yield line


class FirstReleaseReference(ReferenceImplementation):
    capabilities = CAPABILITIES
    deliveries = frozenset({Delivery.STREAM})
    compaction_triggers: tuple[str, ...] = ("turns",)
    revision = 1


def main() -> None:
    implementation = FirstReleaseReference(name="strict first-release adapter", hosting=False)
    implementation.capabilities = CAPABILITIES  # the constructor narrows from all of them
    info = ImplementationInfo(name=implementation.name, language="python")
    requests = checked(sys.stdin)
    asyncio.run(serve_async(implementation, info, stdin=requests))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
