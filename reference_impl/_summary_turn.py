"""The summary turn: how compaction frames a folded span, and how it is recognised.

Its own module because two layers need it: `checkpoint.py` checks that a folded span
points at a summary turn, and `context.py` (which builds on the checkpoint) writes
them. `reference_impl.context` re-exports these names.
"""

from __future__ import annotations

from .conversation import Turn

SUMMARY_OPEN = "<summary of earlier turns>\n"
SUMMARY_CLOSE = "\n</summary>"


def summary_turn(summary: str) -> Turn:
    """The one user turn that stands for a folded span."""
    return Turn(role="user", text=f"{SUMMARY_OPEN}{summary}{SUMMARY_CLOSE}")


def is_summary_turn(turn: Turn) -> bool:
    """Whether a turn is a compaction summary (recognised by its framing)."""
    return (
        turn.role == "user"
        and turn.text.startswith(SUMMARY_OPEN)
        and turn.text.endswith(SUMMARY_CLOSE)
    )
