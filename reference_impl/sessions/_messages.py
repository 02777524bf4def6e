"""A conversation's messages as the runtime lists them (`listMessages()`).

The stored checkpoint's history (what completed turns hold: user messages, assistant
text, tool calls and results) and every message that reached the runtime and that no
completed turn holds: a receipt still `received` (queued, playing, or its runtime died),
`failed` or `aborted`. So a message sent before a connection broke is listed whatever
became of it, and a client that would resend it blindly can see it is there. Removed
messages are not listed: they were taken back before their turn.

Listed in arrival order: a completed turn's user message is its `completed` receipt (each
completed turn holds exactly one, in the order they arrived), so an unsettled message is
listed where it arrived, before the turns that came after it — a client reconciling its
own history reads it in the order it sent it. A history that does not pair with the
receipts (imported from elsewhere) lists the receipts after it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..checkpoint import load_checkpoint
from ..conversation import Turn
from ..store import Receipt, StoredSession
from ._wire import MessageBody

LISTED_RECEIPTS = frozenset({"received", "failed", "aborted"})


def listed_messages(
    stored: StoredSession | None, receipts: Sequence[Receipt]
) -> tuple[MessageBody, ...]:
    """The history of `stored` and the receipts no completed turn holds, in arrival order."""
    history = load_checkpoint(stored.checkpoint).history if stored is not None else ()
    unsettled = [r for r in receipts if r.state in LISTED_RECEIPTS]
    completed = [r for r in receipts if r.state == "completed"]
    users = [turn for turn in history if turn.role == "user"]
    paired = len(users) == len(completed) and all(
        turn.text == receipt.text for turn, receipt in zip(users, completed, strict=True)
    )
    listed: list[MessageBody] = []
    waiting = list(unsettled)
    turns_done = 0
    for turn in history:
        if turn.role == "user":
            if paired:
                arrived = completed[turns_done].order
                listed += [_unsettled(r) for r in waiting if r.order < arrived]
                waiting = [r for r in waiting if r.order > arrived]
            turns_done += 1
        listed += _messages_of(turn)
    listed += [_unsettled(r) for r in waiting]
    return tuple(listed)


def _unsettled(receipt: Receipt) -> MessageBody:
    return MessageBody(role="user", text=receipt.text, id=receipt.id)


def _messages_of(turn: Turn) -> list[MessageBody]:
    """One turn of the history as listed messages."""
    if turn.role == "user":
        return [MessageBody(role="user", text=turn.text)]
    if turn.role == "tool":
        return [MessageBody(role="tool_result", text=turn.text, tool_call_id=turn.tool_call_id)]
    listed = [MessageBody(role="assistant", text=turn.text)] if turn.text else []
    listed += [
        MessageBody(
            role="tool_call",
            text=json.dumps(call.arguments, ensure_ascii=False),
            tool_call_id=call.id,
            tool_name=call.name,
        )
        for call in turn.tool_calls
    ]
    return listed
