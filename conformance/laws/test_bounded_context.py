"""A window and compaction together, over a conversation with a tool round in it.

"Bounding what the model is shown is .window() / .compaction()": compaction replaces a
span with a model-written summary, and a window shows the last turns besides it. The
laws' single-feature tests (test_recall.py) never combine them, nor fold a span that
holds tool outcomes, nor ask compaction to keep the originals; these do. Each reads the
wire (what the summary call and the later calls showed) or the checkpoint's `folded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from ._kit import (
    COMPACTING_TURNS,
    COMPACTION_TRIGGERS,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    AgentFactory,
    Capability,
    Implementation,
    RequestIR,
    ScriptedProvider,
    Step,
    declaration_of,
    declares,
    is_summary_call,
    long_turn,
    next_turn,
    pairing_problems,
    premise,
    shown_anywhere,
    strings_in,
    text,
    tool_call,
)

pytestmark = pytest.mark.asyncio

MESSAGES = [*COMPACTING_TURNS, long_turn("Add a high chair.")]
ANSWERS = ["Booked table 7.", "Three it is.", "Moved to Saturday.", "High chair added."]
FOLDED = 2
"""Both triggers fold the first two turns when the third message arrives (the sizes are
test_recall.py's: a tokenizer off by up to 1.9 times trips on the same turn)."""
SUMMARY = "The user booked table 7 for three on Friday."
SERVICE_KEY = "table-availability"
OUTCOME = "Table 7 is free on Friday at 8pm."
"""What the first turn's tool returned: the service's reply (not an argument of the call,
when the runtime offers `call_service`; with only `echo`, the echoed text)."""


@dataclass(frozen=True)
class Played:
    requests: list[RequestIR]
    folds: list[int]
    """Indexes in `requests` of the summary calls."""
    checkpoint: Any


async def play(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    *,
    window: int | None = None,
    keep_originals: bool = False,
) -> Played:
    """Four turns on an agent with compaction (and a window, when given); the first turn
    calls a tool, whose outcome the folded span then holds."""
    honoured = declaration_of(implementation).compaction_triggers
    trigger = "turns" if "turns" in honoured else honoured[0]
    if trigger not in COMPACTION_TRIGGERS:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}no compaction trigger the suite knows: {honoured}")
    if window is not None and not declares(implementation, Capability.WINDOW):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a window needs {Capability.WINDOW.value}")
    if declares(implementation, Capability.CALL_SERVICE):
        fake.service(SERVICE_KEY, reply=OUTCOME)
        tool, call = "call_service", tool_call("call_service", {"key": SERVICE_KEY})
    else:
        tool, call = "echo", tool_call("echo", {"text": OUTCOME})
    # Spare answers: a runtime whose window cuts a turn's calls from their results may
    # send a request the routing takes for another, and the law then judges what each
    # request showed in its own words, not as an exhausted script.
    steps: list[Step] = [call, *(text(answer) for answer in ANSWERS), *[text("Noted.")] * 3]
    fake.script(
        steps, name="turns", when=lambda r: not is_summary_call(r, MESSAGES), allow_unused=True
    )
    fake.script(
        [text(SUMMARY)] * 2,
        name="summary",
        when=lambda r: is_summary_call(r, MESSAGES),
        allow_unused=True,
    )
    compaction = COMPACTION_TRIGGERS[trigger].model_copy(update={"keep_originals": keep_originals})
    agent = await new_agent(system=SYSTEM, tools=(tool,), window=window, compaction=compaction)
    first = await agent.run(MESSAGES[0])
    said = f"the first turn, with its tool round, answered {first.answer!r}"
    if window is None:
        premise("smoke.one-turn", first.answer == ANSWERS[0], said)
    else:  # a window that cuts the turn in progress (counting messages) breaks the window
        assert first.answer == ANSWERS[0], f"with window={window}, {said}: it cut its own turn"
    for message in MESSAGES[1:]:
        await next_turn(agent, implementation, message)
    requests = list(fake.wire.requests)
    folds = [i for i, request in enumerate(requests) if is_summary_call(request, MESSAGES)]
    return Played(requests, folds, await agent.checkpoint())


NO_FOLD = "compaction never asked the model for a summary: the fold was not model-written"


def folded_pieces() -> dict[str, str]:
    """What the folded span said and did, by what it is."""
    return {
        "the first user message": MESSAGES[0],
        "the second user message": MESSAGES[1],
        "the first answer": ANSWERS[0],
        "the second answer": ANSWERS[1],
        "the tool's outcome": OUTCOME,
    }


@pytest.mark.law("compaction.folded-travels")
async def test_the_summary_call_is_shown_the_whole_folded_span(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """A summary stands for the span it folds only if it was written from all of it:
    what each side said and what the tools returned."""
    played = await play(fake, new_agent, implementation)
    assert played.folds, NO_FOLD
    summary_call = played.requests[played.folds[0]]
    missing = [
        what
        for what, said in folded_pieces().items()
        if not shown_anywhere(summary_call, said, in_call_arguments=True)
    ]
    assert not missing, (
        f"the summary call did not show {', '.join(missing)} of the span it folded, so the "
        "summary cannot stand for it (a compacted conversation must stay a provable one)"
    )


@pytest.mark.law("compaction.folded-travels")
async def test_kept_originals_travel_in_folded(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """Asked to keep the originals, the checkpoint is the proof of the span: the turns
    verbatim, wherever the runtime's own shape keeps them (the seed names `folded`)."""
    played = await play(fake, new_agent, implementation, keep_originals=True)
    assert played.folds, NO_FOLD
    recorded = strings_in(played.checkpoint)
    if not any(MESSAGES[-1] in s for s in recorded):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}the runtime's checkpoint keeps no text the suite can "
            "read (not even the last message), so the originals it keeps cannot be read; "
            "what travels is judged on the wire by the other compaction tests"
        )
    assert any(SUMMARY in s for s in recorded), (
        "the checkpoint does not record the summary of the span compaction folded"
    )
    missing = [
        what for what, said in folded_pieces().items() if not any(said in s for s in recorded)
    ]
    assert not missing, (
        f"compaction was asked to keep the originals, yet the checkpoint does not hold "
        f"{', '.join(missing)} of the span it folded: the summary alone proves nothing"
    )


@pytest.mark.law("window.bounds-what-is-shown")
@pytest.mark.parametrize("window", [1, 2])
async def test_a_window_shows_the_summary_besides_the_last_turns(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation, window: int
) -> None:
    """The window bounds the verbatim turns; the summary stands for the folded ones and is
    shown besides the window, or the folded past would be shown as nothing."""
    if not declares(implementation, Capability.COMPACTION):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a summary needs {Capability.COMPACTION.value}")
    played = await play(fake, new_agent, implementation, window=window)
    premise("compaction.folded-travels", bool(played.folds), NO_FOLD)
    after = [
        r for i, r in enumerate(played.requests) if i > played.folds[0] and i not in played.folds
    ]
    premise(
        "compaction.folded-travels",
        bool(after),
        "no model call followed the fold",
    )
    for request in after:
        current = MESSAGES.index(request.user_texts()[-1])
        verbatim = [t for t in request.user_texts() if t in MESSAGES]
        bound = MESSAGES[max(0, current - window + 1) : current + 1]
        assert shown_anywhere(request, SUMMARY, in_call_arguments=True), (
            f"with window={window} and compaction, turn {current + 1} did not show the summary "
            f"of the folded turns: the window dropped it, so the folded past was shown as nothing"
        )
        assert all(t in bound for t in verbatim) and MESSAGES[current] in verbatim, (
            f"with window={window} and compaction, turn {current + 1} showed the user turns "
            f"{[MESSAGES.index(t) + 1 for t in verbatim]} verbatim, not at most the last {window}"
        )
        assert not any(t in verbatim for t in MESSAGES[:FOLDED]), (
            f"turn {current + 1} showed a folded turn verbatim besides its summary"
        )
        assert not pairing_problems(request), (
            f"the window or the fold separated tool calls from their results: "
            f"{pairing_problems(request)}"
        )
