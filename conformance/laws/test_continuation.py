"""Continuing a conversation: follow_up, run(continue_from=...), and what a checkpoint holds.

Every law here is judged on what the model was shown. Checkpoints are read only as extra
evidence (they must be plain JSON and hold the final answer); the proof is always a
continued request on the wire.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ._kit import (
    BOOK,
    SYSTEM,
    THREE,
    AgentFactory,
    Capability,
    Exchange,
    IdentitySpec,
    Implementation,
    MintedValues,
    RefusalKind,
    Refused,
    RequestIR,
    ScriptedProvider,
    Text,
    ToolCalls,
    conversation_shown,
    declares,
    holds_outputs,
    long_turn,
    numbered_calls,
    premise,
    roundtrip,
    strings_in,
    text,
    tool_call,
    tool_results,
    whoami_report,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

BOOKED = "Booked: a table for two on Friday at 8pm."
UPDATED = "Done: now a table for three."
WHO = IdentitySpec(conversation_id="conv-77", tenant="acme", principal="ana")


def last_user_message(message: str) -> Callable[[RequestIR], bool]:
    """Matches a request whose last user turn is `message`: the turn it asks about."""
    return lambda request: any(message in said for said in request.user_texts()[-1:])


def shown_turns(exchanges: Sequence[Exchange]) -> list[list[list[str]]]:
    return [[list(turn) for turn in e.ir.turns()] for e in exchanges if e.ir]


def live_objects(data: Any, path: str = "checkpoint") -> list[str]:
    """Where a value is not plain JSON data (dict with str keys, list, str, int, float,
    bool, None) — a tuple, a model, an enum member, a datetime, a handle."""
    if data is None or type(data) in (str, int, float, bool):
        return []
    if type(data) is list:
        return [p for i, inner in enumerate(data) for p in live_objects(inner, f"{path}[{i}]")]
    if type(data) is dict:
        bad = [f"{path} has a non-string key {k!r}" for k in data if type(k) is not str]
        return bad + [p for k, v in data.items() for p in live_objects(v, f"{path}.{k}")]
    return [f"{path} is a {type(data).__module__}.{type(data).__qualname__}"]


@pytest.mark.law("follow-up.shows-last-answer")
async def test_follow_up_shows_the_last_completed_run_and_its_answer(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text("Which order?"), text(BOOKED), text(UPDATED)])
    agent = await new_agent(system=SYSTEM)
    await agent.run("Where is my order?")
    await agent.run(BOOK)  # a new conversation: the last completed run is this one
    # The last completed run as the model saw it: [BOOK] alone, unless run() carried the
    # first one along (run.no-history's to judge, not this law's).
    last_run = fake.wire.last.turns()
    outcome = await agent.follow_up(THREE)
    assert len(fake.wire.requests) == 3, "a follow-up is one more model request"
    assert fake.wire.last.turns() == [*last_run, ("assistant", BOOKED), ("user", THREE)], (
        "follow_up did not show the model this agent's last completed run, ending with its "
        "answer, followed by the new message"
    )
    assert outcome.answer == UPDATED


@pytest.mark.law("follow-up.is-continue-from-checkpoint")
async def test_follow_up_sends_what_continue_from_its_checkpoint_sends(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    # One conversation with tool calls on both turns, played three times on fresh agents:
    # through run(continue_from=checkpoint()), through follow_up, and through
    # run(continue_from=checkpoint()) again. The two plays of the same door are the
    # control pair: what differs between them the runtime mints per agent or per run (an
    # id, a clock), and is masked when follow_up is compared with the first. follow_up
    # plays in the middle, so a clock the controls agree on holds for it too. If the
    # runtime has identity, the first turn names one, so a follow-up that restores less
    # than the checkpoint (history, tool turns, identity) shows up in whoami's result.
    identity = WHO if declares(implementation, Capability.IDENTITY) else None
    half: list[Text | ToolCalls] = [
        tool_call("whoami"),
        text(BOOKED),
        tool_call("whoami"),
        text(UPDATED),
    ]
    fake.script([*half, *half, *half])

    async def by_checkpoint() -> str | None:
        agent = await new_agent(system=SYSTEM, tools=("whoami",))
        await agent.run(BOOK, identity=identity)
        return (await agent.run(THREE, continue_from=await agent.checkpoint())).answer

    continued = await by_checkpoint()
    by_follow_up = await new_agent(system=SYSTEM, tools=("whoami",))
    await by_follow_up.run(BOOK, identity=identity)
    followed = await by_follow_up.follow_up(THREE)
    again = await by_checkpoint()

    exchanges = fake.wire.exchanges
    assert len(exchanges) == 12, f"expected 4 model requests per play, got {len(exchanges)}"
    control, door, repeat = exchanges[:4], exchanges[4:8], exchanges[8:]
    users = door[2].ir.user_texts() if door[2].ir is not None else []
    premise(  # continuing at all is the follow-up law's; this one compares two doors
        "follow-up.shows-last-answer",
        any(BOOK in said for said in users) and bool(users) and THREE in users[-1],
        "follow_up did not continue the conversation at all",
    )
    turns = MintedValues.learn(shown_turns(control), shown_turns(repeat))
    differs = turns.difference(shown_turns(door), shown_turns(control))
    assert differs is None, (
        "follow_up showed the model other turns than run(continue_from=checkpoint()) did: "
        f"it is not the same restoration path (first difference {differs})"
    )
    minted = MintedValues.learn(numbered_calls(control), numbered_calls(repeat))
    differs = minted.difference(numbered_calls(door), numbered_calls(control))
    assert differs is None, (
        "follow_up sent other requests than run(continue_from=checkpoint()) (values the "
        f"runtime mints per agent aside, {minted.describe()}): the convenience drifted "
        f"from the mechanism (first difference at request {differs})"
    )
    assert followed.answer == continued == again == UPDATED


@pytest.mark.law("follow-up.refuses-before-first-run")
async def test_follow_up_before_any_run_is_refused_and_sends_nothing(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text(BOOKED)])
    agent = await new_agent(system=SYSTEM)
    with pytest.raises(Refused) as raised:
        await agent.follow_up(THREE)
    assert raised.value.kind is RefusalKind.NO_CONVERSATION, (
        f"a follow-up with nothing to follow up on was refused as {raised.value.kind}, "
        "not as 'no conversation'"
    )
    assert len(fake.wire) == 0, "a refused follow-up still sent something to the provider"
    await agent.run(BOOK)
    assert fake.wire.last.turns() == [("user", BOOK)], (
        "the refused follow-up left its message behind: the first run carried it"
    )


@pytest.mark.law("continue-from.any-conversation")
async def test_a_stored_conversation_continues_on_another_agent(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text(BOOKED), text("It is noon."), text(UPDATED)])
    recorder = await new_agent(system=SYSTEM)
    await recorder.run(BOOK)
    stored = roundtrip(await recorder.checkpoint())
    other = await new_agent(system=SYSTEM)
    await other.run("What time is it?")  # it has a conversation of its own
    outcome = await other.run(THREE, continue_from=stored)
    assert fake.wire.last.turns() == [("user", BOOK), ("assistant", BOOKED), ("user", THREE)], (
        "run(continue_from=...) on another agent did not continue the conversation it was "
        "handed (after a JSON round trip): the model was shown something else"
    )
    assert outcome.answer == UPDATED


@pytest.mark.law("checkpoint.plain-json")
async def test_the_checkpoint_is_plain_json_and_its_copy_continues(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([tool_call("echo", {"text": "table for 2"}), text(BOOKED), text(UPDATED)])
    agent = await new_agent(system=SYSTEM, tools=("echo",))
    outcome = await agent.run(BOOK)
    checkpoint = await agent.checkpoint()
    assert live_objects(checkpoint) == [], "checkpoint() returned something that is not plain JSON"
    assert json.loads(json.dumps(checkpoint, allow_nan=False)) == checkpoint, (
        "the checkpoint changed on a JSON round trip: it is not plain JSON data"
    )
    assert live_objects(outcome.checkpoint) == [], "the run's checkpoint is not plain JSON"
    stored = json.loads(json.dumps(checkpoint))
    other = await new_agent(system=SYSTEM, tools=("echo",))
    await other.run(THREE, continue_from=stored)
    shown = fake.wire.last
    assert shown.turns()[-2:] == [("assistant", BOOKED), ("user", THREE)], (
        "the JSON copy of the checkpoint did not continue the conversation"
    )
    assert holds_outputs(tool_results(shown), ["table for 2"]), (
        "the JSON copy lost the tool turns of the conversation"
    )


@pytest.mark.law("checkpoint.final-answer")
async def test_the_checkpoint_holds_the_final_answer(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    # The answer comes after a tool round, so a checkpoint taken from state before the
    # final model reply was written back would not have it.
    fake.script([tool_call("echo", {"text": "Friday"}), text(BOOKED), text(UPDATED)])
    agent = await new_agent(system=SYSTEM, tools=("echo",))
    outcome = await agent.run(BOOK)
    assert outcome.answer == BOOKED
    checkpoint = await agent.checkpoint()
    assert any(BOOKED in s for s in strings_in(checkpoint)), (
        "the checkpoint does not contain the run's final answer"
    )
    other = await new_agent(system=SYSTEM, tools=("echo",))
    await other.run(THREE, continue_from=roundtrip(checkpoint))
    assert fake.wire.last.turns()[-2:] == [("assistant", BOOKED), ("user", THREE)], (
        "the continued conversation did not show the model the final answer right before "
        "the new message: the checkpoint dropped it"
    )


@pytest.mark.law("checkpoint.no-trim")
async def test_a_window_bounds_what_is_shown_not_what_is_stored(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """Five turns on a windowed agent (where it has a window), then its checkpoint continued
    on an agent without one: the continuation shows every turn. What the window showed
    along the way is the window law's to judge; this law holds whatever it showed."""
    windowed = declares(implementation, Capability.WINDOW)
    messages = [long_turn(f"Turn {n}: {BOOK}") for n in range(1, 7)]
    answers = [f"Answer {n}." for n in range(1, 7)]
    # One script per turn, matched by the turn's own message: whatever a misbehaving window
    # showed, every turn is answered as itself, and the law judges the continuation.
    for message, answer in zip(messages, answers, strict=True):
        fake.script([text(answer)], name=message[:7], when=last_user_message(message))
    agent = await new_agent(system=SYSTEM, window=2 if windowed else None)
    await agent.run(messages[0])
    for message in messages[1:5]:
        await agent.run(message, continue_from=await agent.checkpoint())
    stored = roundtrip(await agent.checkpoint())
    unbounded = await new_agent(system=SYSTEM)
    await unbounded.run(messages[5], continue_from=stored)
    everything = [t for m, a in zip(messages[:5], answers[:5], strict=True) for t in (m, a)]
    shown = [said for _, said in conversation_shown(fake.wire.last, messages)]
    if shown == [*everything, messages[5]]:
        return
    missing = [n + 1 for n, said in enumerate(messages[:5]) if said not in shown]
    kept = strings_in(stored)
    lost = [n + 1 for n, said in enumerate(messages[:5]) if not any(said in s for s in kept)]
    where = (
        f"the stored checkpoint lost turn(s) {lost}: history was trimmed on the way to storage"
        if lost
        else "the checkpoint holds every turn, but continuing it showed fewer: the replay "
        "was capped, though only a window, compaction or memory may bound what is shown"
    )
    raise AssertionError(
        f"after five turns{' with window=2' if windowed else ''}, continuing the checkpoint "
        f"on an agent without a window did not show all five turns (turn(s) {missing} "
        f"missing, or shown out of order): {where}"
    )


@pytest.mark.law("checkpoint.carries-identity")
async def test_a_continued_conversation_runs_under_its_identity(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([tool_call("whoami"), text(BOOKED), tool_call("whoami"), text(UPDATED)])
    recorder = await new_agent(system=SYSTEM, tools=("whoami",))
    await recorder.run(BOOK, identity=WHO)
    named = WHO.model_dump(exclude_none=True)
    premise(
        "identity.reaches-tools",
        (whoami_report(tool_results(fake.wire.last)[-1]) or {}).get("identity") == named,
        "the identity passed to run() did not reach the tool",
    )
    stored = roundtrip(await recorder.checkpoint())
    other = await new_agent(system=SYSTEM, tools=("whoami",))
    await other.run(THREE, continue_from=stored)  # no identity passed here
    shown = fake.wire.last
    calls = [c.id for m in shown.messages for c in m.tool_calls]
    last_result = shown.messages[-1]
    assert last_result.role == "tool" and last_result.tool_call_id == calls[-1]
    assert (whoami_report(last_result.text) or {}).get("identity") == named, (
        "a continued turn did not run under the identity its conversation carries: "
        f"whoami said {last_result.text}"
    )
