"""Law pending.refuses-new-message against openai-agents, with nothing but its own API.

A tool with `needs_approval=True` pauses the run with an interruption: a person owes an
answer. Then a new message arrives, through each of the SDK's three ways to send one,
and the fake provider's log shows what the model received. None of them is refused.

    python -m conformance.wire serve \\
        --script examples/thirdparty/openai_agents_pending_refuses_new_message.json
    # in another shell, with the URL it printed on its first line:
    python examples/thirdparty/openai_agents_pending_refuses_new_message.py http://127.0.0.1:PORT/v1

Needs `pip install openai-agents==0.24.0`. The fake exits 1 on Ctrl-C: it saw a request
that broke a wire invariant (door 3).
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from typing import Any

from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

REFUND = "Refund order 7, please."
NEW = "Never mind."


@function_tool(needs_approval=True)
def ask_person(question: str) -> str:
    """Ask a person and wait for the answer."""
    return "approved"


def log(base_url: str) -> list[dict[str, Any]]:
    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_turnlaw/log") as reply:
        exchanges: list[dict[str, Any]] = json.load(reply)
    return exchanges


def shown(item: dict[str, Any]) -> str:
    """One Responses input item, as the model reads it."""
    kind = item.get("type", "message")
    if kind == "function_call":
        return f"function_call {item['name']}({item['arguments']}) [{item['call_id']}]"
    if kind == "function_call_output":
        return f"function_call_output {item['output']!r} [{item['call_id']}]"
    content = item["content"]
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content)
    return f"{item['role']}: {content!r}"


async def main(base_url: str) -> None:
    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=base_url, api_key="sk-example-0000")
    agent = Agent(
        name="billing",
        tools=[ask_person],
        model=OpenAIResponsesModel(model="turnlaw-model", openai_client=client),
    )
    paused = await Runner.run(agent, REFUND)
    print(f"run 1 paused: {[i.tool_name for i in paused.interruptions]} awaiting a person")

    # Door 1: a new run on the same agent.
    fresh = await Runner.run(agent, NEW)
    print(f"door 1, Runner.run(agent, {NEW!r}): accepted, answered {fresh.final_output!r}")

    # Door 2: the new message added to the paused run's own state.
    state = paused.to_state()
    state.add_input(NEW)
    staged = await Runner.run(agent, state)
    print(
        f"door 2, state.add_input({NEW!r}) + Runner.run(agent, state): accepted, staged "
        f"{state.pending_input}, interruptions still {[i.tool_name for i in staged.interruptions]}"
    )

    # Door 3: the documented manual continuation, to_input_list() plus the new message.
    carried = await Runner.run(agent, [*paused.to_input_list(), {"role": "user", "content": NEW}])
    print(f"door 3, to_input_list() + new message: accepted, answered {carried.final_output!r}")
    await client.close()

    print("\nwhat the model received (the fake's /_turnlaw/log):")
    for exchange in log(base_url):
        print(f"request #{exchange['seq']} -> HTTP {exchange['status']}")
        for item in exchange["body"]["input"]:
            print(f"    {shown(item)}")
        for finding in exchange["findings"]:
            print(f"    finding [{finding['kind']}] {finding['message']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} BASE_URL (the URL the fake printed first)")
    asyncio.run(main(sys.argv[1]))
