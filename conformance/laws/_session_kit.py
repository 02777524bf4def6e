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
from ..runner.outcomes import PremiseNotMet
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
    "TURN_WAIT",
    "Said",
    "answer_of",
    "conversation_shown",
    "first_carrying",
    "last_carrying",
    "open_new",
    "open_resumed",
    "opened_by_the_law",
    "requests_carrying",
    "results_in",
    "take_turn",
]
