"""examples/conversations.py, the newcomer's first run, works and prints its evidence."""

from __future__ import annotations

import pytest

from examples.conversations import EXPECTED_REQUESTS, main

SECTIONS = [
    "== 1. run(): ONE turn",
    "== 2. follow_up()",
    "== 3. run(continue_from=)",
    "== 4. ConversationMismatchError",
    "== 5. RunInFlightError",
    "== 6. PendingQuestionError",
    "== 7. memory",
]


def section(printed: str, number: int) -> str:
    """The text printed under section `number` (1-based)."""
    start = printed.index(SECTIONS[number - 1])
    end = printed.find("\n== ", start + 1)
    return printed[start : end if end != -1 else None]


async def test_every_door_runs_and_shows_what_the_provider_received(
    capsys: pytest.CaptureFixture[str],
) -> None:
    provider = await main()  # verify() ran inside: leftovers or findings would raise
    printed = capsys.readouterr().out
    assert provider.findings == []
    assert "provider verified" in printed
    assert len(provider.wire.requests) == EXPECTED_REQUESTS == 14
    counts = {f"door-{n}": len(provider.wire.for_model(f"door-{n}")) for n in range(1, 8)}
    assert counts == {f"door-{n}": c for n, c in enumerate([2, 2, 2, 1, 1, 4, 2], 1)}
    positions = [printed.index(title) for title in SECTIONS]
    assert positions == sorted(positions), "the doors print in order"
    assert all(req.stream for req in provider.wire.requests), "streaming, the default"

    # 1. the second run's request holds only its own message
    one_shot = provider.wire.for_model("door-1")
    assert [m.text for m in one_shot[1].messages] == ["Make it three."]
    assert "request #2 · model door-1\n         user: Make it three.\n  notice" in section(
        printed, 1
    )

    # 2. follow_up shows the first answer
    assert provider.wire.for_model("door-2")[1].turns() == [
        ("user", "Book me a table for two on Friday."),
        ("assistant", "Booked: two, Friday."),
        ("user", "Make it three."),
    ]
    assert "assistant: Booked: two, Friday." in section(printed, 2)

    # 3. a new agent continued the stored checkpoint
    continued = provider.wire.for_model("door-3")[1]
    assert continued.turns() == provider.wire.for_model("door-2")[1].turns()
    assert "bytes written, read back" in section(printed, 3)
    assert "assistant: Booked: two, Friday." in section(printed, 3)

    # 4. the mismatch refusal, and nothing sent
    mismatch = section(printed, 4)
    assert "raised ConversationMismatchError" in mismatch
    assert "recorded by agent 'billing', handed to agent" in mismatch
    assert "nothing new (still 7 requests)" in mismatch

    # 5. the in-flight refusal, nothing sent, then the first run completes
    in_flight = section(printed, 5)
    assert "raised RunInFlightError" in in_flight and "already running" in in_flight
    assert "nothing new (still 8 requests)" in in_flight
    assert "the first run answered 'Booked: two, Friday.'" in in_flight

    # 6. pause, refusal, resume with the decision as the tool's result, abandon
    paused = section(printed, 6)
    assert "raised PendingQuestionError" in paused and "issue_refund" in paused
    assert "nothing new (still 9 requests)" in paused
    assert "tool: (result of c7) approved" in paused
    dropped = {
        "tool_name": "issue_refund",
        "tool_call_id": "c9",
        "question": "Approve a refund for order 9?",
    }
    assert f"abandon_pause() -> {dropped}" in paused
    assert "tool: (result of c9) abandoned" in paused
    door_6 = provider.wire.for_model("door-6")
    resumed = [m for m in door_6[1].messages if m.role == "tool"]
    assert [(m.tool_call_id, m.text) for m in resumed] == [("c7", "approved")]
    assert door_6[3].messages[-1].text == "Never mind. When do you open?"

    # 7. recall is inside the system prompt, not message turns
    first, second = provider.wire.for_model("door-7")
    assert "<memory" not in first.system
    assert '<memory role="user" turn="1"' in second.system
    assert [(m.role, m.text) for m in second.messages] == [("user", "Make it three.")]
    memory = section(printed, 7)
    assert '<memory role="user" turn="1"' in memory
    assert memory.index("system:") < memory.index("<memory") < memory.rindex("user:")
