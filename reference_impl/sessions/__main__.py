"""`python -m reference_impl.sessions serve --store DIR --provider-url URL`

Prints `turnlaw-host listening on http://127.0.0.1:PORT` as its first stdout line (the
host's convention, so one reader serves both), then serves agents, conversations and
sessions until SIGINT or SIGTERM, and exits 0. The model API key comes from
`--api-key` or `$TURNLAW_API_KEY` (an environment variable, so it is not on a command
line others can read). `--runtime-class module:attr` serves a SessionRuntime subclass: it
is the operator's argument, never read from the store.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._host_process import LISTENING

STORE_FILE = "sessions.db"
"""The one SQLite file a session runtime keeps in its store directory."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_impl.sessions")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve agents, conversations and sessions")
    serve.add_argument("--store", required=True, type=Path, help="the store directory")
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
    serve.add_argument(
        "--model", default="turnlaw-model", help="an agent's model until a session passes another"
    )
    serve.add_argument("--whole", action="store_true", help="ask for whole replies, not streams")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0: any free port")
    serve.add_argument(
        "--runtime-class", default=None, help="module:attr of a SessionRuntime subclass"
    )
    return parser


def _resolve(path: str) -> Any:
    module, _, attr = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


async def _serve(args: argparse.Namespace) -> None:
    from ..providers import make_provider
    from ..store import sqlite_runtime_store
    from ._runtime import SessionRuntime
    from ._serving import serve_sessions

    runtime_class = SessionRuntime if args.runtime_class is None else _resolve(args.runtime_class)
    args.store.mkdir(parents=True, exist_ok=True)
    provider = make_provider(
        args.dialect, base_url=args.provider_url, api_key=args.api_key, stream=not args.whole
    )
    runtime = runtime_class(
        store=sqlite_runtime_store(args.store / STORE_FILE), provider=provider, model=args.model
    )
    async with serve_sessions(runtime, host=args.host, port=args.port) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    asyncio.run(_serve(args))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
