"""Properties of the window and of compaction over generated conversations.

A generated conversation is a run of exchanges: a user message, any number of tool
rounds (an assistant turn with one to three calls, then one result per call), and
usually a final answer — the last exchange may stop at a pending call, as a paused
run does.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from reference_impl.checkpoint import AgentRunCheckpoint, FoldedSpan, load_checkpoint
from reference_impl.context import Compaction, Window, is_summary_turn, shown_turns
from reference_impl.conversation import ToolCall, Turn

Exchange = tuple[list[int], bool]
"""Tool calls per round, and whether the exchange ends with an answer."""

exchanges = st.lists(st.tuples(st.lists(st.integers(1, 3), max_size=3), st.booleans()), max_size=12)


def build(plan: Sequence[Exchange], *, paused_tail: bool = False) -> list[Turn]:
    turns: list[Turn] = []
    ids = 0
    for n, (rounds, answered) in enumerate(plan):
        turns.append(Turn(role="user", text=f"u{n}"))
        for width in rounds:
            names = [f"c{ids + k}" for k in range(width)]
            ids += width
            turns.append(
                Turn(
                    role="assistant",
                    tool_calls=tuple(ToolCall(id=i, name="t", arguments={"i": i}) for i in names),
                )
            )
            turns += [Turn(role="tool", tool_call_id=i, text=f"r{i}") for i in names]
        if answered or not rounds:
            turns.append(Turn(role="assistant", text=f"a{n}"))
    if paused_tail and plan:
        turns.append(Turn(role="assistant", tool_calls=(ToolCall(id="pending", name="t"),)))
    return turns


def calls_answered_inside(turns: Sequence[Turn]) -> bool:
    """Every tool result in `turns` answers a call that is also in `turns`."""
    called = {c.id for t in turns for c in t.tool_calls}
    return all(t.tool_call_id in called for t in turns if t.role == "tool")


def results_kept_with(turns: Sequence[Turn], part: Sequence[Turn]) -> bool:
    """Every call in `part` has all of its results (those in `turns`) in `part` too."""
    called = {c.id for t in part for c in t.tool_calls}
    return all(t in part for t in turns if t.role == "tool" and t.tool_call_id in called)


@given(exchanges, st.booleans(), st.integers(1, 6))
def test_window_keeps_every_call_of_every_kept_result(
    plan: list[Exchange], paused: bool, n: int
) -> None:
    turns = build(plan, paused_tail=paused)
    kept = Window(n).apply(turns)
    assert calls_answered_inside(kept)
    assert results_kept_with(turns, kept)


@given(exchanges, st.booleans(), st.integers(1, 6))
def test_window_keeps_the_last_user_turns_verbatim_and_in_order(
    plan: list[Exchange], paused: bool, n: int
) -> None:
    turns = build(plan, paused_tail=paused)
    kept = Window(n).apply(turns)
    all_users = [t for t in turns if t.role == "user"]
    assert [t for t in kept if t.role == "user"] == all_users[-n:]
    assert kept == turns[len(turns) - len(kept) :]  # a verbatim suffix, nothing rewritten
    if len(all_users) > n:
        assert kept[0].role == "user"


@given(exchanges, st.integers(1, 4), st.integers(0, 4), st.booleans())
def test_compaction_folds_provably(
    plan: list[Exchange], keep: int, extra: int, keep_originals: bool
) -> None:
    """Folding as an agent does, after each exchange: spans never part calls from
    results, the recent turns survive verbatim, every recorded `at` points at its
    summary, and with originals kept the history unfolds back to the conversation."""
    compaction = Compaction(
        trigger_turns=keep + extra, keep_recent_turns=keep, keep_originals=keep_originals
    )
    original = build(plan)
    starts = [i for i, t in enumerate(original) if t.role == "user"] + [len(original)]
    history: list[Turn] = []
    folded: list[FoldedSpan] = []
    for n, (begin, stop) in enumerate(itertools.pairwise(starts)):
        history += original[begin:stop]
        if not compaction.needs_folding(history):
            continue
        cut = compaction.span_to_fold(history, folded)
        assert cut is not None
        start, end = cut
        part = history[start:end]
        assert calls_answered_inside(part) and results_kept_with(history, part)
        assert not any(is_summary_turn(t) for t in part)
        history, folded = compaction.fold(history, folded, start, end, f"summary {n}")
        assert not compaction.needs_folding(history)
        assert compaction.span_to_fold(history, folded) is None

    assert [span.at for span in folded] == list(range(len(folded)))
    for span in folded:
        assert is_summary_turn(history[span.at]) and span.summary in history[span.at].text
        assert (span.originals is not None) == keep_originals
    load_checkpoint(AgentRunCheckpoint(history=tuple(history), folded=tuple(folded)))

    recent = Window(keep).apply(original)
    assert history[len(history) - len(recent) :] == recent
    rest = [t for t in history if not is_summary_turn(t)]
    assert shown_turns(history, Window(keep)) == history[: len(folded)] + Window(keep).apply(rest)

    if keep_originals:
        unfolded = list(history)
        for span in reversed(folded):
            assert span.originals is not None
            unfolded[span.at : span.at + 1] = span.originals
        assert unfolded == original
