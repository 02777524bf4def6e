"""A conversation's messages as the runtime lists them (`listMessages()`).

The stored checkpoint's history (what completed turns hold: user messages, assistant
text, tool calls and results), then every message that reached the runtime and that no
completed turn holds: a receipt still `received` (queued, playing, or its runtime died),
`failed` or `aborted`. So a message sent before a connection broke is listed whatever
became of it, and a client that would resend it blindly can see it is there. Removed
messages are not listed: they were taken back before their turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..checkpoint import load_checkpoint
from ..store import Receipt, StoredSession
from ._wire import MessageBody

LISTED_RECEIPTS = frozenset({"received", "failed", "aborted"})


def listed_messages(
    stored: StoredSession | None, receipts: Sequence[Receipt]
) -> tuple[MessageBody, ...]:
    """The history of `stored`, then the receipts no completed turn holds."""
    listed: list[MessageBody] = []
    if stored is not None:
        for turn in load_checkpoint(stored.checkpoint).history:
            if turn.role == "user":
                listed.append(MessageBody(role="user", text=turn.text))
            elif turn.role == "tool":
                listed.append(
                    MessageBody(role="tool_result", text=turn.text, tool_call_id=turn.tool_call_id)
                )
            else:
                if turn.text:
                    listed.append(MessageBody(role="assistant", text=turn.text))
                listed.extend(
                    MessageBody(
                        role="tool_call",
                        text=json.dumps(call.arguments, ensure_ascii=False),
                        tool_call_id=call.id,
                        tool_name=call.name,
                    )
                    for call in turn.tool_calls
                )
    listed.extend(
        MessageBody(role="user", text=receipt.text, id=receipt.id)
        for receipt in receipts
        if receipt.state in LISTED_RECEIPTS
    )
    return tuple(listed)
