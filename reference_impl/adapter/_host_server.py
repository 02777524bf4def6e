"""The reference host as the suite starts it: a real process per `start_host`.

    python -m reference_impl.adapter._host_server --spec-file F [--agent-class mod:attr]
                                              [--host-class mod:attr]

`F` holds a `HostSpec` as JSON: data only, nothing in it is imported or run (the class
paths are the adapter's own command-line arguments). Each session's agent is built from
`spec.agent` exactly as the adapter's `create_agent` builds one (`_spec_agent`), with
durable memory beside the session store (`<store>.memory`), so a restart keeps both.
The first stdout line is the URL. The process starts once per test, several times with
restarts, so what it imports is kept to what serving needs: spawn-to-URL time is the
suite's time.

The adapter's end (spawning this and handing back the handle) is `_host_process`.
"""

from __future__ import annotations

import asyncio
import importlib
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._listening import LISTENING

if TYPE_CHECKING:
    from conformance.adapter._hosting_types import HostSpec


def _resolve(path: str) -> Any:
    """`module:attr.attr` → the object (the adapter's own argument, never the spec's)."""
    module, _, attr = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def _verifier(principals: dict[str, str] | None) -> Any:
    """`Authorization: Bearer <token>` → principals[token]; anything else refused."""
    if principals is None:
        return None

    def verify(headers: Any) -> str | None:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        return principals.get(token) if scheme.lower() == "bearer" else None

    return verify


async def _serve(spec: HostSpec, agent_class: Any, host_class: Any) -> None:
    from conformance._prompt_server import PromptServer

    from .._sqlite_memory import SqliteMemoryStore
    from ..hosting import standing_agent, uvicorn_host
    from ..store import sqlite_sessions
    from ._spec_agent import build_spec_agent, spec_provider

    memory = SqliteMemoryStore(spec.store + ".memory") if spec.agent.memory else None

    def build() -> Any:
        """What the adapter's create_agent builds (`ReferenceImplementation.build_agent`)."""
        return build_spec_agent(spec.agent, agent_class, spec_provider(spec.agent), memory)

    async with standing_agent(
        agent=None if spec.agent_per_session else build(),
        agent_factory=build if spec.agent_per_session else None,
        sessions=sqlite_sessions(spec.store),
        host=uvicorn_host(session_cookie=spec.session_cookie),
        on_concurrent_invoke=spec.on_concurrent_invoke,
        identity=_verifier(spec.principals),
        standing_class=host_class,
        server_class=PromptServer,
    ) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m reference_impl.adapter._host_server")
    parser.add_argument("--spec-file", required=True, type=Path)
    parser.add_argument("--agent-class", default=None, help="module:attr of an Agent class")
    parser.add_argument("--host-class", default=None, help="module:attr of a StandingAgent")
    args = parser.parse_args(argv)
    from conformance.adapter._hosting_types import HostSpec

    spec = HostSpec.model_validate_json(args.spec_file.read_text(encoding="utf-8"))
    if args.agent_class is not None:
        agent_class = _resolve(args.agent_class)
    else:
        from ..agent import Agent as agent_class
    if args.host_class is not None:
        host_class = _resolve(args.host_class)
    else:
        from ..hosting import StandingAgent as host_class
    asyncio.run(_serve(spec, agent_class, host_class))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
