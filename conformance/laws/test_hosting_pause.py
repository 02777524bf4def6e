"""A paused run served as a question a later request can answer.

The pause is a 202 with the question, kept in the store; a message meanwhile is refused
without calling the model, and a decision resumes it as the asking call's result. A host
that lets a second request walk around the question is no consent gate.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ._kit import (
    CONTINUES,
    OUTLASTS_RETRIES,
    UNANSWERED,
    Fault,
    HostClient,
    HostFactory,
    HostOutcome,
    HostReply,
    RequestIR,
    ScriptedProvider,
    assert_said,
    describe,
    fresh,
    premise,
    strings_in,
    text,
    tool_call,
)

pytestmark = pytest.mark.asyncio

REFUND = "Refund order 7."
QUESTION = "Refund order 7 for 40 EUR?"
MEANWHILE = "Never mind, book me a table instead."
DECISION = "yes, refund it"
ASK = tool_call("ask_person", {"question": QUESTION})


def asked_in(reply: HostReply) -> str:
    """The question a 202 (or an SSE `awaiting` event) put to the person."""
    return reply.awaiting.question if reply.awaiting is not None else ""


async def pause(caller: HostClient, session_id: str, *, stream: bool = False) -> HostReply:
    """Open `session_id` with a turn whose ask_person call pauses it."""
    reply = await caller.send(REFUND, session_id=session_id, stream=stream)
    what = f"a {'streamed ' if stream else ''}turn whose ask_person call asked a person"
    assert_said(reply, HostOutcome.PAUSED, what=what)
    assert reply.awaiting is not None and reply.awaiting.question == QUESTION, (
        f"the pause was served as {reply.awaiting}, not asking {QUESTION!r}"
    )
    # The asking tool and the session are said by hosts that say them at all.
    assert reply.awaiting.tool in (None, "ask_person"), (
        f"the pause names the asking tool {reply.awaiting.tool!r}, not ask_person"
    )
    assert reply.awaiting.session_id in (None, session_id), (
        f"the pause names session {reply.awaiting.session_id!r}, not the request's"
    )
    return reply


def decision_shown(request: RequestIR, call_id: str) -> list[str]:
    """What the model was shown as the result of call `call_id`."""
    return [m.text for m in request.messages if m.role == "tool" and m.tool_call_id == call_id]


async def refused_meanwhile(fake: ScriptedProvider, caller: HostClient, session_id: str) -> None:
    """A message while the decision is owed: the model is not called (the core), and it
    is refused as awaiting a decision (409)."""
    sent = len(fake.wire.requests)
    reply = await caller.send(MEANWHILE, session_id=session_id)
    assert len(fake.wire.requests) == sent, (
        f"a message sent while {session_id} awaited a decision reached the model "
        f"({describe(reply)}): the question was walked around"
    )
    assert_said(reply, HostOutcome.DECISION_OWED, what="a message while a decision is owed")


@pytest.mark.law("hosting.pause-served")
async def test_a_pause_survives_a_message_and_a_restart_and_the_decision_is_its_result(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([ASK, text("Refunded.")])
    host = await new_host(tools=("ask_person",))
    session_id = fresh("paused")
    paused = await pause(host.caller(), session_id)
    await refused_meanwhile(fake, host.caller(), session_id)
    stored = await host.caller().read_session(session_id)  # None: the restart shows it
    assert stored is None or (stored.found and QUESTION in strings_in(stored.body)), (
        f"after a message was refused, the stored session no longer holds the question "
        f"({stored.shown if stored else ''}): the pause was discarded"
    )
    await host.kill()
    again = await new_host(store=host.store, tools=("ask_person",))
    await refused_meanwhile(fake, again.caller(), session_id)
    resumed = await again.caller().decide(DECISION, session_id=session_id)
    assert resumed.answered and resumed.output == "Refunded.", (
        f"a decision sent to the restarted host was {describe(resumed)}: the pause did not "
        "survive the restart"
    )
    call_id = paused.awaiting.tool_call_id if paused.awaiting is not None else ""
    shown = decision_shown(fake.wire.last, call_id)
    assert shown and DECISION in shown[0], (
        f"the decision did not reach the model as the result of the asking call "
        f"({call_id}): the model was shown {shown} for it"
    )
    assert fake.wire.last.user_texts() == [REFUND], (
        f"the resumed turn showed {fake.wire.last.user_texts()}: the refused message must "
        "not be part of the conversation"
    )


@pytest.mark.law("hosting.pause-served")
async def test_a_streamed_pause_is_an_awaiting_event_and_a_decision_resumes_it(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([ASK, text("Refunded."), text("Anything else?")])
    host = await new_host(tools=("ask_person",))
    session_id = fresh("paused")
    paused = await pause(host.caller(), session_id, stream=True)
    resumed = await host.caller().decide(DECISION, session_id=session_id, stream=True)
    assert resumed.output == "Refunded.", (
        f"a streamed decision was {describe(resumed)}, not the resumed run's answer"
    )
    call_id = paused.awaiting.tool_call_id if paused.awaiting is not None else ""
    shown = decision_shown(fake.wire.last, call_id)
    assert shown and DECISION in shown[0], (
        f"the decision was not the asking call's result on the wire: {shown}"
    )
    nothing = await host.caller().decide(DECISION, session_id=session_id)
    assert_said(
        nothing, HostOutcome.NOTHING_PAUSED, what="a second decision for a question answered"
    )
    later = await host.caller().send("Thanks.", session_id=session_id)
    premise(CONTINUES, later.answered, f"a turn after the resume was {describe(later)}")
    assert fake.wire.last.turns()[-2:] == [("assistant", "Refunded."), ("user", "Thanks.")], (
        f"the next turn did not continue the resumed run: {fake.wire.last.turns()}"
    )


@pytest.mark.law("hosting.pause-served")
@pytest.mark.parametrize("before", ["a fresh session", "an answered turn"])
async def test_a_decision_with_nothing_paused_is_refused_before_the_model(
    fake: ScriptedProvider, new_host: HostFactory, before: str
) -> None:
    if before == "an answered turn":
        fake.script([text("Booked.")])
    host = await new_host(tools=("ask_person",))
    caller = host.caller()
    session_id = fresh("paused")
    if before == "an answered turn":
        opened = await caller.send("Book me a table.", session_id=session_id)
        premise(CONTINUES, opened.answered, f"the first turn was {describe(opened)}")
    sent = len(fake.wire.requests)
    reply = await caller.decide(DECISION, session_id=session_id)
    assert len(fake.wire.requests) == sent, (
        f"a decision with nothing paused ({before}) reached the model"
    )
    assert_said(
        reply, HostOutcome.NOTHING_PAUSED, what=f"a decision with nothing paused ({before})"
    )


@pytest.mark.law("hosting.pause-served")
async def test_a_pause_without_a_session_id_is_refused_as_not_carried(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    fake.script([ASK, text("Hello.")])
    host = await new_host(tools=("ask_person",))
    caller = host.caller()
    reply = await caller.send(REFUND)
    assert HostOutcome.PAUSED not in reply.said, (
        "a turn with no session id paused and was served as a question no later request "
        f"can answer, with nowhere to carry the pause ({reply.shown})"
    )
    assert_said(
        reply,
        HostOutcome.PAUSE_NOT_CARRIED,
        what="a pause without a session id",
        core=UNANSWERED,
    )
    later = await caller.send("Hello?")
    assert fake.wire.last.user_texts() == ["Hello?"], (
        f"the uncarried pause was stored and continued ({describe(later)}): "
        f"the model was shown {fake.wire.last.user_texts()}"
    )


@pytest.mark.law("hosting.pause-served")
async def test_a_pause_in_one_session_refuses_no_other_session(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """The question is owed in its own session: a host whose agents are shared must not
    let one session's pause refuse (or be answered by) another session's turn."""
    fake.script([ASK, text("Booked."), text("Refunded.")])
    host = await new_host(tools=("ask_person",))
    paused_id, other_id = fresh("paused"), fresh("paused")
    paused = await pause(host.caller(), paused_id)
    other = await host.caller().send("Book me a table.", session_id=other_id)
    assert other.answered and other.output == "Booked.", (
        f"while {paused_id} awaited a decision, a turn of another session was {describe(other)}"
    )
    assert fake.wire.last.user_texts() == ["Book me a table."], (
        f"another session's turn was shown {fake.wire.last.user_texts()}"
    )
    resumed = await host.caller().decide(DECISION, session_id=paused_id)
    call_id = paused.awaiting.tool_call_id if paused.awaiting is not None else ""
    assert resumed.output == "Refunded." and decision_shown(fake.wire.last, call_id), (
        f"the pause did not survive another session's turn: the decision was {describe(resumed)}"
    )


@pytest.mark.law("hosting.pause-served")
async def test_a_decision_whose_run_fails_leaves_the_question_owed(
    fake: ScriptedProvider, new_host: HostFactory
) -> None:
    """A resumed run that failed at the model did not answer the question: the session
    keeps the pause, and a later decision still resumes it."""
    failing, retried = "yes (first try)", "yes (second try)"

    def answers_with(decision: str) -> Callable[[RequestIR], bool]:
        return lambda request: any(
            m.role == "tool" and decision in m.text for m in request.messages
        )

    fake.script(
        [Fault(status=500)] * OUTLASTS_RETRIES, when=answers_with(failing), allow_unused=True
    )
    fake.script([ASK, text("Refunded.")])
    host = await new_host(tools=("ask_person",))
    session_id = fresh("paused")
    paused = await pause(host.caller(), session_id)
    failed = await host.caller().decide(failing, session_id=session_id)
    premise(
        CONTINUES,
        bool(failed.said & UNANSWERED),
        f"every model call of the resumed run failed, yet it was {describe(failed)}",
    )
    resumed = await host.caller().decide(retried, session_id=session_id)
    call_id = paused.awaiting.tool_call_id if paused.awaiting is not None else ""
    shown = decision_shown(fake.wire.last, call_id)
    assert resumed.answered and shown and retried in shown[0], (
        f"after a resumed run failed, a second decision was {describe(resumed)} (the model "
        f"was shown {shown} for the asking call): a failed run must leave the question owed"
    )
    assert_said(
        failed,
        HostOutcome.RUN_FAILED,
        what="a resumed run that failed at the model",
        core=UNANSWERED,
    )
