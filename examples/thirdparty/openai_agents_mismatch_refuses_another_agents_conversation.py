"""Law mismatch.refuses-another-agents-conversation against openai-agents, SDK API only.

Agent "billing" answers one turn; its conversation is stored the SDK's documented way,
`result.to_input_list()`, as JSON. Agent "support" then continues it. Both agents named
themselves, so the law says "support" must refuse; the fake's log shows the model was
sent billing's history instead. (A paused `RunState` is another matter: `from_json` looks
its agent up by name in the continuing agent's handoff graph and refuses one it cannot
find, an unnamed agent included; the input list carries no name at all.)

    python -m conformance.wire serve \\
        --script examples/thirdparty/openai_agents_mismatch_refuses_another_agents_conversation.json
    # in another shell, with the URL it printed on its first line:
    python examples/thirdparty/openai_agents_mismatch_refuses_another_agents_conversation.py URL

Needs `pip install openai-agents==0.24.0`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from typing import Any

from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI


def log(base_url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/_turnlaw/log") as reply:
        exchanges: list[dict[str, Any]] = json.load(reply)
    return exchanges


async def main(base_url: str) -> None:
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=base_url, api_key="sk-example-0000")
    model = OpenAIResponsesModel(model="turnlaw-model", openai_client=client)
    billing = Agent(name="billing", model=model)
    support = Agent(name="support", model=model)

    first = await Runner.run(billing, "Book me a table for two on Friday.")
    stored = json.dumps(first.to_input_list())
    print(f"billing answered {first.final_output!r}; stored conversation: {stored}")

    items = json.loads(stored)
    second = await Runner.run(support, [*items, {"role": "user", "content": "Make it three."}])
    print(f"support continued billing's conversation, answered {second.final_output!r}")
    await client.close()

    print("\nwhat the model received (the fake's /_turnlaw/log):")
    for exchange in log(base_url):
        print(f"request #{exchange['seq']} -> HTTP {exchange['status']}")
        for message in exchange["ir"]["messages"]:
            print(f"    {message['role']}: {message['text']!r}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} BASE_URL (the URL the fake printed first)")
    asyncio.run(main(sys.argv[1]))
