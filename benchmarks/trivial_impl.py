"""The harness's floor: the reference runtime's logic on a provider that costs nothing.

It speaks Chat Completions over one shared raw httpx2 client — no SDK, no streaming —
so a conformance run against it measures what the suite itself costs (pytest, the fake,
loopback HTTP, the adapter protocol) with the runtime's own cost close to zero. It passes
every law the reference passes on that dialect, so both runs execute the same tests.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Sequence
from typing import Any

import httpx2

from conformance.adapter import AgentSpec
from conformance.wire.ir import Dialect
from reference_impl.conformance_adapter import ReferenceImplementation
from reference_impl.conversation import ToolCall, ToolSpec, Turn
from reference_impl.providers import ModelReply
from reference_impl.providers.openai_chat import chat_messages, chat_tools

_TLS = ssl.create_default_context()  # shared: building one per client costs ~30 ms


class RawChatProvider:
    """One POST per model call on a plain httpx2 client; the reply's JSON read by hand."""

    def __init__(self, base_url: str, api_key: str) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = {"authorization": f"Bearer {api_key}"}
        self.http = httpx2.AsyncClient(timeout=30, verify=_TLS)
        self.client = self  # ReferenceAgent.close() closes `provider.client`

    async def close(self) -> None:
        await self.http.aclose()

    async def complete(
        self, *, model: str, system: str, turns: Sequence[Turn], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        body: dict[str, Any] = {"model": model, "messages": chat_messages(system, turns)}
        if tools:
            body["tools"] = chat_tools(tools)
        response = await self.http.post(self.url, json=body, headers=self.headers)
        response.raise_for_status()
        message = response.json()["choices"][0]["message"]
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
