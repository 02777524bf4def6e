"""A cheap HTTP/1.1 load generator, so that the server and not the client is the bottleneck.

Raw asyncio streams, keep-alive, a few connections each with one request in flight,
the request bytes built once, and just enough parsing to find where a response ends
(status line, Content-Length or chunked framing). Its own CPU time is measured so the
report can show how much of a core it needed while the server was busy.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


class LoadError(RuntimeError):
    """The server answered something other than the expected reply."""


@dataclass(frozen=True)
class Target:
    """Where to send, and what every request looks like on the wire."""

    host: str
    port: int
    request: bytes

    @classmethod
    def post(cls, url: str, body: bytes, headers: dict[str, str]) -> Target:
        parts = urlsplit(url)
        if parts.hostname is None or parts.port is None:
            raise ValueError(f"need http://host:port/path, got {url!r}")
        lines = [
            f"POST {parts.path} HTTP/1.1",
            f"Host: {parts.hostname}:{parts.port}",
            *(f"{name}: {value}" for name, value in headers.items()),
            f"Content-Length: {len(body)}",
        ]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        return cls(parts.hostname, parts.port, head + body)


@dataclass(frozen=True)
class LoadResult:
    requests: int
    seconds: float
    client_cpu_seconds: float

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def client_cpu_share(self) -> float:
        """Share of one core the load generator itself used (1.0 = a full core)."""
        return self.client_cpu_seconds / self.seconds


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lowered = head.lower()
    at = lowered.find(b"\r\ncontent-length:")
    if at >= 0:
        end = lowered.index(b"\r\n", at + 2)
        return status, await reader.readexactly(int(lowered[at + 17 : end]))
    if b"\r\ntransfer-encoding: chunked" not in lowered:
        raise LoadError(f"response without Content-Length or chunked framing: {head!r}")
    body = bytearray()
    while True:
        size = int((await reader.readuntil(b"\r\n"))[:-2].split(b";", 1)[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # no trailers are sent: the final CRLF
            return status, bytes(body)
        body += (await reader.readexactly(size + 2))[:-2]


async def _drive(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    target: Target,
    marker: bytes,
    count: int | None,
    deadline: float,
) -> int:
    """Send requests one after another: `count` of them, or until `deadline` passes."""
    sent = 0
    clock = time.perf_counter
    while sent < count if count is not None else clock() < deadline:
        writer.write(target.request)
        status, body = await _read_response(reader)
        if status != 200 or marker not in body:
            raise LoadError(f"unexpected reply: {status} {body[:300]!r}")
        sent += 1
    return sent


async def run_load(
    target: Target,
    *,
    connections: int,
    marker: bytes,
    seconds: float | None = None,
    requests: int | None = None,
) -> LoadResult:
    """Keep `connections` keep-alive connections busy, one request in flight on each, for
    about `seconds` or for exactly `requests` requests in all; every reply must be a 200
    whose body contains `marker`. Connecting and closing are not timed."""
    if (seconds is None) == (requests is None):
        raise ValueError("give exactly one of seconds and requests")
    share, extra = divmod(requests or 0, connections)
    streams = await asyncio.gather(
        *(asyncio.open_connection(target.host, target.port) for _ in range(connections))
    )
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        deadline = wall + (seconds or 0.0)
        counts = await asyncio.gather(
            *(
                _drive(
                    reader,
                    writer,
                    target,
                    marker,
                    None if requests is None else share + (i < extra),
                    deadline,
                )
                for i, (reader, writer) in enumerate(streams)
            )
        )
        elapsed = time.perf_counter() - wall
        return LoadResult(sum(counts), elapsed, time.process_time() - cpu)
    finally:
        for _, writer in streams:
            writer.close()
        await asyncio.gather(
            *(writer.wait_closed() for _, writer in streams), return_exceptions=True
        )
