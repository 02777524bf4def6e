"""`python -m reference_impl.hosting serve --sessions sessions.db --port 8080 --provider-url URL`

Prints `turnlaw-host listening on http://127.0.0.1:PORT` as its first stdout line (a
script waits for it), then serves until SIGINT or SIGTERM: new requests get 503,
running turns finish and persist, and it exits 0. A `--sessions` file that is not a
usable store (not SQLite, another program's, a newer schema) is one line on stderr and
exit status 1, the file untouched.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._listening import LISTENING

if TYPE_CHECKING:
    from ..store import SessionStore

PROG = "python -m reference_impl.hosting"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve conversations over HTTP")
    serve.add_argument("--sessions", required=True, help="the SQLite session store file")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0 (the default): any free port")
    serve.add_argument("--provider-url", required=True, help="the model API's base URL")
    serve.add_argument(
        "--api-key",
        default=os.environ.get("TURNLAW_API_KEY", "sk-unused"),
        help="the model API key (default: $TURNLAW_API_KEY)",
    )
    serve.add_argument(
        "--dialect",
        default="openai-chat",
        choices=["openai-chat", "openai-responses", "anthropic-messages"],
    )
    serve.add_argument("--model", default="turnlaw-model")
    serve.add_argument("--system", default="", help="the system prompt")
    serve.add_argument("--session-cookie", default=None, help="cookie mode: the cookie's name")
    serve.add_argument(
        "--enqueue", action="store_true", help="queue a session's overlapping turns (else 409)"
    )
    serve.add_argument(
        "--agent-per-session", action="store_true", help="an agent per active session"
    )
    serve.add_argument("--max-active-sessions", type=int, default=100)
    return parser


async def _serve(args: argparse.Namespace, sessions: SessionStore) -> None:
    from .. import Agent, make_provider
    from ._serving import standing_agent, uvicorn_host

    def build() -> Agent:
        provider = make_provider(args.dialect, base_url=args.provider_url, api_key=args.api_key)
        return Agent.create(provider=provider, model=args.model).system(args.system).build()

    shared = None if args.agent_per_session else build()
    async with standing_agent(
        agent=shared,
        agent_factory=build if args.agent_per_session else None,
        sessions=sessions,
        host=uvicorn_host(args.host, args.port, session_cookie=args.session_cookie),
        on_concurrent_invoke="enqueue" if args.enqueue else "reject",
        max_active_sessions=args.max_active_sessions,
    ) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from ..store import SessionFileError, sqlite_sessions

    try:  # opened (and checked) before anything else, so a bad file stops the start
        sessions = sqlite_sessions(args.sessions)
    except SessionFileError as error:
        print(f"{PROG} {args.command}: {error}", file=sys.stderr)
        return 1
    try:
        asyncio.run(_serve(args, sessions))
    finally:
        sessions.close()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
