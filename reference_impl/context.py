"""Bounding what the model is shown — never what is stored.

`Window` and `Compaction` decide which turns a model call carries. The stored history
is never trimmed on the way to storage: a window is applied to a copy for each call,
and compaction replaces a span with a summary turn only while recording the span in
`folded` (with the originals, when asked), so a compacted conversation stays provable.

Cuts fall only on user-turn boundaries. A "turn" here is a user message and
everything after it up to the next user message, so a tool call and its results —
which always sit between two user messages — are never separated.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ._summary_turn import SUMMARY_CLOSE as SUMMARY_CLOSE
from ._summary_turn import SUMMARY_OPEN as SUMMARY_OPEN
from ._summary_turn import is_summary_turn as is_summary_turn
from ._summary_turn import summary_turn as summary_turn
from .checkpoint import FoldedSpan
from .conversation import Turn

DEFAULT_SUMMARY_PROMPT = (
    "You summarize the earlier part of a conversation so it can continue without it. "
    "Keep every name, number, decision, commitment, tool outcome and open question; "
    "drop pleasantries. Write plain prose from a neutral point of view, with no preamble."
)


def _user_indices(turns: Sequence[Turn]) -> list[int]:
    return [i for i, turn in enumerate(turns) if turn.role == "user"]


@dataclass(frozen=True, slots=True)
class Window:
    """Show the model only the last `keep_recent_turns` user turns and what followed."""

    keep_recent_turns: int

    def __post_init__(self) -> None:
        if self.keep_recent_turns < 1:
            raise ValueError(f"keep_recent_turns must be at least 1, got {self.keep_recent_turns}")

    def apply(self, turns: Sequence[Turn]) -> list[Turn]:
        """A suffix of `turns` starting at the first kept user message.

        With no more user turns than the window holds, everything is kept.
        """
        users = _user_indices(turns)
        if len(users) <= self.keep_recent_turns:
            return list(turns)
        return list(turns[users[-self.keep_recent_turns] :])


def _split_calls(turns: Sequence[Turn], start: int, end: int) -> bool:
    """Whether cutting `turns[start:end]` out would part a tool call from a result."""
    inside = range(start, end)
    calls_in = {c.id for i in inside for c in turns[i].tool_calls}
    for i, turn in enumerate(turns):
        if turn.role != "tool" or turn.tool_call_id is None:
            continue
        if (i in inside) != (turn.tool_call_id in calls_in):
            return True
    return False


def _size(turn: Turn) -> int:
    """A turn's characters as a size trigger counts them: its text and its calls' arguments."""
    calls = sum(len(json.dumps(c.arguments, ensure_ascii=False)) for c in turn.tool_calls)
    return len(turn.text) + calls


def _render_turn(turn: Turn) -> str:
    if turn.role == "tool":
        status = "error" if turn.is_error else "result"
        return f"tool {status} (call {turn.tool_call_id}): {turn.text}"
    lines = [f"{turn.role}: {turn.text}"] if turn.text or not turn.tool_calls else []
    lines += [
        f"{turn.role} called {call.name} (call {call.id}) with "
        f"{json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)}"
        for call in turn.tool_calls
    ]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Compaction:
    """Fold the oldest turns into a model-written summary once the conversation grows.

    The agent asks `needs_folding`, takes `span_to_fold`, makes the model call that
    `summary_request` describes, and applies `fold` to the stored history. The summary
    comes from the model; this class only decides where to cut and how to record it.
    """

    trigger_turns: int | None
    keep_recent_turns: int
    keep_originals: bool = False
    summary_prompt: str = DEFAULT_SUMMARY_PROMPT
    trigger_chars: int | None = None
    """Fold on size instead of count: more than this many characters of turns (texts and
    tool-call arguments) since the last summary. Exactly one trigger is set."""

    def __post_init__(self) -> None:
        if self.keep_recent_turns < 1:
            raise ValueError(f"keep_recent_turns must be at least 1, got {self.keep_recent_turns}")
        if (self.trigger_turns is None) == (self.trigger_chars is None):
            raise ValueError("set exactly one of trigger_turns and trigger_chars")
        if self.trigger_chars is not None:
            if self.trigger_chars < 1:
                raise ValueError(f"trigger_chars must be at least 1, got {self.trigger_chars}")
        elif self.trigger_turns is not None and self.trigger_turns < self.keep_recent_turns:
            raise ValueError(
                f"trigger_turns ({self.trigger_turns}) must be at least keep_recent_turns "
                f"({self.keep_recent_turns}), or folding would leave nothing to fold"
            )

    @staticmethod
    def _unfolded_start(history: Sequence[Turn], folded: Sequence[FoldedSpan] = ()) -> int:
        """The index after the last summary turn (named by `folded` or by its framing)."""
        last = max((span.at for span in folded), default=-1)
        for i, turn in enumerate(history):
            if is_summary_turn(turn):
                last = max(last, i)
        return last + 1

    def needs_folding(self, history: Sequence[Turn]) -> bool:
        """True when more than `trigger_turns` user turns (or `trigger_chars` characters)
        follow the last summary."""
        unfolded = history[self._unfolded_start(history) :]
        if self.trigger_chars is not None:
            return sum(_size(turn) for turn in unfolded) > self.trigger_chars
        assert self.trigger_turns is not None
        return len(_user_indices(unfolded)) > self.trigger_turns

    def span_to_fold(
        self, history: Sequence[Turn], folded: Sequence[FoldedSpan] = ()
    ) -> tuple[int, int] | None:
        """`[start, end)` of the oldest unfolded turns: everything after the last summary
        and before the last `keep_recent_turns` user turns; None when that is empty."""
        start = self._unfolded_start(history, folded)
        users = [start + i for i in _user_indices(history[start:])]
        if len(users) <= self.keep_recent_turns:
            return None
        end = users[-self.keep_recent_turns]
        return (start, end) if end > start else None

    def summary_request(self, turns: Sequence[Turn]) -> tuple[str, list[Turn]]:
        """The system prompt and single user turn (a transcript of `turns`) for the
        model call that writes the summary."""
        if not turns:
            raise ValueError("summary_request: no turns to summarize")
        transcript = "\n".join(_render_turn(turn) for turn in turns)
        text = (
            "Summarize this transcript of earlier turns:\n\n"
            f"<transcript>\n{transcript}\n</transcript>"
        )
        return self.summary_prompt, [Turn(role="user", text=text)]

    def fold(
        self,
        history: Sequence[Turn],
        folded: Sequence[FoldedSpan],
        start: int,
        end: int,
        summary: str,
    ) -> tuple[list[Turn], list[FoldedSpan]]:
        """Replace `history[start:end]` with one summary turn and record the span.

        Index stability: a span recorded earlier with `at < start` keeps its index; one
        with `at >= end` now sits `end - start - 1` places earlier and is shifted by that.
        (`span_to_fold` always folds after the last summary, so in practice only the
        first case occurs.) A span may not contain an earlier summary turn, nor part a
        tool call from its results; an empty summary is refused, since the folded turns
        would then be shown as nothing.
        """
        if not 0 <= start < end <= len(history):
            raise ValueError(f"fold: [{start}, {end}) is not a span of {len(history)} turns")
        if not summary.strip():
            raise ValueError("fold: the summary is empty")
        if any(start <= span.at < end for span in folded) or any(
            is_summary_turn(turn) for turn in history[start:end]
        ):
            raise ValueError(f"fold: [{start}, {end}) contains an earlier summary turn")
        if _split_calls(history, start, end):
            raise ValueError(f"fold: [{start}, {end}) would part a tool call from its results")
        removed = end - start - 1
        shifted = [
            span if span.at < start else span.model_copy(update={"at": span.at - removed})
            for span in folded
        ]
        span = FoldedSpan(
            at=start,
            turns=end - start,
            summary=summary,
            originals=tuple(history[start:end]) if self.keep_originals else None,
        )
        new_history = [*history[:start], summary_turn(summary), *history[end:]]
        return new_history, [*shifted, span]


def shown_turns(history: Sequence[Turn], window: Window | None) -> list[Turn]:
    """What the model is shown of the stored history: every summary turn (it stands for
    the folded past), then the window over the rest, in their original order."""
    if window is None:
        return list(history)
    rest = [i for i, turn in enumerate(history) if not is_summary_turn(turn)]
    kept_rest = window.apply([history[i] for i in rest])
    first_kept = rest[len(rest) - len(kept_rest)] if kept_rest else len(history)
    return [turn for i, turn in enumerate(history) if is_summary_turn(turn) or i >= first_kept]
