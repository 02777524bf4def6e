"""Honesty check for the matrix's pydantic-ai FAIL on identity.synthesized-not-published.

Only pydantic-ai's own API (2.68.0), pointed at a fake provider started from the command
line. The run names no conversation: no `conversation_id=`, no history, no deps. pydantic-ai
makes one up anyway (a fresh UUID7) and hands it to every tool as `ctx.conversation_id`, so
a tool cannot tell "nobody named a namespace" from "this is the caller's conversation". The
tool returns what its RunContext said; the model is shown that as the tool result. The
requests come from the fake's own log (GET /_turnlaw/log), which writes volatile ids as
`<uuid-1>`, `<uuid-2>`, ... (the script prints the real one first).

    python -m conformance.wire serve --script examples/thirdparty/pydantic_ai_synthesized.json
    # prints the base URL, e.g. http://127.0.0.1:40123/v1; in another shell:
    python examples/thirdparty/pydantic_ai_synthesized.py http://127.0.0.1:40123/v1
"""

from __future__ import annotations

import json
import sys
import urllib.request

from pydantic_ai import Agent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def main(base_url: str) -> None:
    model = OpenAIChatModel("gpt-fake", provider=OpenAIProvider(base_url=base_url, api_key="x"))
    agent = Agent(model, name="concierge")

    @agent.tool
    def whoami(ctx: RunContext[None]) -> dict[str, str | None]:
        """What the run told this tool."""
        return {"conversation_id": ctx.conversation_id}

    result = agent.run_sync("Book me a table for two on Friday.", infer_name=False)
    print(f"the run was given no conversation_id; it answered {result.output!r}")
    print(f"the Conversation it returned is keyed {result.conversation.conversation_id!r}")

    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_turnlaw/log") as response:
        log = json.load(response)
    print(f"\nthe fake received {len(log)} requests; the last one:")
    print(json.dumps({"messages": log[-1]["body"]["messages"]}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(
            "usage: pydantic_ai_synthesized.py BASE_URL "
            "(printed by python -m conformance.wire serve)"
        )
    main(sys.argv[1])
