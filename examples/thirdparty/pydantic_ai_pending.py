"""Honesty check for the matrix's pydantic-ai FAIL on pending.refuses-new-message.

Only pydantic-ai's own API (2.68.0), pointed at a fake provider started from the command
line. A run pauses on a deferred `ask_person` call (a question for a person). pydantic-ai
refuses a new prompt on the paused Conversation itself, but the same Agent takes a plain
new run while the person still owes the answer: the model is sent the new message alone.
The requests come from the fake's own log (GET /_turnlaw/log).

    python -m conformance.wire serve --script examples/thirdparty/pydantic_ai_pending.json
    # prints the base URL, e.g. http://127.0.0.1:40123/v1; in another shell:
    python examples/thirdparty/pydantic_ai_pending.py http://127.0.0.1:40123/v1
"""

from __future__ import annotations

import json
import sys
import urllib.request

from pydantic_ai import Agent, CallDeferred, DeferredToolRequests
from pydantic_ai.exceptions import UserError
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider


def main(base_url: str) -> None:
    model = OpenAIResponsesModel(
        "gpt-fake", provider=OpenAIProvider(base_url=base_url, api_key="x")
    )
    agent = Agent(model, name="refunds", output_type=[str, DeferredToolRequests])

    @agent.tool_plain
    def ask_person(question: str) -> str:
        """Ask a person and wait for the answer."""
        raise CallDeferred(metadata={"question": question}, kind="question")

    paused = agent.run_sync("Refund order 7, please.", infer_name=False)
    assert isinstance(paused.output, DeferredToolRequests)
    print(f"paused, waiting on: {[c.tool_name for c in paused.output.calls]}")

    try:
        agent.run_sync("Never mind.", conversation=paused.conversation, infer_name=False)
    except UserError as error:
        print(f"a new prompt on the paused Conversation: refused ({error.message[:60]}...)")

    fresh = agent.run_sync("Never mind.", infer_name=False)
    print(f"a plain run on the same Agent: NOT refused; it answered {fresh.output!r}")

    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_turnlaw/log") as response:
        log = json.load(response)
    print(f"\nthe fake received {len(log)} requests; the last one:")
    print(json.dumps({"input": log[-1]["body"]["input"]}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(
            "usage: pydantic_ai_pending.py BASE_URL (printed by python -m conformance.wire serve)"
        )
    main(sys.argv[1])
