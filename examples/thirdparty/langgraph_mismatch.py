"""mismatch.refuses-another-agents-conversation, shown with langgraph's own API alone.

The law: a runtime refuses one agent answering a different agent's conversation when both
named themselves. langgraph stamps an agent's name on every message it writes
(`create_react_agent(name="billing")` -> `AIMessage.name == "billing"`), and the stamp
survives `messages_to_dict` / `messages_from_dict`; but nothing compares it. An agent named
"support" continues billing's stored conversation, and the model is sent billing's turns,
name and all.

Run the fake from the command line, then this script with the base URL it printed:

    python -m conformance.wire serve --script examples/thirdparty/langgraph_mismatch.json &
    python examples/thirdparty/langgraph_mismatch.py http://127.0.0.1:PORT/v1

Needs: pip install langgraph==1.2.24 langchain-openai==1.7.4
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
import warnings

os.environ["LANGSMITH_TRACING"] = "false"  # no trace leaves the machine

from langchain_core.messages import HumanMessage, messages_from_dict, messages_to_dict
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent


def agent(base_url: str, name: str) -> object:
    model = ChatOpenAI(model="gpt-fake", base_url=base_url, api_key="sk-fake", max_retries=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # create_react_agent moved
        return create_react_agent(model, [], prompt=f"You are the {name} desk.", name=name)


def main(base_url: str) -> None:
    billing, support = agent(base_url, "billing"), agent(base_url, "support")
    out = billing.invoke({"messages": [HumanMessage("Refund order 7, please.")]})  # type: ignore[attr-defined]
    stored = json.dumps(messages_to_dict(out["messages"]))
    names = [(m["type"], m["data"]["name"]) for m in json.loads(stored)]
    print(f"billing's conversation, stored as JSON ({len(stored)} bytes): {names}")

    history = messages_from_dict(json.loads(stored))
    try:
        out = support.invoke({"messages": [*history, HumanMessage("My router is down.")]})  # type: ignore[attr-defined]
        print(f"support continued billing's conversation: {out['messages'][-1].text!r}")
    except Exception as error:  # what the law asks for; langgraph raises nothing here
        print(f"support refused: {error!r}")

    print("What the model received (the fake's GET /_turnlaw/log):")
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/_turnlaw/log") as reply:
        for exchange in json.load(reply):
            print(f"  request #{exchange['seq']}:")
            for message in exchange["body"]["messages"]:
                name = f" (name={message['name']})" if "name" in message else ""
                print(f"    {message['role']:<9} {message['content']}{name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
