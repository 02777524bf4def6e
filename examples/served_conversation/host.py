"""The tour's host: the reference host with one tool that asks the person before booking.

`python -m reference_impl.hosting serve` serves an agent without tools, which never
pauses; a pause needs a tool that asks. This is the same host built from the public API
(`standing_agent`, `sqlite_sessions`, `uvicorn_host`), with the same flags and the same
first stdout line, plus that tool.

    python examples/served_conversation/host.py --sessions sessions.db --port 8080 \\
        --provider-url http://127.0.0.1:PORT/v1 [--session-cookie NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import signal

from reference_impl import Agent, ToolContext, ask_person, make_provider, tool
from reference_impl.hosting import standing_agent, uvicorn_host
from reference_impl.store import sqlite_sessions

LISTENING = "turnlaw-host listening on "


@tool(
    description="Book a restaurant table; asks the person to confirm first.",
    parameters={
        "type": "object",
        "properties": {"people": {"type": "integer"}, "day": {"type": "string"}},
        "required": ["people", "day"],
    },
)
def book_table(ctx: ToolContext, people: int, day: str) -> str:
    """Pauses the run: the person's answer becomes this call's result (the host stores
    the pause and answers 202 until a request brings a `decision`)."""
    ask_person(f"Book a table for {people} on {day}?")


async def serve(args: argparse.Namespace) -> None:
    provider = make_provider("openai-chat", base_url=args.provider_url, api_key="sk-tour")
    agent = (
        Agent.create(provider=provider, model="tour-model")
        .system("You take restaurant bookings. Be brief.")
        .tool(book_table)
        .build()
    )
    async with standing_agent(
        agent=agent,
        sessions=sqlite_sessions(args.sessions),
        host=uvicorn_host(port=args.port, session_cookie=args.session_cookie),
    ) as served:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, served.stop)
        print(f"{LISTENING}{served.url}", flush=True)
        await served.wait_stopped()


def main() -> None:
    parser = argparse.ArgumentParser(prog="host.py")
    parser.add_argument("--sessions", required=True)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--provider-url", required=True)
    parser.add_argument("--session-cookie", default=None)
    asyncio.run(serve(parser.parse_args()))


if __name__ == "__main__":
    main()
