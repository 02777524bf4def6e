"""The anatomy of a turn, and run ids (seed 003, "Anatomy of a turn" and "Guarantees").

"A turn is one `send()` plus one pass through `stream()`" ending with one `result` that
carries the full final text; every run-scoped event names a run its turn's
`result.runIds` lists.
"""

from __future__ import annotations

import pytest

from ._kit import (
    NOT_APPLICABLE_PREFIX,
    OUTLASTS_RETRIES,
    AssistantEvent,
    BackendFactory,
    Capability,
    Fault,
    Hold,
    Implementation,
    PremiseNotMet,
    Refused,
    RequestIR,
    ResultEvent,
    ScriptedProvider,
    SessionAgentSpec,
    SessionOptions,
    SessionUnderTest,
    StreamPass,
    ToolCallEvent,
    ToolResultEvent,
    answer_of,
    declares,
    final_text_problem,
    last_user_carries,
    open_new,
    open_resumed,
    premise,
    requests_carrying,
    run_id_problems,
    take_turn,
    text,
    text_blocks,
    tool_call,
    words,
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
MULTI_LINE = (
    "Booked: a table for two.\nFriday at eight, by the window.\n\n- no nuts\n- the usual wine"
)
QUIET = "Just confirm it; no need to say anything."
ASKED_AGAIN = "Confirmed."
"""What the model answers if the runtime asks again after the empty reply (some do, to get
text): the turn's final text is then this one."""
FAILING = "Check the other booking too."
ABORTED = "Actually, hold that thought."
AFTER = "Then just the Friday one."


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


@pytest.mark.law("turn.one-result")
async def test_a_result_carries_the_whole_final_text_and_a_failed_turn_still_ends_in_one(
    fake: ScriptedProvider, new_backend: BackendFactory
) -> None:
    """A multi-line answer's result (and its assistant events) carry every line of it, not
    the first; an answer of nothing is a completed turn whose result carries the empty
    text (a runtime may ask the model again after an empty reply: its final text is then
    that later reply, which is judged instead); a turn whose model calls all fail still
    ends its pass with one result, which does not say success."""
    fake.script([text(MULTI_LINE)], when=lambda r: last_user_carries(r, FIRST))
    fake.script(
        [text(""), text(ASKED_AGAIN)],
        when=lambda r: last_user_carries(r, QUIET),
        allow_unused=True,
    )
    fake.script(
        [Fault(status=500)] * OUTLASTS_RETRIES,
        when=lambda r: last_user_carries(r, FAILING),
        allow_unused=True,
    )
    backend = await new_backend()
    session = await open_new(backend, await backend.create_agent(SessionAgentSpec()))
    problems = []

    await session.send(FIRST)
    first = await session.stream(wait=20.0)
    what = "a turn answered with several lines"
    result = judge_one_pass(first, what)
    problems.append(final_text_problem(result.text, MULTI_LINE, what))
    if words(MULTI_LINE) not in words(answer_of(first)):
        problems.append(
            f"the assistant events of {what} say {answer_of(first)!r}, not the whole "
            f"answer {MULTI_LINE!r}"
        )

    await session.send(QUIET)
    quiet = await session.stream(wait=20.0)
    what = "a turn the model answered with nothing"
    result = judge_one_pass(quiet, what)
    asked = len([r for r in fake.wire.requests if last_user_carries(r, QUIET)])
    final = "" if asked == 1 else ASKED_AGAIN
    if not result.success:
        problems.append(
            f"the result of {what} says success=False (stop_reason {result.stop_reason!r}): "
            f"an empty answer is still an answer, and the turn completed"
        )
    problems.append(final_text_problem(result.text, final, what))

    await session.send(FAILING)
    failed = await session.stream(wait=20.0)
    what = "a turn whose model calls all failed"
    if judge_one_pass(failed, what).success:
        problems.append(f"the result of {what} says success")
    found = [p for p in problems if p]
    assert not found, "\n".join(found)


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
        played = await take_turn(playing, f"Message of {what}.")
        found, runs = run_id_problems(played, what, ran_model=True)
        problems += found
        runs_of[what] = runs
    # The same conversation in another session (another connection, maybe another process).
    await session.close()
    again = await open_resumed(backend, conversation_id, by="conversation")
    what = "turn 3, in a resumed session"
    found, runs_of[what] = run_id_problems(
        await take_turn(again, "Message of turn 3."), what, ran_model=True
    )
    problems += found + shared_runs(runs_of)
    assert not problems, "\n".join(problems)


def shared_runs(runs_of: dict[str, set[str]]) -> list[str]:
    """Two turns of one conversation naming one run: a run id that connects both connects
    neither."""
    problems = []
    turn_names = list(runs_of)
    for i, one in enumerate(turn_names):
        for other in turn_names[i + 1 :]:
            shared = runs_of[one] & runs_of[other]
            if shared:
                problems.append(
                    f"{one} and {other} of one conversation name the same runs "
                    f"{sorted(shared)}: a run id that connects both connects neither"
                )
    return problems


async def pass_of_aborted(session: SessionUnderTest, hold: Hold) -> StreamPass:
    """The pass of a turn aborted while its request is held at the fake: it ends in its
    result (the abort law's own test judges how soon)."""
    await hold.arrived(timeout=20.0)
    try:
        await session.abort()
        ended = await session.stream(wait=5.0)
        hold.release()
        if ended.ended != "result":
            later = await session.stream(wait=20.0)
            ended = StreamPass(events=(*ended.events, *later.events), ended=later.ended)
    except Refused as refused:
        raise PremiseNotMet(
            "turn.abort-keeps-session", f"after abort() the session refused ({refused})"
        ) from None
    finally:
        hold.release()
    premise(
        "turn.abort-keeps-session",
        ended.ended == "result",
        f"the aborted turn's pass ended {ended.ended!r}, not with its result",
    )
    return ended


@pytest.mark.law("turn.run-ids")
async def test_a_turn_that_failed_or_was_aborted_after_its_run_started_lists_that_run(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    """The model was asked, so the turn's run had started: the result of a turn that then
    failed (every model call answered 500; after a tool round, when the session has client
    tools, so tool events name the run first) or was aborted (while the model was silent)
    lists it, and the error event of the failure carries it."""
    tools = declares(implementation, Capability.SESSION_CLIENT_TOOLS)
    aborts = declares(implementation, Capability.SESSION_ABORT)

    def fails(request: RequestIR) -> bool:
        after_tools = bool(request.messages) and request.messages[-1].role == "tool"
        return last_user_carries(request, FAILING) and (after_tools or not tools)

    fake.script([Fault(status=500)] * OUTLASTS_RETRIES, when=fails, allow_unused=True)
    if tools:
        fake.script(
            [tool_call("echo", {"text": ECHOED})], when=lambda r: last_user_carries(r, FAILING)
        )
    hold = Hold(label="turn to abort", then=text("Never told."))
    fake.script([hold], when=lambda r: last_user_carries(r, ABORTED), allow_unused=True)
    fake.script([text("Booked."), text("Friday only.")])
    backend = await new_backend()
    options = SessionOptions(tools=("echo",) if tools else ())
    session = await open_new(
        backend, await backend.create_agent(SessionAgentSpec()), options=options
    )
    passes = {"a turn that completed": await take_turn(session, FIRST)}

    await session.send(FAILING)
    failed = await session.stream(wait=20.0)
    premise(
        ONE_RESULT,
        failed.ended == "result",
        f"the pass of a turn whose model calls all failed ended {failed.ended!r}",
    )
    passes["a turn whose model call failed" + (" after a tool round" if tools else "")] = failed
    if aborts:
        await session.send(ABORTED)
        passes["a turn aborted while the model was silent"] = await pass_of_aborted(session, hold)
    passes["the turn after them"] = await take_turn(session, AFTER)

    problems: list[str] = []
    runs_of: dict[str, set[str]] = {}
    for what, played in passes.items():
        found, runs_of[what] = run_id_problems(played, what, ran_model=True)
        problems += found
    premise(
        ONE_RESULT,
        all(requests_carrying(fake.wire.requests, m) for m in (FIRST, FAILING, AFTER)),
        "a turn's message never reached the model",
    )
    problems += shared_runs(runs_of)
    assert not problems, "\n".join(problems)
