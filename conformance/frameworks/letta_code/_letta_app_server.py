"""Letta Code's App Server (`letta server --listen`), for what the SDK's CLI door lacks.

The App Server is Letta Code's own agent-management API (protocol version 1): a process
serving JSON messages over a WebSocket on a loopback port, each request answered by a
`<type>_response` with the same `request_id`, `success` and, on failure, `error`. This
adapter uses three of its requests, each where SDK 0.1.14 on CLI 0.34.12 has no way:

- `agent_create` with `body.memory_blocks`: the seed's `createAgent({memory})` (the SDK's
  `--memory-blocks` flag is unknown to the CLI);
- `conversation_list` (`query.agent_id`) and `conversation_messages_list`: the seed's
  `client.conversations.list / listMessages`, without a session.

One App Server per call: started on the backend's HOME, asked, ended (SIGTERM, SIGKILL to
its group if it lingers), so no second long-lived process holds the store while the
sessions' CLI processes write it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
from typing import Any

from conformance.adapter import RefusalKind, Refused

from ._letta_home import LettaHome

STARTUP_TIMEOUT = 120.0
REPLY_TIMEOUT = 60.0


class AppServerError(RuntimeError):
    """The App Server did not start, or answered a request with `success: false`."""


def refusing_unknown(error: AppServerError) -> Exception:
    """The App Server's "... not found" is its refusal of an id it does not know."""
    if "not found" in str(error):
        return Refused(RefusalKind.UNKNOWN_ID, str(error))
    return error


class AppServer:
    """One running `letta server --listen` and a WebSocket connection to it."""

    def __init__(self, process: asyncio.subprocess.Process, connection: Any) -> None:
        self._process = process
        self._connection = connection
        self._ids = itertools.count(1)
        self._drain = asyncio.create_task(_drain(process))

    @classmethod
    async def start(cls, home: LettaHome) -> AppServer:
        home.workdir.mkdir(parents=True, exist_ok=True)
        process = await asyncio.create_subprocess_exec(
            *home.install.command("--backend", "local", "server", "--listen"),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=home.workdir,
            env=home.environment(),
            start_new_session=True,
        )
        try:
            url = await asyncio.wait_for(_websocket_url(process), STARTUP_TIMEOUT)
            from websockets.asyncio.client import connect

            connection = await connect(url, max_size=None, open_timeout=STARTUP_TIMEOUT)
        except BaseException:
            await _end(process)
            raise
        return cls(process, connection)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return its response (raises `AppServerError`)."""
        request_id = f"turnlaw-{next(self._ids)}"
        await self._connection.send(json.dumps({"type": kind, "request_id": request_id, **fields}))
        async with asyncio.timeout(REPLY_TIMEOUT):
            while True:
                reply = json.loads(await self._connection.recv())
                if isinstance(reply, dict) and reply.get("request_id") == request_id:
                    break
        if reply.get("success") is not True:
            raise refusing_unknown(AppServerError(f"{kind}: {reply.get('error') or reply}"))
        return reply

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self._connection.close()
        await _end(self._process)
        self._drain.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._drain


async def _websocket_url(process: asyncio.subprocess.Process) -> str:
    """Its stdout says `WebSocket: ws://127.0.0.1:PORT/ws` once it listens."""
    assert process.stdout is not None
    seen: list[str] = []
    while raw := await process.stdout.readline():
        text = raw.decode("utf-8", "replace").strip()
        seen.append(text)
        if text.startswith("WebSocket:"):
            return text.split(None, 1)[1]
    said = " | ".join(seen)[-1500:]
    raise AppServerError(f"letta server --listen exited before listening: {said}")


async def _drain(process: asyncio.subprocess.Process) -> None:
    """Read what it goes on printing, so a full pipe never stalls it."""
    assert process.stdout is not None
    while await process.stdout.read(4096):
        pass


async def _end(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), 5.0)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()


@contextlib.asynccontextmanager
async def app_server(home: LettaHome) -> Any:
    """An App Server on `home` for the duration of the block."""
    server = await AppServer.start(home)
    try:
        yield server
    finally:
        await server.close()


__all__ = ["AppServer", "AppServerError", "app_server", "refusing_unknown"]
