"""in-flight.refused-before-send and in-flight.first-run-intact, shown with langgraph's own
API alone.

The law: one conversation answers one turn at a time, and a second turn started while one
is in flight is refused before anything is sent. langgraph 1.2.24 has the concept (a
checkpointed thread, named by `thread_id`) but no guard in the library (the "reject"
multitask strategy belongs to the LangGraph server):

1. a turn on thread 'booking' completes;
2. a second turn on 'booking' is in flight (the fake answers it late);
3. a third turn on 'booking' starts meanwhile: it is sent at once, and the model is shown
   the thread as last written, here with the in-flight turn's message but no answer (two
   user turns in a row);
4. both finish, and the thread keeps only the run that finished last: the other turn,
   answered and returned to its caller, is gone from the conversation.

Run the fake from the command line, then this script with the base URL it printed:

    python -m conformance.wire serve --script examples/thirdparty/langgraph_in_flight.json &
    python examples/thirdparty/langgraph_in_flight.py http://127.0.0.1:PORT/v1

Needs: pip install langgraph==1.2.24 langchain-openai==1.7.4
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.request
import warnings

os.environ["LANGSMITH_TRACING"] = "false"  # no trace leaves the machine

from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent


async def main(base_url: str) -> None:
    model = ChatOpenAI(model="gpt-fake", base_url=base_url, api_key="sk-fake", max_retries=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # create_react_agent moved
        graph = create_react_agent(model, [], checkpointer=InMemorySaver(), name="booker")
    booking = {"configurable": {"thread_id": "booking"}}

    def turn(text: str) -> object:
        return graph.ainvoke({"messages": [HumanMessage(text)]}, booking)

    print("1. 'Book a table for Friday.' on thread 'booking'")
    await turn("Book a table for Friday.")
    print("2. 'For two.' on 'booking' (the fake answers it after 1.5 s)")
    second = asyncio.ensure_future(turn("For two."))
    await asyncio.sleep(0.5)
    print("3. 'For three.' on 'booking' while 'For two.' is in flight")
    third = await turn("For three.")
    print(f"  answered: {third['messages'][-1].text!r}")
    done = await second
    print(f"  'For two.' answered: {done['messages'][-1].text!r}")
    state = await graph.aget_state(booking)
    said = [f"{m.type}:{m.text}" for m in state.values["messages"]]
    print(f"4. thread 'booking' now holds: {said}")

    print("What the model received (the fake's GET /_turnlaw/log):")
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/_turnlaw/log") as reply:
        for exchange in json.load(reply):
            shown = [f"{m['role']}:{m['content']}" for m in exchange["body"]["messages"]]
            print(f"  request #{exchange['seq']}: {shown}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1]))
