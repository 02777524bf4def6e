"""Wire invariants checked on every captured request.

These are the mistakes a real provider would reject or a model would be confused by:
a tool result for a call nobody made, a call left dangling when the user speaks again.
They are checked on the IR so every dialect gets them, plus each dialect's own role
rules on the raw body.
"""

from __future__ import annotations

from .dialects._base import DialectCodec
from .ir import RequestIR


def check_request(request: RequestIR, codec: DialectCodec) -> list[str]:
    """All invariant violations in one request, as human-readable sentences."""
    return check_tool_pairing(request) + codec.check_roles(request)


def check_tool_pairing(request: RequestIR) -> list[str]:
    problems: list[str] = []
    called: dict[str, int] = {}
    unanswered: dict[str, int] = {}
    answered: set[str] = set()
    for index, message in enumerate(request.messages):
        if message.role == "assistant":
            for call in message.tool_calls:
                if call.id in called:
                    problems.append(
                        f"message {index}: tool call id '{call.id}' reuses the id of the call "
                        f"in message {called[call.id]}"
                    )
                called[call.id] = index
                unanswered[call.id] = index
        elif message.role == "tool":
            call_id = message.tool_call_id or ""
            if call_id not in called:
                problems.append(
                    f"message {index}: tool result answers '{call_id}', "
                    "but no earlier assistant message made that call"
                )
            elif call_id in answered:
                problems.append(f"message {index}: tool call '{call_id}' is answered twice")
            answered.add(call_id)
            unanswered.pop(call_id, None)
        elif message.role == "user" and unanswered:
            for call_id, where in unanswered.items():
                problems.append(
                    f"message {index}: a new user turn follows, but tool call '{call_id}' "
                    f"from message {where} was never answered"
                )
            unanswered.clear()
    for call_id, where in unanswered.items():
        problems.append(
            f"message {where}: tool call '{call_id}' is never answered, "
            "yet the request asks the model to go on"
        )
    return problems
