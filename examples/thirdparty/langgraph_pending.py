"""pending.refuses-new-message, shown with langgraph's own API alone.

A ReAct agent pauses in `interrupt()` to ask a person; then a new message arrives. The law:
"A pending question that a later message silently discards is a consent gate anyone can
walk around." langgraph 1.2.24 (create_react_agent) refuses nothing of its own accord:

1. a new run (a new thread) with the message goes straight to the model while the
   question is pending;
2. on the paused thread itself, the new message is committed and the pending interrupt
   discarded, and only then does the agent node reject the history
   (INVALID_CHAT_HISTORY): the person's answer can no longer be given.

Run the fake from the command line, then this script with the base URL it printed:

    python -m conformance.wire serve --script examples/thirdparty/langgraph_pending.json \
        --log /tmp/langgraph-pending-wire.json &
    python examples/thirdparty/langgraph_pending.py http://127.0.0.1:PORT/v1

Needs: pip install langgraph==1.2.24 langchain-openai==1.7.4
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
import warnings

os.environ["LANGSMITH_TRACING"] = "false"  # no trace leaves the machine

from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent
from langgraph.types import Command, interrupt


@tool
def ask_person(question: str) -> str:
    """Ask a person and wait for the answer."""
    return str(interrupt({"question": question}))


def show_thread(graph: object, config: dict[str, object], label: str) -> None:
    state = graph.get_state(config)  # type: ignore[attr-defined]
    said = [f"{m.type}:{m.text or m.tool_calls[0]['name']}" for m in state.values["messages"]]
    print(f"  {label}: next={state.next} interrupts={len(state.interrupts)} messages={said}")


def main(base_url: str) -> None:
    model = ChatOpenAI(model="gpt-fake", base_url=base_url, api_key="sk-fake", max_retries=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # create_react_agent moved
        graph = create_react_agent(
            model, [ask_person], checkpointer=InMemorySaver(), name="billing"
        )
    paused = {"configurable": {"thread_id": "refund"}}

    print("1. invoke 'Refund order 7, please.' on thread 'refund'")
    out = graph.invoke({"messages": [HumanMessage("Refund order 7, please.")]}, paused)
    print(f"  __interrupt__: {[i.value for i in out['__interrupt__']]}")
    show_thread(graph, paused, "thread 'refund'")

    print("2. invoke 'Never mind.' as a new run (thread 'later') while the question is pending")
    later = {"configurable": {"thread_id": "later"}}
    out = graph.invoke({"messages": [HumanMessage("Never mind.")]}, later)
    print(f"  answer: {out['messages'][-1].text!r}")
    show_thread(graph, paused, "thread 'refund'")

    print("3. invoke 'Never mind.' on the paused thread 'refund'")
    try:
        graph.invoke({"messages": [HumanMessage("Never mind.")]}, paused)
    except ValueError as error:
        print(f"  ValueError: {str(error).splitlines()[0][:90]}...")
    show_thread(graph, paused, "thread 'refund'")

    print("4. the person answers: invoke Command(resume='approved') on thread 'refund'")
    try:
        graph.invoke(Command(resume="approved"), paused)
    except ValueError as error:
        print(f"  ValueError: {str(error).splitlines()[0][:90]}...")

    print("What the model received (the fake's GET /_turnlaw/log):")
    root = base_url.removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/_turnlaw/log") as reply:
        log = json.load(reply)
    for exchange in log:
        print(f"  request #{exchange['seq']} {exchange['method']} {exchange['path']}")
        for message in exchange["body"]["messages"]:
            shown = message.get("content") or json.dumps(message.get("tool_calls"))
            print(f"    {message['role']:<9} {shown}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
