"""Bounding what the model is shown: memory recalls, a window bounds, compaction folds.

None of them is the conversation. Memory brings prior turns back as a `<memory>` block in
the system prompt, scoped by the namespace; a window shows only the recent turns; a
compacted span is replaced by a model-written summary that travels with the checkpoint.
"""

from __future__ import annotations

import html
import re

import pytest

from ._kit import (
    BOOK,
    COMPACTING_TURNS,
    COMPACTION_TRIGGERS,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    THREE,
    AgentFactory,
    IdentitySpec,
    Implementation,
    RequestIR,
    ScriptedProvider,
    Text,
    ToolCalls,
    declaration_of,
    is_summary_call,
    long_turn,
    next_turn,
    pairing_problems,
    roundtrip,
    shown_anywhere,
    text,
    tool_call,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

_MEMORY = re.compile(r"<memory\b([^>]*)>(.*?)</memory>", re.DOTALL)
_ROLE = re.compile(r"""\brole\s*=\s*["']([^"']*)["']""")


def recalled(system: str) -> list[tuple[str, str]]:
    """(role, text) of every `<memory>` element in a system prompt."""
    found = []
    for attributes, body in _MEMORY.findall(system):
        role = _ROLE.search(attributes)
        found.append((role.group(1) if role else "", html.unescape(body)))
    return found


def recalls(request: RequestIR, said: str) -> bool:
    """Whether the system prompt carries `said` as a user `<memory role=…>` element."""
    return any(role == "user" and said in body for role, body in recalled(request.system))


@pytest.mark.law("memory.system-block-not-turns")
async def test_memory_comes_back_in_the_system_prompt_not_as_turns(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text("Booked."), text("Three it is.")])
    agent = await new_agent(system=SYSTEM, memory=True)
    same = IdentitySpec(conversation_id="memory-block")
    await agent.run(BOOK, identity=same)
    await agent.run(THREE, identity=same)
    second = fake.wire.last
    assert recalls(second, BOOK), (
        "memory did not bring the earlier turn back as a <memory role=…> block in the system "
        f"prompt; the system prompt was {second.system!r}"
    )
    assert second.system.startswith(SYSTEM), "the memory block displaced the agent's own prompt"
    assert second.turns() == [("user", THREE)], (
        "memory replayed prior turns as message turns instead of recalling them as context: "
        f"{second.turns()}"
    )


@pytest.mark.law("memory.namespace-isolation")
@pytest.mark.parametrize(
    ("writer", "reader"),
    [
        (IdentitySpec(conversation_id="c-1"), IdentitySpec(conversation_id="c-2")),
        (
            IdentitySpec(conversation_id="c-1", tenant="acme"),
            IdentitySpec(conversation_id="c-1", tenant="globex"),
        ),
        (
            IdentitySpec(conversation_id="c-1", tenant="acme", principal="alice"),
            IdentitySpec(conversation_id="c-1", tenant="acme", principal="bob"),
        ),
    ],
    ids=["conversation", "tenant", "principal"],
)
async def test_memory_is_not_read_across_namespaces(
    fake: ScriptedProvider, new_agent: AgentFactory, writer: IdentitySpec, reader: IdentitySpec
) -> None:
    fake.script([text("Booked."), text("Three what?"), text("Three it is.")])
    agent = await new_agent(system=SYSTEM, memory=True)
    await agent.run(BOOK, identity=writer)
    await agent.run(THREE, identity=reader)
    other = fake.wire.last
    assert not shown_anywhere(other, BOOK) and not shown_anywhere(other, "Booked."), (
        f"memory written under {writer.model_dump(exclude_none=True)} was shown to a run under "
        f"{reader.model_dump(exclude_none=True)}: identity must scope memory reads"
    )
    await agent.run(THREE, identity=writer)
    assert recalls(fake.wire.last, BOOK), (
        "the writer's own namespace did not recall its earlier turn, so isolation proves nothing"
    )


@pytest.mark.law("memory.session-recall")
async def test_a_session_recalls_its_earlier_turns_without_an_identity(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text("Booked."), text("Three what?"), text("Three it is.")])
    agent = await new_agent(system=SYSTEM, memory=True)
    await agent.run(BOOK, session_id="session-1")
    await agent.run(THREE, session_id="session-2")
    assert not shown_anywhere(fake.wire.last, BOOK), (
        "another session recalled this session's turn: the session id must scope memory"
    )
    await agent.run(THREE, session_id="session-1")
    again = fake.wire.last
    assert recalls(again, BOOK), (
        "a later run of the same session did not recall its earlier turn: a session is a "
        f"namespace even when no identity was passed (system prompt: {again.system!r})"
    )
    assert again.turns() == [("user", THREE)], "session recall replayed turns as messages"


WINDOW_TURNS: list[tuple[str, str | None, str]] = [
    # (user message, what the model echoes first or None, the answer)
    (long_turn(BOOK), None, "Booked."),
    (long_turn(THREE), None, "Three it is."),
    (long_turn("Make it Saturday."), "Saturday", "Moved to Saturday."),
    (long_turn("Add a high chair."), "high chair", "High chair added."),
    (long_turn("What time is it?"), "7pm", "At 7pm."),
]


@pytest.mark.law("window.bounds-what-is-shown")
async def test_a_window_shows_only_the_last_turns_and_keeps_calls_with_results(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """The turns shown are counted by the messages this test sent: a runtime may put a
    notice of its own where it dropped turns, even as a user-role message, and the notice
    is judged on its own (it may not carry what the window dropped)."""
    steps: list[Text | ToolCalls] = []
    for _, echoed, answer in WINDOW_TURNS:
        if echoed is not None:
            steps.append(tool_call("echo", {"text": echoed}))
        steps.append(text(answer))
    fake.script(steps)
    agent = await new_agent(system=SYSTEM, tools=("echo",), window=2)
    messages = [message for message, _, _ in WINDOW_TURNS]
    answers = [answer for _, _, answer in WINDOW_TURNS]
    await agent.run(messages[0])
    for message in messages[1:]:
        await next_turn(agent, implementation, message)
    assert len(fake.wire.requests) == len(steps), "the agent made an unexpected number of calls"
    for request in fake.wire.requests:
        sent = [said for said in request.user_texts() if said in messages]
        turn = messages.index(sent[-1])
        assert sent == messages[max(0, turn - 1) : turn + 1], (
            f"with window=2, turn {turn + 1} showed the model the user turns "
            f"{[messages.index(said) + 1 for said in sent]} instead of the last two"
        )
        dropped = [*messages[: max(0, turn - 1)], *answers[: max(0, turn - 1)]]
        for notice in (said for said in request.user_texts() if said not in messages):
            carried = [d[:40] for d in dropped if d in notice]
            assert not carried, (
                f"with window=2, turn {turn + 1} showed a user-role message of the "
                f"runtime's own that carries what the window dropped ({carried}): a notice "
                "may say turns were left out, not pass them off as the user's words"
            )
        assert not pairing_problems(request), (
            f"the window separated tool calls from their results: {pairing_problems(request)}"
        )
    last = fake.wire.last
    assert last.assistant_texts() == ["High chair added."], (
        "the last request did not show exactly what followed the last two user turns: "
        f"{last.assistant_texts()}"
    )
    assert [c.arguments for m in last.messages for c in m.tool_calls] == [
        {"text": "high chair"},
        {"text": "7pm"},
    ], "the window showed a tool call from a turn outside it, or dropped one inside it"


SUMMARY = "The user booked a table for three on Friday."
COMPACTED = [*COMPACTING_TURNS, "What time was it?"]
ANSWERS = ["Booked.", "Three it is.", "Moved to Saturday.", "At seven."]


@pytest.mark.law("compaction.folded-travels")
@pytest.mark.parametrize("trigger", sorted(COMPACTION_TRIGGERS))
async def test_a_folded_span_travels_with_the_checkpoint(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, trigger: str
) -> None:
    honoured = declaration_of(implementation).compaction_triggers
    if trigger not in honoured:
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}compaction triggered by {trigger}: the implementation "
            f"honours {', '.join(honoured)} (`compaction_triggers`)"
        )
    fake.script(
        [text(a) for a in ANSWERS], name="turns", when=lambda r: not is_summary_call(r, COMPACTED)
    )
    fake.script([text(SUMMARY)], name="summary", when=lambda r: is_summary_call(r, COMPACTED))
    agent = await new_agent(system=SYSTEM, compaction=COMPACTION_TRIGGERS[trigger])
    await agent.run(COMPACTED[0])
    for message in COMPACTED[1:3]:
        await next_turn(agent, implementation, message)
    requests = fake.wire.requests
    folds = [i for i, request in enumerate(requests) if is_summary_call(request, COMPACTED)]
    assert folds, (
        f"compaction (trigger {trigger}) never asked the model for a summary: the fold was "
        "not model-written, or the trigger was not honoured"
    )
    fold = folds[0]
    assert shown_anywhere(requests[fold], BOOK), "the summary call did not show the folded turns"
    after = requests[fold + 1]
    assert shown_anywhere(after, SUMMARY), "the request after the fold did not show the summary"
    assert COMPACTED[0] not in after.user_texts() and "Booked." not in after.assistant_texts(), (
        "the request after the fold still showed the folded turns verbatim"
    )
    checkpoint = roundtrip(await agent.checkpoint())
    # The core, on the wire: the compacted conversation continued on an agent without
    # compaction shows the model the same compacted view (the summary, the kept turns, not
    # the folded ones), whatever shape the runtime's checkpoint has.
    plain = await new_agent(system=SYSTEM)
    await plain.run(COMPACTED[3], continue_from=checkpoint)
    moved = fake.wire.last
    assert shown_anywhere(moved, SUMMARY), (
        "continued on an agent without compaction, the conversation lost its summary: the "
        "folded span did not travel with the checkpoint"
    )
    verbatim = [t for t in moved.user_texts() if SUMMARY not in t]
    kept = verbatim[-2:] == COMPACTED[2:]
    assert kept and COMPACTED[0] not in verbatim and COMPACTED[1] not in verbatim, (
        f"continued elsewhere, the compacted conversation showed the user turns "
        f"{[t[:40] for t in verbatim]}: the folded turns came back, or the kept ones were lost"
    )
