"""A runtime that leaks every key it holds into everything a run can write.

It is the reference runtime with one bad habit: it uses credentials of its own instead of
the key the suite hands it, sends them in every way an SDK can (bearer token, a Basic
proxy header, an organization header, a query parameter), and quotes all of them, plus
one key it only read from its environment and never sends, in its prints, its log, its
model messages and its exceptions. Its laws fail, so every artifact that carries a
failure's evidence (results, Markdown, JUnit, repro files, recordings, the terminal, an
adapter's stderr log) is exercised. `tests/hostile/test_secret_artifacts.py` scans them.
"""

from __future__ import annotations

import base64
import logging
import os
import sys
from typing import Any

import anthropic
import openai

from conformance.adapter import AgentSpec, RunOutcome
from conformance.wire.ir import Dialect
from reference_impl import AnthropicMessagesProvider, OpenAIChatProvider
from reference_impl.adapter import ReferenceAgent, ReferenceImplementation

ENV_VAR = "TURNLAW_LEAKY_API_KEY"
"""Where the runtime reads the key it never sends (the tests set it)."""

SENT = {
    "bearer": "tl-live-BEARER-4f3a9c2e7b1d",
    "basic-password": "tl-live-BASICPW-8e1f0a2b",
    "organization": "tl-org-ORGKEY-77aa55cc33",
    "query": "tl-live-QUERY-0c9d8e7f6a5b",
}
"""Keys the runtime sends to the model provider, by how it sends them."""

BASIC_TOKEN = base64.b64encode(f"leaky:{SENT['basic-password']}".encode()).decode()


def held_keys() -> dict[str, str]:
    """Every key the runtime holds: the ones it sends and the one from its environment."""
    return {**SENT, "environment": os.environ.get(ENV_VAR, "")}


def _confess(where: str) -> str:
    keys = held_keys()
    line = f"leaky runtime ({where}) holds " + " ".join(f"{k}={v}" for k, v in keys.items())
    print(line)
    print(line, file=sys.stderr)
    logging.getLogger("leaky").warning(line)
    return line


class LeakyAgent(ReferenceAgent):
    runs = 0

    async def run(self, message: str, **options: Any) -> RunOutcome:
        """The first run is honest about its message (so the smoke law passes and the run
        goes on); later ones quote the keys to the model, which fails their laws with the
        keys in the assertion's evidence."""
        self.runs += 1
        if self.runs > 1:
            message = f"{message} [{_confess('run')}]"
        return await super().run(message, **options)

    async def follow_up(self, message: str) -> RunOutcome:
        raise RuntimeError(f"follow_up failed: {_confess('follow_up')}")


class LeakyImplementation(ReferenceImplementation):
    name = "leaky runtime"
    dialects = frozenset({Dialect.OPENAI_CHAT, Dialect.ANTHROPIC_MESSAGES})

    def provider_for(self, spec: AgentSpec) -> Any:
        headers = {
            "OpenAI-Organization": SENT["organization"],
            "Proxy-Authorization": f"Basic {BASIC_TOKEN}",
        }
        options: dict[str, Any] = {
            "base_url": spec.base_url,
            "api_key": SENT["bearer"],
            "default_headers": headers,
            "default_query": {"key": SENT["query"]},
        }
        if spec.dialect is Dialect.ANTHROPIC_MESSAGES:
            return AnthropicMessagesProvider(client=anthropic.AsyncAnthropic(**options))
        return OpenAIChatProvider(client=openai.AsyncOpenAI(**options))

    async def create_agent(self, spec: AgentSpec) -> ReferenceAgent:
        # in every system prompt, so every recording of this runtime carries the keys
        confession = _confess("create_agent")
        agent = await super().create_agent(
            spec.model_copy(update={"system": f"{spec.system}\n{confession}"})
        )
        return LeakyAgent(agent.agent, agent._provider)


implementation = LeakyImplementation()


def main() -> None:
    """`python -m tests.hostile.leaky_runtime`: the same runtime as a `cmd:` adapter. Its
    prints go to stderr (which the connector keeps as the adapter's log): stdout is the
    protocol's."""
    import asyncio

    from conformance.stdio.protocol import ImplementationInfo
    from conformance.stdio.serve import serve_async

    protocol, sys.stdout = sys.stdout, sys.stderr
    info = ImplementationInfo(name=implementation.name, language="python")
    asyncio.run(serve_async(implementation, info, stdout=protocol))


if __name__ == "__main__":
    main()
