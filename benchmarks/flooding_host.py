"""Hosts that flood the suite: one streams server-sent events forever, one answers a
reply of 10^8 bytes. Each is a real process (`python -m benchmarks.flooding_host
MODE` prints its URL and serves), started and SIGKILLed by `FloodingHosts`, the hosting
implementation the suite is pointed at (`--impl benchmarks.flooding_host:endless`).

Nothing here is buffered on the host's side: the flood is generated as it is sent, so
the memory the run takes is the suite's own reading of it.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator

from conformance.adapter import AgentSpec, AgentUnderTest, Capability, HostSpec, HostUnderTest

LISTENING = "flooding-host listening on "
HUGE = 10**8
"""Bytes the `huge` host answers with."""
PIECE = b'{"output": "' + b"x" * 65_000
START_DEADLINE = 30.0


async def _flood(mode: str) -> AsyncIterator[bytes]:
    if mode == "endless":
        while True:
            yield b'event: chunk\ndata: {"text": "and more "}\n\n'
            await asyncio.sleep(0.01)
    sent = 0
    while sent < HUGE:
        yield PIECE
        sent += len(PIECE)


def serve(mode: str) -> None:
    """The host process: every request is answered with the flood."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    async def invoke(request: Request) -> StreamingResponse:
        kind = "text/event-stream" if mode == "endless" else "application/json"
        return StreamingResponse(_flood(mode), media_type=kind)

    app = Starlette(routes=[Route("/{path:path}", invoke, methods=["GET", "POST"])])
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()  # connections wait in the backlog until uvicorn serves them
    print(f"{LISTENING}http://127.0.0.1:{listening.getsockname()[1]}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error"))
    asyncio.run(server.serve(sockets=[listening]))


class FloodingHost:
    def __init__(self, process: asyncio.subprocess.Process, base_url: str) -> None:
        self._process = process
        self.base_url = base_url

    async def kill(self) -> None:
        if self._process.returncode is None:
            self._process.kill()
        await self._process.wait()

    async def stop(self) -> None:
        await self.kill()


class FloodingHosts:
    """A hosting implementation whose every host floods (`mode`: endless or huge)."""

    capabilities = frozenset({Capability.HOSTING})

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.name = f"flooding host ({mode})"

    async def create_agent(self, spec: AgentSpec) -> AgentUnderTest:
        raise NotImplementedError("a host door only")

    async def start_host(self, spec: HostSpec) -> HostUnderTest:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.flooding_host",
            self.mode,
            stdout=asyncio.subprocess.PIPE,
        )
        assert process.stdout is not None
        try:
            line = await asyncio.wait_for(process.stdout.readline(), START_DEADLINE)
        except TimeoutError:
            process.kill()
            raise
        said = line.decode().strip()
        if not said.startswith(LISTENING):
            process.kill()
            raise RuntimeError(f"the flooding host did not start: {said!r}")
        return FloodingHost(process, said.removeprefix(LISTENING))


endless = FloodingHosts("endless")
huge = FloodingHosts("huge")


if __name__ == "__main__":
    serve(sys.argv[1])
