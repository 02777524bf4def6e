"""The provider demo: the official SDKs talk to one scripted fake over real HTTP.

It plays a short booking conversation — a tool call, its result, a follow-up turn —
through OpenAI Chat Completions (streamed), OpenAI Responses and Anthropic Messages
(the openai and anthropic SDKs),
then prints what the model was actually shown on each request: the only evidence a
conversation law can be judged on. Run it with `nox -s demo`.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import anthropic
import openai

from conformance.wire import LoopbackServer, RequestIR, ScriptedProvider, text, tool_call

SYSTEM = "You take restaurant bookings. Be brief."
FIRST, SECOND = "Book me a table for two on Friday.", "Make it three."
ARGS = {"people": 2, "day": "Friday"}
KEY = "sk-demo-never-recorded-0000"


def book(people: int, day: str) -> str:
    return f"booked: {people} people, {day}"


async def chat_completions(url: str) -> None:
    client = openai.AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0)
    tools: Any = [
        {"type": "function", "function": {"name": "book", "parameters": {"type": "object"}}}
    ]
    messages: list[Any] = [{"role": "system", "content": SYSTEM}]
    for user_text in (FIRST, SECOND):
        messages.append({"role": "user", "content": user_text})
        while True:  # the tool loop: model -> tools -> model ... until an answer
            async with client.chat.completions.stream(
                model="demo-chat", messages=messages, tools=tools
            ) as stream:
                reply = (await stream.get_final_completion()).choices[0].message
            messages.append(reply.model_dump(exclude_none=True, exclude={"parsed"}))
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                result = book(**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


async def responses(url: str) -> None:
    client = openai.AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0)
    first = await client.responses.create(model="demo-responses", instructions=SYSTEM, input=FIRST)
    history: list[Any] = [{"role": "user", "content": FIRST}]
    history += [item.model_dump(exclude_none=True) for item in first.output]
    history.append({"role": "user", "content": SECOND})
    await client.responses.create(model="demo-responses", instructions=SYSTEM, input=history)


async def messages_api(url: str) -> None:
    client = anthropic.AsyncAnthropic(base_url=url, api_key=KEY, max_retries=0)
    turns: list[Any] = [{"role": "user", "content": FIRST}]
    first = await client.messages.create(
        model="demo-claude", max_tokens=200, system=SYSTEM, messages=turns
    )
    turns += [
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {"role": "user", "content": SECOND},
    ]
    await client.messages.create(model="demo-claude", max_tokens=200, system=SYSTEM, messages=turns)


def show(request: RequestIR) -> None:
    print(f"  {request.dialect.value} · model {request.model} · stream={request.stream}")
    print(f"    {'system':>9}: {request.system}")
    for message in request.messages:
        said = message.text or ", ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
        print(f"    {message.role:>9}: {said}")


async def main(out: Path) -> ScriptedProvider:
    """Play the three conversations, print them, write the normalized log to `out`."""
    provider = ScriptedProvider()
    provider.script(
        [tool_call("book", ARGS), text("Booked for two on Friday."), text("Now three.")],
        model="demo-chat",
    )
    provider.script([text("Booked."), text("Three it is.")], model="demo-responses")
    provider.script([text("Booked."), text("Three it is.")], model="demo-claude")
    with LoopbackServer(provider):
        url = provider.base_url or ""
        print(f"fake provider listening at {url}\n")
        await chat_completions(url)
        await responses(url)
        await messages_api(url)

    for index, request in enumerate(provider.wire.requests, 1):
        print(f"request #{index}")
        show(request)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(provider.wire.export(), encoding="utf-8")
    print(f"\nnormalized wire log written to {out} (no key, port or id in it)")
    provider.verify()
    print("provider verified: every step used, no invariant broken")
    return provider


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1] if len(sys.argv) > 1 else "recordings/wire-demo.json")))
