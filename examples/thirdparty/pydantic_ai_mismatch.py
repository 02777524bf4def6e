"""Honesty check for the matrix's pydantic-ai FAIL on mismatch.refuses-another-agents-conversation.

Only pydantic-ai's own API (2.68.0), pointed at a fake provider started from the command
line. Agent "billing" has one turn; its Conversation goes through JSON, as a store would
keep it; Agent "support" continues it. pydantic-ai lets it, and the model is shown
billing's conversation under support's instructions. The request comes from the fake's
own log (GET /_turnlaw/log), not from anything pydantic-ai reports.

    python -m conformance.wire serve --script examples/thirdparty/pydantic_ai_mismatch.json
    # prints the base URL, e.g. http://127.0.0.1:40123/v1; in another shell:
    python examples/thirdparty/pydantic_ai_mismatch.py http://127.0.0.1:40123/v1
"""

from __future__ import annotations

import json
import sys
import urllib.request

from pydantic_ai import Agent
from pydantic_ai.conversation import ConversationTypeAdapter
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider


def agent(base_url: str, name: str, instructions: str) -> Agent[None, str]:
    model = OpenAIResponsesModel(
        "gpt-fake", provider=OpenAIProvider(base_url=base_url, api_key="x")
    )
    return Agent(model, name=name, instructions=instructions)


def main(base_url: str) -> None:
    billing = agent(base_url, "billing", "You answer billing questions.")
    support = agent(base_url, "support", "You book tables.")

    first = billing.run_sync("Refund order 7, please.", infer_name=False)
    stored = ConversationTypeAdapter.dump_json(first.conversation)  # what a store would hold
    print(f"billing answered: {first.output!r}; stored conversation: {len(stored)} bytes of JSON")

    conversation = ConversationTypeAdapter.validate_json(stored)
    second = support.run_sync("Make it three.", conversation=conversation, infer_name=False)
    print(f"support was NOT refused; it answered: {second.output!r}")

    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_turnlaw/log") as response:
        log = json.load(response)
    body = log[-1]["body"]
    print(f"\nthe fake received {len(log)} requests; the last one, as sent by support:")
    print(json.dumps({"instructions": body.get("instructions"), "input": body["input"]}, indent=2))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(
            "usage: pydantic_ai_mismatch.py BASE_URL (printed by python -m conformance.wire serve)"
        )
    main(sys.argv[1])
