"""What the session laws share: reading a request as the conversation it shows, and
playing one turn through a session.

A session runtime may add text of its own to a user message (Letta Code prepends
`<system-reminder>` parts to each process's first message), so a request is read against
the messages the test sent: each user message is named by the sent messages it carries,
in the order it carries them, and an assistant message by its text. Two requests then
compare as conversations, whatever the runtime wraps around them. Re-exported by `_kit`,
the one module a law imports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence

from ..adapter import (
    AssistantEvent,
    BackendUnderTest,
    Refused,
    ResultEvent,
    SessionOptions,
    SessionUnderTest,
    StreamPass,
)
from ..verdicts import PremiseNotMet
from ..wire.ir import RequestIR

TURN_WAIT = 20.0
"""Seconds a pass may take to end before the law treats the turn as hung: a turn against
the fake takes well under a second, a runtime process's first one a few."""

ONE_RESULT = "turn.one-result"
"""The law every session law rests on: a send and a pass end in one result."""
DEFAULT_CONVERSATION = "session.agent-has-default-conversation"
NEW_CONVERSATION = "session.new-session-is-new-conversation"
EITHER_ID = "session.resume-either-id"

Said = tuple[str, str]
"""(role, what): `("user", <a sent message>)`, `("assistant", <its text>)`, `("tool", <the
result's text>)`, or `("user", "<unsent: …>")` for a user message carrying none of the
messages the test sent."""


def conversation_shown(request: RequestIR, sent: Iterable[str]) -> list[Said]:
    """The conversation `request` shows, each user message named by the sent messages it
    carries (in order of appearance; a message carrying two, as a runtime that merges
    queued messages sends, gives two entries). Assistant messages with no text (only tool
    calls) are left out: a turn's calls are read from its tool results."""
    vocabulary = sorted(set(sent), key=len, reverse=True)
    shown: list[Said] = []
    for message in request.messages:
        if message.role == "user":
            found = _carried(message.text, vocabulary)
            shown += [("user", m) for m in found] or [("user", f"<unsent: {message.text[:60]}>")]
        elif message.role == "assistant" and message.text:
            shown.append(("assistant", message.text))
        elif message.role == "tool":
            shown.append(("tool", message.text))
    return shown


def _carried(text: str, vocabulary: Sequence[str]) -> list[str]:
    """The sent messages `text` carries, in the order they appear (longest first when one
    contains another, so "Make it three." is not also read as "three")."""
    spans: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for message in vocabulary:
        start = text.find(message)
        while start != -1:
            end = start + len(message)
            if not any(start < b and a < end for a, b in taken):
                spans.append((start, message))
                taken.append((start, end))
            start = text.find(message, end)
    return [message for _, message in sorted(spans)]


def requests_carrying(requests: Sequence[RequestIR], message: str) -> list[RequestIR]:
    """The requests in which some user message carries `message`."""
    return [r for r in requests if any(message in m.text for m in r.messages if m.role == "user")]


def last_carrying(requests: Sequence[RequestIR], message: str) -> RequestIR | None:
    found = requests_carrying(requests, message)
    return found[-1] if found else None


def first_carrying(requests: Sequence[RequestIR], message: str) -> RequestIR | None:
    found = requests_carrying(requests, message)
    return found[0] if found else None


def last_user_carries(request: RequestIR, message: str) -> bool:
    """Whether the request's last user message carries `message`: the request asks the model
    for that message's turn (a runtime asking again within the turn sends it again)."""
    users = [m.text for m in request.messages if m.role == "user"]
    return bool(users) and message in users[-1]


def words(text: str) -> str:
    """A text's words, single-spaced: what two texts are compared by when a runtime may lay
    the same answer out differently (blocks joined by newlines, a trailing newline)."""
    return " ".join(text.split())


def final_text_problem(told: str | None, final: str, what: str) -> str | None:
    """Why a result's text is not the turn's full final text `final`, or None. Every word
    of it, in order (a multi-line answer whole, not its first line); an empty answer is
    the empty text, not absent (the result carries it) and not made-up words. Whether
    text said before a tool call also belongs to it the seed leaves open, so a result may
    carry more than the final reply."""
    if not final.strip():
        if told is None:
            return (
                f"the result of {what} carries no text: the model answered with nothing, and "
                f"the result carries the turn's full final text, the empty one"
            )
        if told.strip():
            return f"the result of {what} carries {told!r}, though the model answered with nothing"
        return None
    if told is None or words(final) not in words(told):
        return f"the result of {what} carries {told!r}, not the turn's full final text {final!r}"
    return None


RUN_EVENTS = frozenset({"assistant", "reasoning", "tool_call", "tool_result", "error", "retry"})
"""The events the seed says "include `runId` when they belong to a run"."""


def run_id_problems(
    stream_pass: StreamPass, what: str, *, ran_model: bool
) -> tuple[list[str], set[str]]:
    """What a pass breaks of `turn.run-ids`, and every run it names. A turn that ran the
    model (`ran_model`: a request for it reached the fake, whether the turn then completed,
    failed or was aborted) started a run, so its result lists one; every run an event
    names is listed; and once the result lists the turn's runs, every event of the kinds
    the seed names belongs to one of them, so it carries its id."""
    result = stream_pass.result
    if result is None:
        return [f"the pass of {what} has no result to list its runs"], set()
    listed = set(result.run_ids or ())
    problems = []
    if ran_model and not listed:
        problems.append(
            f"the result of {what}, a turn that ran the model (so it started a run), lists "
            f"runs {result.run_ids!r}"
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
    unnamed = [
        e.type
        for e in stream_pass.events
        if e.type in RUN_EVENTS and not getattr(e, "run_id", None)
    ]
    if listed and unnamed:
        problems.append(
            f"the {', '.join(sorted(set(unnamed)))} event(s) of {what} carry no runId, though "
            f"they belong to the run(s) {sorted(listed)} its result lists"
        )
    return problems, listed | named


def answer_of(stream_pass: StreamPass) -> str:
    """The assistant text a pass streamed, joined."""
    return "".join(e.text for e in stream_pass.events if isinstance(e, AssistantEvent))


def results_in(passes: Iterable[StreamPass]) -> list[ResultEvent]:
    return [e for p in passes for e in p.events if isinstance(e, ResultEvent)]


async def open_new(
    backend: BackendUnderTest, agent_id: str, *, options: SessionOptions | None = None
) -> SessionUnderTest:
    """`create_session(agent_id)` as a premise: a law that needs a new conversation rests
    on `session.new-session-is-new-conversation`, whose own tests judge a refusal."""
    try:
        return await backend.create_session(agent_id, options=options)
    except Refused as refused:
        raise PremiseNotMet(NEW_CONVERSATION, f"create_session was refused: {refused}") from None


async def open_resumed(
    backend: BackendUnderTest, id: str, *, by: str, options: SessionOptions | None = None
) -> SessionUnderTest:
    """`resume_session(id)` as a premise: by `"agent"` id it rests on the default
    conversation's law, by `"conversation"` id on `session.resume-either-id`; those laws'
    own tests judge a refusal (a runtime whose conversation ids cannot be resumed fails
    there once, and every law resting on it says so, not FAIL)."""
    law = DEFAULT_CONVERSATION if by == "agent" else EITHER_ID
    try:
        return await backend.resume_session(id, options=options)
    except Refused as refused:
        raise PremiseNotMet(
            law, f"resume_session({id!r}), by {by} id, was refused: {refused}"
        ) from None


async def opened_by_the_law(opening: Awaitable[SessionUnderTest], what: str) -> SessionUnderTest:
    """A session the law under test opens itself: a refusal is that law's FAIL."""
    try:
        return await opening
    except Refused as refused:
        raise AssertionError(f"{what} was refused: {refused}") from None


async def take_turn(
    session: SessionUnderTest, message: str, *, wait: float = TURN_WAIT
) -> StreamPass:
    """One turn: send `message`, then one pass that must end with a successful result.

    What the calling law rests on: a turn that does not end in one result is a premise
    of `turn.one-result` (whose own tests judge it), never a FAIL of the law using it."""
    try:
        await session.send(message)
        stream_pass = await session.stream(wait=wait)
    except Refused as refused:
        raise PremiseNotMet(ONE_RESULT, f"sending {message!r} was refused: {refused}") from None
    result = stream_pass.result
    if stream_pass.ended != "result" or result is None:
        raise PremiseNotMet(
            ONE_RESULT,
            f"the turn for {message!r} did not end with a result (the pass ended "
            f"{stream_pass.ended!r} after {len(stream_pass.events)} events)",
        )
    if not result.success:
        raise PremiseNotMet(
            ONE_RESULT,
            f"the turn for {message!r} ended with a failed result "
            f"(stop_reason {result.stop_reason!r}): a plain turn against the fake succeeds",
        )
    return stream_pass


__all__ = [
    "DEFAULT_CONVERSATION",
    "EITHER_ID",
    "NEW_CONVERSATION",
    "ONE_RESULT",
    "RUN_EVENTS",
    "TURN_WAIT",
    "Said",
    "answer_of",
    "conversation_shown",
    "final_text_problem",
    "first_carrying",
    "last_carrying",
    "last_user_carries",
    "open_new",
    "open_resumed",
    "opened_by_the_law",
    "requests_carrying",
    "results_in",
    "run_id_problems",
    "take_turn",
    "words",
]
