"""The resume door beyond the first turn: a pause raised on a follow-up, a batch where the
question is one call of several, a resumed turn whose model then calls another tool, and
the rules every door keeps (whose conversation, whose identity) kept through resume.

The older tests paused on a run's first turn with the question last in its batch, so a
runtime that resumed only the paused turn, or ran the batch's other calls wrongly, passed.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    AgentFactory,
    Capability,
    IdentitySpec,
    Implementation,
    LawViolation,
    RefusalKind,
    Refused,
    RequestIR,
    RunFailed,
    ScriptedProvider,
    Step,
    answers_to,
    declares,
    holds_output,
    parallel_calls,
    premise,
    roundtrip,
    text,
    tool_call,
    untyped,
)

pytestmark = pytest.mark.asyncio

REFUND = "Refund order 7, please."
QUESTION = "Approve a refund for order 7?"
WHO = IdentitySpec(conversation_id="conv-resume", tenant="acme", principal="ana")
SESSION = "s-resumed"
RESUMES = "pending.resume-continues"
UNASKED = "Approved, though nobody asked (decision 41)."


def results(request: RequestIR) -> dict[str, str]:
    return {m.tool_call_id or "": m.text for m in request.messages if m.role == "tool"}


def needs(implementation: Implementation, capability: Capability, law: str) -> None:
    """This test also needs `capability`, which its law's registry entry does not."""
    if not declares(implementation, capability):
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}{law} through resume needs {capability}")


@pytest.mark.law("pending.resume-continues")
async def test_a_pause_on_a_follow_up_resumes_the_whole_conversation(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    needs(implementation, Capability.FOLLOW_UP, "pending.resume-continues")
    fake.script(
        [
            text("Booked."),
            tool_call("ask_person", {"question": QUESTION}),
            text("Refund approved."),
        ]
    )
    agent = await new_agent(tools=("ask_person",))
    await agent.run(BOOK)
    paused = await agent.follow_up(REFUND)
    assert paused.paused is not None, "a follow-up whose tool asked a person did not pause"
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refund approved.", "resume did not carry the paused run on"
    resumed = fake.wire.last
    assert resumed.user_texts() == [BOOK, REFUND], (
        "resuming a pause raised on a follow-up did not continue the whole conversation: "
        f"the model was shown the user turns {resumed.user_texts()}, not the earlier turn "
        "and the paused one"
    )
    assert ("assistant", "Booked.") in resumed.turns(), (
        "resuming a pause raised on a follow-up dropped the earlier turn's answer"
    )
    assert holds_output(results(resumed).get(paused.paused.tool_call_id, ""), "approved"), (
        "the decision was not the asking call's result"
    )


@pytest.mark.law("pending.resume-continues")
async def test_the_question_first_in_a_batch_lets_the_rest_run_once(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script(
        [
            parallel_calls(
                ("ask_person", {"question": QUESTION}),
                ("echo", {"text": "order 7"}),
                ("echo", {"text": "order 8"}),
            ),
            text("Refund approved for orders 7 and 8."),
        ]
    )
    agent = await new_agent(tools=("echo", "ask_person"))
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a batch with ask_person in it did not pause"
    await agent.resume(paused.checkpoint, "approved")
    resumed = fake.wire.last
    calls = [c.id for m in resumed.messages for c in m.tool_calls]
    shown = results(resumed)
    assert len(calls) == 3 and set(answers_to(resumed)) == set(calls), (
        f"after resume not every call of the batch was answered: calls {calls}, results {shown}"
    )
    twice = {call: n for call, n in answers_to(resumed).items() if n > 1}
    assert not twice, f"resume answered a call of the batch more than once: {twice}"
    assert holds_output(shown.get(paused.paused.tool_call_id, ""), "approved"), (
        "the decision was not the asking call's result"
    )
    echoed = sorted(v for k, v in shown.items() if k != paused.paused.tool_call_id)
    assert all("order" in v for v in echoed), (
        f"the calls after the question did not run after resume: their results were {echoed}"
    )


@pytest.mark.law("pending.resume-continues")
async def test_a_resumed_turn_whose_model_calls_another_tool_keeps_both_rounds(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script(
        [
            tool_call("ask_person", {"question": QUESTION}),
            tool_call("echo", {"text": "refund 7 filed"}),
            text("Refund filed."),
        ]
    )
    agent = await new_agent(tools=("echo", "ask_person"))
    paused = await agent.run(REFUND)
    assert paused.paused is not None, "a run whose tool asked a person did not pause"
    done = await agent.resume(paused.checkpoint, "approved")
    assert done.answer == "Refund filed." and len(fake.wire.requests) == 3, (
        "a resumed turn whose model called another tool did not run it and go on"
    )
    last = fake.wire.last
    shown = results(last)
    assert (
        holds_output(shown.get(paused.paused.tool_call_id, ""), "approved") and len(shown) == 2
    ), (
        "after the resumed turn's second tool round the model no longer saw the decision "
        f"and both results: {shown}"
    )
    assert last.user_texts() == [REFUND], "resume added a user turn"


@pytest.mark.law("mismatch.refuses-another-agents-conversation")
async def test_resume_refuses_another_named_agents_pause(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    needs(implementation, Capability.PAUSE, "mismatch.refuses-another-agents-conversation")
    fake.script(
        [tool_call("ask_person", {"question": QUESTION}), text("Approved.")], allow_unused=True
    )
    billing = await new_agent(id="billing", tools=("ask_person",))
    paused = await billing.run(REFUND)
    premise("pending.resume-continues", paused.paused is not None, "the run did not pause")
    support = await new_agent(id="support", tools=("ask_person",))
    with pytest.raises(Refused) as raised:
        await support.resume(roundtrip(paused.checkpoint), "approved")
    assert len(fake.wire.requests) == 1, (
        "agent 'support' resumed agent 'billing''s paused conversation: resume must refuse "
        "another named agent's conversation like every other door"
    )
    assert raised.value.kind is RefusalKind.MISMATCH, (
        f"resuming another named agent's pause was refused as {raised.value.kind}, "
        "not as a mismatch"
    )


@pytest.mark.law("checkpoint.carries-identity")
async def test_a_pause_resumed_on_another_agent_runs_under_its_identity(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    needs(implementation, Capability.PAUSE, "checkpoint.carries-identity")
    fake.script(
        [
            tool_call("ask_person", {"question": QUESTION}),
            tool_call("whoami"),
            text("Done."),
        ]
    )
    first = await new_agent(tools=("ask_person", "whoami"))
    paused = await first.run(REFUND, identity=WHO)
    premise("pending.resume-continues", paused.paused is not None, "the run did not pause")
    asking = paused.paused.tool_call_id if paused.paused is not None else ""
    other = await new_agent(tools=("ask_person", "whoami"))
    await other.resume(roundtrip(paused.checkpoint), "approved")
    told = [r for k, r in results(fake.wire.last).items() if k != asking]
    assert told and WHO.conversation_id in told[0] and "acme" in told[0], (
        "a paused conversation resumed on another agent did not run under the identity it "
        f"carries: its tool was told {told}"
    )


# Checkpoints that ask nobody anything: a finished turn, a question dropped, a question
# already answered (the resumed run's own checkpoint).
UNPAUSED = ("a completed run", "an abandoned pause", "an answered pause")


@pytest.mark.law("pending.resume-continues")
@pytest.mark.parametrize("source", UNPAUSED)
async def test_resume_of_a_checkpoint_that_asks_nothing_answers_nothing(
    fake: ScriptedProvider, new_agent: AgentFactory, source: str
) -> None:
    """resume answers a paused run's question; a checkpoint with none has nothing for the
    decision to answer. The seed leaves open whether a runtime refuses or carries the
    conversation on, so either passes; what fails is the door crashing (neither a
    refusal nor a run), or the decision reaching the model as if somebody had asked."""
    asking = tool_call("ask_person", {"question": QUESTION})
    steps: list[Step] = [text("Booked.")] if source == UNPAUSED[0] else [asking]
    if source == UNPAUSED[2]:
        steps.append(text("Refund approved."))
    fake.script([*steps, text("Anything else?")], allow_unused=True)
    agent = await new_agent(tools=("ask_person",))
    if source == UNPAUSED[0]:
        handed = (await agent.run(BOOK)).checkpoint
    else:
        paused = await agent.run(REFUND)
        assert paused.paused is not None, "a run whose tool asked a person did not pause"
        if source == UNPAUSED[1]:
            premise(
                "pending.abandon-returns-dropped",
                await agent.abandon_pause() is not None,
                "abandon_pause() with a question pending dropped nothing",
            )
            handed = await agent.checkpoint()
        else:
            done = await agent.resume(paused.checkpoint, "approved")
            assert done.answer == "Refund approved.", "resume did not carry the paused run on"
            handed = done.checkpoint
    sent = len(fake.wire.requests)
    try:
        await agent.resume(roundtrip(handed), UNASKED)
    except (Refused, RunFailed):
        pass
    except Exception as error:
        if not untyped(error):
            raise  # the harness's own failure: an ERROR, never this law's FAIL
        raise AssertionError(
            f"resuming {source}'s checkpoint, which asks nothing, crashed with "
            f"{type(error).__name__} (neither a refusal nor a run): {str(error)[:200]}"
        ) from error
    shown = [m.text for r in fake.wire.requests[sent:] for m in r.messages if UNASKED in m.text]
    assert not shown, (
        f"resuming {source}'s checkpoint, which asks nothing, showed the model the decision "
        f"{UNASKED!r} as if a question had been asked: {shown}"
    )


@pytest.mark.law("identity.ladder")
async def test_a_paused_session_resumes_under_the_session(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """A host passes the session id on every run and resume: a resumed turn of a session
    that named no identity takes the session rung, as its paused run did."""
    needs(implementation, Capability.PAUSE, "identity.ladder")
    fake.script(
        [tool_call("ask_person", {"question": QUESTION}), tool_call("whoami"), text("Done.")]
    )
    first = await new_agent(tools=("ask_person", "whoami"))
    paused = await first.run(REFUND, session_id=SESSION)
    premise(RESUMES, paused.paused is not None, "the run did not pause")
    host = await new_agent(tools=("ask_person", "whoami"))  # a host hydrating the session
    done = await host.resume(roundtrip(paused.checkpoint), "approved", session_id=SESSION)
    premise(RESUMES, done.answer == "Done.", f"the resumed run answered {done.answer!r}")
    report = await host.last_identity()
    if report is None or (report.source, report.conversation_id) != ("session", SESSION):
        said = None if report is None else (report.source, report.conversation_id)
        raise LawViolation(
            "identity.ladder",
            f"a paused run of session {SESSION!r} (no identity named) was resumed with its "
            f"session id, yet the resumed turn's identity was {said}, not the session rung "
            f"{('session', SESSION)}",
        )
