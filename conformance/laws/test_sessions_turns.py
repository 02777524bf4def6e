"""The anatomy of a turn, and run ids (seed 003, "Anatomy of a turn" and "Guarantees").

"A turn is one `send()` plus one pass through `stream()` … `stream()` yields the turn's
typed events … and **terminates after the turn's `result` message**. The `result` carries
the turn's full final text, `success`, `stopReason`, and `durationMs`." One pass then
holds exactly one result, as its last event, whose text is the whole final answer (every
text block of it); the next pass holds only the next turn's events; a turn that called a
tool shows the call and its result as events, and the model was shown the tool's result.

"`assistant`, `reasoning`, `tool_call`, `tool_result`, `error`, and `retry` messages
include `runId` when they belong to a run. The final `result.runIds` lists all runs started
by the turn." Every run id an event names is in its turn's `run_ids`, a turn that ran the
model started at least one run, and no run id is shared by two turns of one conversation,
whichever session played them. (The seed's "absent when the turn fails before a run
starts" has no runtime-independent way to be provoked here, so it is not judged.)
"""

from __future__ import annotations

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    AssistantEvent,
    BackendFactory,
    Capability,
    Implementation,
    ResultEvent,
    ScriptedProvider,
    SessionAgentSpec,
    SessionOptions,
    StreamPass,
    ToolCallEvent,
    ToolResultEvent,
    declares,
    open_new,
    open_resumed,
    take_turn,
    text,
    text_blocks,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

ONE_RESULT = "turn.one-result"
RUN_IDS = "turn.run-ids"
FIRST = "Book me a table for two on Friday."
BLOCKS = ("Booked: ", "a table for two, ", "Friday at eight.")
SECOND = "Make it three."
SECOND_ANSWER = "Done: three on Friday."
ECHOED = "a quiet table by the window"


def judge_one_pass(stream_pass: StreamPass, what: str) -> ResultEvent:
    """The core of one pass: it ended with its result, the only result in it, last."""
    results = [e for e in stream_pass.events if isinstance(e, ResultEvent)]
    assert stream_pass.ended == "result", (
        f"the pass of {what} ended {stream_pass.ended!r}, not with the turn's result "
        f"({len(stream_pass.events)} events: {[e.type for e in stream_pass.events]})"
    )
    assert len(results) == 1, f"the pass of {what} held {len(results)} results, not one"
    assert stream_pass.events[-1] is results[0], (
        f"the pass of {what} went on after its result: {[e.type for e in stream_pass.events]}"
    )
    return results[0]


def judge_details(result: ResultEvent, what: str) -> list[str]:
    details = []
    if result.stop_reason is None:
        details.append(f"the result of {what} carries no stopReason")
    if result.duration_ms is None or result.duration_ms < 0:
        details.append(f"the result of {what} carries durationMs {result.duration_ms!r}")
    return details


@pytest.mark.law("turn.one-result")
async def test_one_send_and_one_pass_end_with_the_turns_one_result(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    fake.script([text_blocks(*BLOCKS), text(SECOND_ANSWER)])
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))

    await session.send(FIRST)
    first = await session.stream(wait=20.0)
    result = judge_one_pass(first, "the first turn")
    assert result.success, f"a plain turn's result says success={result.success}"
    final = "".join(BLOCKS)
    assert result.text is not None and final in result.text.replace("\n", ""), (
        f"the result carries {result.text!r}, not the turn's full final text {final!r} "
        f"(every text block of the answer)"
    )
    streamed = "".join(e.text for e in first.events if isinstance(e, AssistantEvent))
    assert all(block in streamed for block in BLOCKS), (
        f"the pass's assistant events say {streamed!r}, not the answer's text {final!r}"
    )

    await session.send(SECOND)
    second = await session.stream(wait=20.0)
    second_result = judge_one_pass(second, "the next turn")
    said = [e.text for e in second.events if isinstance(e, AssistantEvent)]
    assert not any(block in "".join(said) for block in BLOCKS), (
        f"the next turn's pass yielded the first turn's text again: {said}"
    )
    assert second_result.text is not None and SECOND_ANSWER in second_result.text, (
        f"the next turn's result carries {second_result.text!r}, not {SECOND_ANSWER!r}"
    )
    details = judge_details(result, "the first turn") + judge_details(
        second_result, "the next turn"
    )
    assert not details, "a detail of the law:\n" + "\n".join(details)


@pytest.mark.law("turn.one-result")
async def test_a_turn_that_calls_a_tool_streams_the_call_and_its_result(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    if not declares(implementation, Capability.SESSION_CLIENT_TOOLS):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a tool turn needs the session_client_tools capability")
    fake.script([tool_call("echo", {"text": ECHOED}), text_blocks(*BLOCKS)])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    session = await open_new(backend, agent_id, options=SessionOptions(tools=("echo",)))

    await session.send(FIRST)
    stream_pass = await session.stream(wait=20.0)
    result = judge_one_pass(stream_pass, "a turn with a tool call")
    calls = [e for e in stream_pass.events if isinstance(e, ToolCallEvent)]
    outputs = [e for e in stream_pass.events if isinstance(e, ToolResultEvent)]
    assert [c.tool_name for c in calls] == ["echo"], (
        f"the pass's tool_call events name {[c.tool_name for c in calls]}, not the one echo "
        f"call the model made"
    )
    assert len(outputs) == 1 and outputs[0].tool_call_id == calls[0].tool_call_id, (
        f"the pass's tool_result events {[(o.tool_call_id, o.content) for o in outputs]} do "
        f"not answer its call {calls[0].tool_call_id!r}"
    )
    assert ECHOED in outputs[0].content, (
        f"the echo call's tool_result says {outputs[0].content!r}, not {ECHOED!r}"
    )
    shown = [m.text for m in fake.wire.requests[-1].messages if m.role == "tool"]
    assert any(ECHOED in output for output in shown), (
        f"the model was shown the tool results {shown}, not the echo call's {ECHOED!r}"
    )
    final = "".join(BLOCKS)
    assert result.text is not None and final in result.text.replace("\n", ""), (
        f"the result of a turn with a tool call carries {result.text!r}, not its final "
        f"text {final!r}"
    )
    details = judge_details(result, "a turn with a tool call")
    assert not details, "a detail of the law:\n" + "\n".join(details)


def run_ids_problems(stream_pass: StreamPass, what: str) -> tuple[list[str], set[str]]:
    """What a pass breaks of the run-id law, and the runs its result lists."""
    result = stream_pass.result
    if result is None:
        return [f"the pass of {what} has no result to list its runs"], set()
    listed = set(result.run_ids or ())
    problems = []
    if result.run_ids is None or not result.run_ids:
        problems.append(
            f"the result of {what}, a turn that ran the model, lists runs {result.run_ids!r}"
        )
    named = {
        run_id
        for e in stream_pass.events
        if not isinstance(e, ResultEvent) and (run_id := getattr(e, "run_id", None))
    }
    missing = sorted(named - listed)
    if missing:
        problems.append(
            f"the events of {what} belong to runs {missing}, which its result.runIds "
            f"{result.run_ids!r} does not list"
        )
    return problems, listed | named


@pytest.mark.law("turn.run-ids")
async def test_every_run_an_event_names_is_listed_by_its_turns_result_and_no_other(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    fake.script([text(f"Answer {n}.") for n in range(1, 4)])
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    session = await open_new(backend, agent_id)
    conversation_id = (await session.ids()).conversation_id
    problems: list[str] = []
    runs_of: dict[str, set[str]] = {}
    turns = [("turn 1", session), ("turn 2", session)]
    for what, playing in turns:
        found, runs = run_ids_problems(await take_turn(playing, f"Message of {what}."), what)
        problems += found
        runs_of[what] = runs
    # The same conversation in another session (another connection, maybe another process).
    await session.close()
    again = await open_resumed(backend, conversation_id, by="conversation")
    found, runs_of["turn 3, in a resumed session"] = run_ids_problems(
        await take_turn(again, "Message of turn 3."), "turn 3, in a resumed session"
    )
    problems += found
    turn_names = list(runs_of)
    for i, one in enumerate(turn_names):
        for other in turn_names[i + 1 :]:
            shared = runs_of[one] & runs_of[other]
            if shared:
                problems.append(
                    f"{one} and {other} of one conversation name the same runs "
                    f"{sorted(shared)}: a run id that connects both connects neither"
                )
    assert not problems, "\n".join(problems)
