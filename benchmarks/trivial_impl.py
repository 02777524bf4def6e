"""The harness's floor: the reference runtime's logic on a provider that costs nothing.

It speaks Chat Completions on one kept-alive HTTP/1.1 connection framed by h11 — no SDK,
no HTTP client library, no streaming — so a conformance run against it measures what the
suite itself costs (pytest, Hypothesis, the fake, loopback HTTP, the adapter protocol)
with the runtime's own cost close to zero: httpx2's client alone was ~1.6 ms of each
model call, a third of this run. It passes every law the reference passes on that
dialect, so both runs execute the same tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import h11
import httpx2

from conformance.adapter import AgentSpec
from conformance.wire.ir import Dialect
from reference_impl.conformance_adapter import ReferenceImplementation
from reference_impl.conversation import ToolCall, ToolSpec, Turn
from reference_impl.providers import ModelReply
from reference_impl.providers._chat_messages import chat_messages, chat_tools

TIMEOUT = 30.0


class ProviderError(httpx2.HTTPError):
    """The provider answered with an error status or broke the connection: the run fails.

    An httpx2 error by descent: the reference's adapter tells a provider's failure from a
    bug by the HTTP stack its error comes from (`conformance.frameworks.kit.provider_failure`)."""


class _Connection:
    """One TCP connection to the provider and its h11 state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)

    def reusable(self) -> bool:
        return self.h11.our_state is h11.IDLE and not self.reader.at_eof()

    async def exchange(self, request: h11.Request, body: bytes) -> tuple[int, bytes]:
        for outgoing in (request, h11.Data(data=body), h11.EndOfMessage()):
            self.writer.write(self.h11.send(outgoing) or b"")
        status, chunks = 0, []
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                self.h11.receive_data(await self.reader.read(65536))
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
                    self.h11.start_next_cycle()
                return status, b"".join(chunks)
            elif isinstance(event, h11.ConnectionClosed):
                raise ProviderError("the provider closed the connection before its reply ended")

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


class RawChatProvider:
    """One POST per model call; the reply's JSON read by hand."""

    def __init__(self, base_url: str, api_key: str) -> None:
        url = urlsplit(base_url)
        self.address = (url.hostname or "127.0.0.1", url.port or 80)
        self.target = url.path.rstrip("/") + "/chat/completions"
        self.headers = [
            ("host", url.netloc),
            ("authorization", f"Bearer {api_key}"),
            ("content-type", "application/json"),
        ]
        self.connection: _Connection | None = None
        self.client = self  # ReferenceAgent.close() closes `provider.client`

    async def close(self) -> None:
        if self.connection is not None:
            await self.connection.close()
            self.connection = None

    async def _post(self, body: bytes) -> tuple[int, bytes]:
        if self.connection is None or not self.connection.reusable():
            await self.close()
            self.connection = _Connection(*await asyncio.open_connection(*self.address))
        request = h11.Request(
            method="POST",
            target=self.target,
            headers=[*self.headers, ("content-length", str(len(body)))],
        )
        try:
            async with asyncio.timeout(TIMEOUT):
                return await self.connection.exchange(request, body)
        except BaseException:
            await self.close()  # a half-read reply leaves the connection unusable
            raise

    async def complete(
        self, *, model: str, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        body: dict[str, Any] = {"model": model, "messages": chat_messages(system, turns)}
        if tools:
            body["tools"] = chat_tools(tools)
        status, raw = await self._post(json.dumps(body).encode())
        if status != 200:
            raise ProviderError(f"the provider answered {status}: {raw[:200]!r}")
        message = json.loads(raw)["choices"][0]["message"]
        calls = tuple(
            ToolCall(
                id=call["id"],
                name=call["function"]["name"],
                arguments=json.loads(call["function"]["arguments"] or "{}"),
            )
            for call in message.get("tool_calls") or ()
        )
        return ModelReply(text=message.get("content") or "", tool_calls=calls)


class TrivialImplementation(ReferenceImplementation):
    name = "trivial (reference logic, raw HTTP)"
    dialects = frozenset({Dialect.OPENAI_CHAT})

    def provider_for(self, spec: AgentSpec) -> RawChatProvider:
        return RawChatProvider(spec.base_url, spec.api_key)


implementation = TrivialImplementation()
