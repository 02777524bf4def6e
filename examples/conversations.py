"""Conversations, door by door: what the model was actually shown.

Start here. The reference runtime (`reference_impl`) talks to turnlaw's fake provider
over real HTTP on 127.0.0.1 (OpenAI Chat Completions, streamed), and every door of the
conversation law runs in order, each printing the requests the provider received:

  1. run()                       ONE turn: two runs are two conversations
  2. follow_up()                 the next turn on this agent: it sees the first answer
  3. run(continue_from=)         a stored checkpoint, continued on a NEW agent
  4. ConversationMismatchError   agent 'support' refuses agent 'billing''s conversation
  5. RunInFlightError            one instance answers one turn at a time
  6. PendingQuestionError        a paused run is answered with resume() or abandon_pause()
  7. memory                      recall comes back inside the system prompt, not as turns

Each door has its own model name, so its script is its own queue on the one fake, and
`provider.verify()` at the end fails loudly on any leftover step or broken invariant.
Run it with `python examples/conversations.py`.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import textwrap
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeVar

import openai

from conformance.wire import (
    Call,
    Hold,
    LoopbackServer,
    Message,
    ScriptedProvider,
    Text,
    ToolCalls,
    text,
)
from reference_impl import (
    Agent,
    AgentBuilder,
    ConversationMismatchError,
    EpisodicMemory,
    Identity,
    InMemoryStore,
    OpenAIChatProvider,
    PendingQuestionError,
    RunInFlightError,
    ToolContext,
    ask_person,
    tool,
)

SYSTEM = "You take restaurant bookings. Be brief."
FIRST, SECOND = "Book me a table for two on Friday.", "Make it three."
KEY = "sk-demo-never-recorded-0000"
E = TypeVar("E", bound=Exception)


@tool(
    description="Refund an order. A person must approve every refund.",
    parameters={"type": "object", "properties": {"order": {"type": "integer"}}},
)
def issue_refund(ctx: ToolContext, order: int) -> str:
    ask_person(f"Approve a refund for order {order}?")  # the decision becomes the result


def refund_call(order: int) -> ToolCalls:
    """The fake's reply asking for `issue_refund`, with a readable call id."""
    return ToolCalls(calls=[Call(name="issue_refund", arguments={"order": order}, id=f"c{order}")])


@dataclass
class Stage:
    """The fake, the runtime's provider pointed at it, and where to print."""

    provider: ScriptedProvider
    llm: OpenAIChatProvider
    out: TextIO
    shown: int = 0  # requests already printed

    def say(self, line: str = "") -> None:
        print(line, file=self.out)

    def title(self, heading: str) -> None:
        self.say(f"\n== {heading} ==")

    def agent(self, model: str, id: str | None = None) -> AgentBuilder:
        return Agent.create(provider=self.llm, model=model, id=id).system(SYSTEM)

    def error(self, error: Exception) -> None:
        said = f"raised {type(error).__name__}: {error}"
        self.say(textwrap.fill(said, 100, initial_indent="  ", subsequent_indent="      "))

    def nothing_new(self, before: int) -> None:
        received = len(self.provider.wire)
        assert received == before, "a refused call must send nothing"
        self.say(f"  the provider received nothing new (still {received} requests)")

    def show_new(self, *, system: bool = False) -> None:
        """Print every request the provider received since the last call."""
        for number, request in enumerate(self.provider.wire.requests[self.shown :], 1):
            self.say(f"  request #{self.shown + number} · model {request.model}")
            if system:
                first, *rest = request.system.splitlines() or [""]
                self.say(f"    {'system':>9}: {first}")
                for line in rest:
                    self.say(f"{'':15}{line}".rstrip())
            for message in request.messages:
                self.say(f"    {message.role:>9}: {said(message)}")
        self.shown = len(self.provider.wire)

    def notice(self, line: str) -> None:
        self.say(f"  notice: {line}")


def said(message: Message) -> str:
    if message.role == "tool":
        return f"(result of {message.tool_call_id}) {message.text}"
    calls = [f"calls {c.name}({json.dumps(c.arguments)}) as {c.id}" for c in message.tool_calls]
    return "; ".join([message.text, *calls] if message.text else calls)


async def refused(expected: type[E], attempt: Awaitable[object]) -> E:
    """Await a call that must be refused with `expected`, and return the error."""
    try:
        await attempt
    except expected as error:
        return error
    raise AssertionError(f"expected {expected.__name__}, but the call went through")


async def one_shot(stage: Stage) -> None:
    stage.title("1. run(): ONE turn, and each run is a new conversation")
    stage.provider.script([text("Booked: two, Friday."), text("Three of what?")], model="door-1")
    agent = stage.agent("door-1").build()
    await agent.run(FIRST)
    await agent.run(SECOND)
    stage.show_new()
    stage.notice("the second request holds only its own message; the booking was never shown")


async def follow_up(stage: Stage) -> None:
    stage.title("2. follow_up(): the next turn on this same agent")
    stage.provider.script([text("Booked: two, Friday."), text("Three it is.")], model="door-2")
    agent = stage.agent("door-2").build()
    await agent.run(FIRST)
    await agent.follow_up(SECOND)
    stage.show_new()
    stage.notice("the second request replays the first turn, the first answer included")


async def continue_from(stage: Stage) -> None:
    stage.title("3. run(continue_from=): a stored conversation, continued on a new agent")
    stage.provider.script([text("Booked: two, Friday."), text("Three it is.")], model="door-3")
    first = stage.agent("door-3").build()
    await first.run(FIRST)
    with tempfile.TemporaryDirectory() as folder:
        stored = Path(folder) / "conversation.json"
        stored.write_text(first.checkpoint().to_json(), encoding="utf-8")
        stage.say(f"  checkpoint().to_json(): {stored.stat().st_size} bytes written, read back")
        conversation = stored.read_text(encoding="utf-8")
    fresh = stage.agent("door-3").build()  # another instance: could be another process
    await fresh.run(SECOND, continue_from=conversation)
    stage.show_new()
    stage.notice("the new agent showed the whole stored turn: the checkpoint is all it needed")


async def mismatch(stage: Stage) -> None:
    stage.title("4. ConversationMismatchError: one agent does not answer another's")
    stage.provider.script([text("Your invoice is on its way.")], model="door-4")
    billing = stage.agent("door-4", id="billing").build()
    support = stage.agent("door-4", id="support").build()
    await billing.run("Send me my last invoice.")
    stage.show_new()
    stage.say("  support.run('Cancel my plan.', continue_from=billing.checkpoint())")
    attempt = support.run("Cancel my plan.", continue_from=billing.checkpoint())
    stage.error(await refused(ConversationMismatchError, attempt))
    stage.nothing_new(before=stage.shown)
    stage.notice("both agents named themselves, so the ids decide; an unnamed agent never refuses")


async def in_flight(stage: Stage) -> None:
    stage.title("5. RunInFlightError: a second run while the first is in flight")
    hold = Hold(then=text("Booked: two, Friday."))
    stage.provider.script([hold], model="door-5")
    agent = stage.agent("door-5").build()
    first = asyncio.create_task(agent.run(FIRST))
    await hold.arrived()
    stage.say("  the first run's request is parked at the fake (a Hold step)")
    before = len(stage.provider.wire)
    stage.error(await refused(RunInFlightError, agent.run(SECOND)))
    stage.nothing_new(before)
    hold.release()
    stage.say(f"  released; the first run answered {(await first).answer!r}")
    stage.show_new()
    stage.notice("the refused run sent nothing, so the first run's conversation is still its own")


async def pause_and_resume(stage: Stage) -> None:
    stage.title("6. PendingQuestionError: a paused run is answered, or dropped on purpose")
    replies: list[Text | ToolCalls] = [
        refund_call(7),
        text("Order 7 is refunded."),
        refund_call(9),
        text("From noon."),
    ]
    stage.provider.script(replies, model="door-6")
    agent = stage.agent("door-6").tool(issue_refund).build()
    paused = await agent.run("Refund order 7, please.")
    stage.show_new()
    assert paused.pending is not None
    stage.say(f"  paused: {paused.pending.tool_name} asks {paused.pending.question!r}")
    before = len(stage.provider.wire)
    stage.error(await refused(PendingQuestionError, agent.run("When do you open?")))
    stage.nothing_new(before)
    done = await agent.resume(paused.checkpoint, "approved")
    stage.say(f"  resume(checkpoint, 'approved') -> {done.answer!r}")
    stage.show_new()
    await agent.follow_up("Refund order 9 too.")
    stage.show_new()
    stage.say(f"  paused again; abandon_pause() -> {agent.abandon_pause()}")
    await agent.follow_up("Never mind. When do you open?")
    stage.show_new()
    stage.notice(
        "'approved' reached the model as c7's result; the dropped c9 was answered 'abandoned'"
    )


async def memory_recall(stage: Stage) -> None:
    stage.title("7. memory: recall in the system prompt, not replay as turns")
    stage.provider.script([text("Booked: two, Friday."), text("Three, Friday.")], model="door-7")
    agent = stage.agent("door-7").memory(EpisodicMemory(InMemoryStore())).build()
    alice = Identity(conversation_id="alice")  # a namespace for memory, not a session
    await agent.run(FIRST, identity=alice)
    await agent.run(SECOND, identity=alice)  # run(): a NEW conversation
    stage.show_new(system=True)
    stage.notice("the second request has one message turn; the first came back as <memory> lines")


DOORS = (one_shot, follow_up, continue_from, mismatch, in_flight, pause_and_resume, memory_recall)
EXPECTED_REQUESTS = 14
"""2 + 2 + 2 + 1 + 1 + 4 + 2: one per scripted step; refused calls send nothing."""


async def main(out: TextIO | None = None) -> ScriptedProvider:
    """Run every door against the loopback fake, print the wire, verify the fake."""
    provider = ScriptedProvider()
    stream = out or sys.stdout
    with LoopbackServer(provider):
        url = provider.base_url or ""
        async with openai.AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0) as client:
            stage = Stage(provider, OpenAIChatProvider(client=client), stream)
            stage.say(f"fake provider at {url} · OpenAI Chat Completions, streamed")
            for door in DOORS:
                await door(stage)
    provider.verify()
    print(f"\nprovider verified: {len(provider.wire)} requests, every step used", file=stream)
    return provider


if __name__ == "__main__":
    asyncio.run(main())
