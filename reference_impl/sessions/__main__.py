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
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from .._listening import LISTENING

if TYPE_CHECKING:
    import ssl


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


async def _serve(
    args: argparse.Namespace, server_class: type[uvicorn.Server], tls: ssl.SSLContext | None
) -> None:
    from ..providers import make_provider
    from ._serving import open_runtime, serve_sessions

    provider = make_provider(
        args.dialect,
        base_url=args.provider_url,
        api_key=args.api_key,
        stream=not args.whole,
        tls=tls,
    )
    runtime = open_runtime(args.store, provider, args.model, args.runtime_class)
    async with serve_sessions(
        runtime, host=args.host, port=args.port, server_class=server_class
    ) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main(
    argv: Sequence[str] | None = None,
    *,
    server_class: type[uvicorn.Server] = uvicorn.Server,
    tls: ssl.SSLContext | None = None,
) -> int:
    """The command line; a program that embeds it may give the uvicorn server class and
    the TLS context the model API's client verifies with (None: the SDK's default)."""
    args = _parser().parse_args(argv)
    asyncio.run(_serve(args, server_class, tls))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
