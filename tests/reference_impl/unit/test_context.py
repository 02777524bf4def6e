"""Window and compaction: what the model is shown, cut only on user-turn boundaries."""

from __future__ import annotations

import pytest

from reference_impl.checkpoint import AgentRunCheckpoint, FoldedSpan, load_checkpoint
from reference_impl.context import (
    DEFAULT_SUMMARY_PROMPT,
    Compaction,
    Window,
    is_summary_turn,
    shown_turns,
    summary_turn,
)
from reference_impl.conversation import ToolCall, Turn


def user(text: str) -> Turn:
    return Turn(role="user", text=text)


def answer(text: str) -> Turn:
    return Turn(role="assistant", text=text)


def calls(*ids: str, text: str = "") -> Turn:
    return Turn(
        role="assistant",
        text=text,
        tool_calls=tuple(ToolCall(id=i, name="lookup", arguments={"q": i}) for i in ids),
    )


def result(call_id: str, text: str = "ok", *, is_error: bool = False) -> Turn:
    return Turn(role="tool", tool_call_id=call_id, text=text, is_error=is_error)


def conversation(n: int) -> list[Turn]:
    """`n` exchanges; every even one makes a two-call tool round before answering."""
    turns: list[Turn] = []
    for i in range(1, n + 1):
        turns.append(user(f"u{i}"))
        if i % 2 == 0:
            turns += [calls(f"c{i}a", f"c{i}b"), result(f"c{i}a"), result(f"c{i}b")]
        turns.append(answer(f"a{i}"))
    return turns


def users(turns: list[Turn]) -> list[str]:
    return [t.text for t in turns if t.role == "user"]


# --- Window --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, -1])
def test_window_refuses_less_than_one_turn(n: int) -> None:
    with pytest.raises(ValueError, match="keep_recent_turns"):
        Window(n)


def test_window_keeps_everything_when_short() -> None:
    history = conversation(2)
    assert Window(2).apply(history) == history
    assert Window(5).apply(history) == history
    assert Window(1).apply([]) == []


def test_window_keeps_the_last_user_turns_and_what_followed() -> None:
    history = conversation(4)
    kept = Window(2).apply(history)
    assert users(kept) == ["u3", "u4"]
    assert kept == history[history.index(user("u3")) :]


def test_window_never_parts_a_tool_call_from_its_results() -> None:
    history = [
        user("u1"),
        calls("c1"),
        result("c1"),
        answer("a1"),
        user("u2"),
        calls("c2", "c3"),
        result("c2"),
        result("c3", "boom", is_error=True),
        calls("c4"),
        result("c4"),
        answer("a2"),
        user("u3"),
        calls("c5"),  # a paused run: the call is last, its result not in yet
    ]
    kept = Window(2).apply(history)
    assert kept == history[4:]
    called = {c.id for t in kept for c in t.tool_calls}
    assert all(t.tool_call_id in called for t in kept if t.role == "tool")
    assert Window(1).apply(history) == history[11:]


def test_window_does_not_touch_its_input() -> None:
    history = conversation(3)
    before = list(history)
    kept = Window(1).apply(history)
    kept.clear()
    assert history == before


# --- Compaction: configuration and trigger -------------------------------------------


@pytest.mark.parametrize(("trigger", "keep"), [(4, 0), (2, 3)])
def test_compaction_refuses_impossible_settings(trigger: int, keep: int) -> None:
    with pytest.raises(ValueError, match="keep_recent_turns"):
        Compaction(trigger_turns=trigger, keep_recent_turns=keep)


def test_needs_folding_counts_user_turns_since_the_last_summary() -> None:
    compaction = Compaction(trigger_turns=3, keep_recent_turns=1)
    assert not compaction.needs_folding(conversation(3))
    assert compaction.needs_folding(conversation(4))
    folded = [summary_turn("earlier"), *conversation(3)]
    assert not compaction.needs_folding(folded)  # the summary itself does not count
    assert compaction.needs_folding([*folded, user("u4")])


@pytest.mark.parametrize(("turns", "chars"), [(None, None), (2, 100)])
def test_compaction_takes_exactly_one_trigger(turns: int | None, chars: int | None) -> None:
    with pytest.raises(ValueError, match="exactly one of trigger_turns and trigger_chars"):
        Compaction(trigger_turns=turns, trigger_chars=chars, keep_recent_turns=1)


def test_needs_folding_by_characters_counts_turns_since_the_last_summary() -> None:
    compaction = Compaction(trigger_turns=None, trigger_chars=10, keep_recent_turns=1)
    assert not compaction.needs_folding([user("12345"), user("12345")])  # exactly 10
    assert compaction.needs_folding([user("12345"), user("123456")])
    big_summary = summary_turn("x" * 100)
    assert not compaction.needs_folding([big_summary, user("short")])  # the summary aside


def test_summary_turn_framing() -> None:
    turn = summary_turn("They booked for two.")
    assert turn == Turn(
        role="user", text="<summary of earlier turns>\nThey booked for two.\n</summary>"
    )
    assert is_summary_turn(turn)
    assert not is_summary_turn(user("<summary of earlier turns>"))
    assert not is_summary_turn(answer(turn.text))


# --- Compaction: which span ----------------------------------------------------------


def test_span_is_everything_before_the_recent_user_turns() -> None:
    history = conversation(5)
    span = Compaction(trigger_turns=4, keep_recent_turns=2).span_to_fold(history, [])
    assert span == (0, history.index(user("u4")))


def test_span_never_ends_inside_a_tool_round() -> None:
    history = conversation(4)  # u2 and u4 make tool rounds
    start, end = Compaction(trigger_turns=2, keep_recent_turns=2).span_to_fold(history) or (0, 0)
    assert (start, end) == (0, 7)
    assert history[end] == user("u3")
    folded_ids = {c.id for t in history[start:end] for c in t.tool_calls}
    assert {t.tool_call_id for t in history[start:end] if t.role == "tool"} == folded_ids


def test_span_is_none_when_nothing_is_old_enough() -> None:
    compaction = Compaction(trigger_turns=3, keep_recent_turns=3)
    assert compaction.span_to_fold(conversation(3), []) is None
    assert compaction.span_to_fold([], []) is None
    assert compaction.span_to_fold([summary_turn("s"), *conversation(3)], []) is None


def test_span_starts_after_an_existing_summary() -> None:
    history = [summary_turn("s1"), *conversation(4)]
    folded = [FoldedSpan(at=0, turns=6, summary="s1")]
    span = Compaction(trigger_turns=2, keep_recent_turns=1).span_to_fold(history, folded)
    assert span == (1, history.index(user("u4")))


def test_span_starts_after_a_summary_named_only_by_folded() -> None:
    # A span that `folded` names is a summary even if its framing was edited away.
    history = [user("custom summary"), *conversation(3)]
    folded = [FoldedSpan(at=0, turns=4, summary="custom summary")]
    span = Compaction(trigger_turns=1, keep_recent_turns=1).span_to_fold(history, folded)
    assert span == (1, history.index(user("u3")))


# --- Compaction: the summary request -------------------------------------------------


def test_summary_request_is_a_system_prompt_and_one_transcript_turn() -> None:
    span = [
        user("Book a table for two"),
        calls("c1", text="Checking."),
        result("c1", "Friday 19:00 free"),
        result("c1", "no", is_error=True),
        answer("Booked Friday 19:00."),
    ]
    system, turns = Compaction(trigger_turns=2, keep_recent_turns=1).summary_request(span)
    assert system == DEFAULT_SUMMARY_PROMPT
    assert len(turns) == 1 and turns[0].role == "user"
    assert turns[0].text == (
        "Summarize this transcript of earlier turns:\n\n<transcript>\n"
        "user: Book a table for two\n"
        "assistant: Checking.\n"
        'assistant called lookup (call c1) with {"q": "c1"}\n'
        "tool result (call c1): Friday 19:00 free\n"
        "tool error (call c1): no\n"
        "assistant: Booked Friday 19:00.\n"
        "</transcript>"
    )


def test_summary_request_uses_the_configured_prompt() -> None:
    compaction = Compaction(trigger_turns=2, keep_recent_turns=1, summary_prompt="Be terse.")
    system, _ = compaction.summary_request([user("hi")])
    assert system == "Be terse."
    with pytest.raises(ValueError, match="no turns"):
        compaction.summary_request([])


# --- Compaction: folding -------------------------------------------------------------


@pytest.mark.parametrize("keep_originals", [False, True])
def test_fold_replaces_the_span_with_one_summary_turn(keep_originals: bool) -> None:
    history = conversation(5)
    compaction = Compaction(trigger_turns=3, keep_recent_turns=2, keep_originals=keep_originals)
    start, end = compaction.span_to_fold(history, []) or (0, 0)
    new_history, folded = compaction.fold(history, [], start, end, "They booked; then asked twice.")

    assert new_history == [
        Turn(
            role="user",
            text="<summary of earlier turns>\nThey booked; then asked twice.\n</summary>",
        ),
        *history[end:],
    ]
    assert folded == [
        FoldedSpan(
            at=0,
            turns=end,
            summary="They booked; then asked twice.",
            originals=tuple(history[:end]) if keep_originals else None,
        )
    ]
    assert history == conversation(5)  # the input is not mutated
    load_checkpoint(AgentRunCheckpoint(history=tuple(new_history), folded=tuple(folded)))


def test_earlier_spans_keep_their_index_across_a_second_fold() -> None:
    compaction = Compaction(trigger_turns=2, keep_recent_turns=1, keep_originals=True)
    history: list[Turn] = conversation(3)
    folded: list[FoldedSpan] = []
    for n, summary in enumerate(["first", "second"], start=4):
        start, end = compaction.span_to_fold(history, folded) or (0, 0)
        history, folded = compaction.fold(history, folded, start, end, summary)
        history += [user(f"u{n}"), answer(f"a{n}")]

    assert [span.at for span in folded] == [0, 1]
    for span in folded:
        assert history[span.at] == summary_turn(span.summary)
    assert users(history)[:2] == [summary_turn("first").text, summary_turn("second").text]
    assert folded[1].originals is not None and folded[1].originals[0] == user("u3")


def test_later_spans_shift_by_what_the_fold_removed() -> None:
    history = [*conversation(2), summary_turn("older"), user("u9"), answer("a9")]
    at = history.index(summary_turn("older"))  # 6
    spans = [FoldedSpan(at=at, turns=3, summary="older")]
    new_history, folded = Compaction(trigger_turns=1, keep_recent_turns=1).fold(
        history, spans, 0, 2, "u1 a1"
    )
    assert folded[0].at == at - 1  # two turns became one
    assert new_history[folded[0].at] == summary_turn("older")
    assert folded[1] == FoldedSpan(at=0, turns=2, summary="u1 a1")


@pytest.mark.parametrize(("start", "end"), [(0, 4), (2, 4), (4, 6), (3, 5), (5, 7)])
def test_fold_refuses_to_part_a_tool_call_from_its_results(start: int, end: int) -> None:
    history = conversation(2)  # u1 a1 u2 call(c2a,c2b) r(c2a) r(c2b) a2
    with pytest.raises(ValueError, match="tool call"):
        Compaction(trigger_turns=1, keep_recent_turns=1).fold(history, [], start, end, "s")


def test_fold_refuses_a_span_holding_an_earlier_summary() -> None:
    compaction = Compaction(trigger_turns=1, keep_recent_turns=1)
    history = [summary_turn("s"), *conversation(2)]
    with pytest.raises(ValueError, match="earlier summary"):
        compaction.fold(history, [], 0, 3, "t")
    renamed = [user("s"), *conversation(2)]
    with pytest.raises(ValueError, match="earlier summary"):
        compaction.fold(renamed, [FoldedSpan(at=0, turns=2, summary="s")], 0, 3, "t")


@pytest.mark.parametrize(
    ("start", "end", "summary"), [(2, 2, "s"), (-1, 2, "s"), (0, 99, "s"), (0, 2, "  ")]
)
def test_fold_refuses_bad_spans_and_empty_summaries(start: int, end: int, summary: str) -> None:
    with pytest.raises(ValueError, match="fold"):
        Compaction(trigger_turns=1, keep_recent_turns=1).fold(
            conversation(3), [], start, end, summary
        )


# --- shown_turns ---------------------------------------------------------------------


def test_without_a_window_everything_stored_is_shown() -> None:
    history = [summary_turn("s"), *conversation(4)]
    shown = shown_turns(history, None)
    assert shown == history and shown is not history


def test_summaries_are_always_shown_then_the_window() -> None:
    history = [summary_turn("s1"), summary_turn("s2"), *conversation(4)]
    shown = shown_turns(history, Window(1))
    assert shown == [summary_turn("s1"), summary_turn("s2"), *history[history.index(user("u4")) :]]


def test_summaries_do_not_use_up_the_window() -> None:
    history = [summary_turn("s"), *conversation(2)]
    assert shown_turns(history, Window(2)) == history
    assert shown_turns([summary_turn("s")], Window(1)) == [summary_turn("s")]
    assert shown_turns([], Window(1)) == []
