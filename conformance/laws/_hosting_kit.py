"""The hosting laws' scene: fresh session ids, the turns a law's set-up needs answered,
and finding the request that carried a turn.

A hosting law judges what one served turn did; the turns before it are its set-up, and a
set-up turn that was not answered is the session-continues law's FAIL (its own tests
say so), never this law's.
"""

from __future__ import annotations

import itertools

from ..hosting import HostReply, describe
from ..verdicts import PremiseNotMet
from ..wire import RequestIR, ScriptedProvider

CONTINUES = "hosting.session-continues"
"""The law every hosting law's set-up rests on: a session's next turn continues it."""
BOOKED = "Booked: a table for two on Friday."
OTHER = "What time do you open?"
REPLIES = {False: "JSON", True: "streamed"}
"""How a turn's reply came, in a case's words: a JSON body, or server-sent events."""

_ids = itertools.count(1)


def fresh(label: str) -> str:
    """A session id no other request in this run used (ids are the caller's data)."""
    return f"{label}-{next(_ids)}"


def answered(reply: HostReply, answer: str, what: str) -> None:
    """A set-up turn was answered with the scripted `answer`: else the session-continues
    premise is not met."""
    if not (reply.answered and reply.output == answer):
        raise PremiseNotMet(CONTINUES, f"{what} was {describe(reply)}, not answered {answer!r}")


def request_for(fake: ScriptedProvider, message: str) -> RequestIR | None:
    """The model request that carried `message` as its newest user turn."""
    return next((r for r in fake.wire.requests if r.user_texts()[-1:] == [message]), None)
