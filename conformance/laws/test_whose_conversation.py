"""Whose conversation is this? Ids decide only when both sides named themselves.

A runtime refuses one agent answering another agent's conversation, and nothing else:
not a conversation recorded or continued by an agent that never named itself (or chose
the default id 'agent'), and not one continued by the same agent after a deploy changed
its prompt, tools or model.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from ._kit import (
    BOOK,
    SAFE_AGENT_ID_PATTERN,
    SYSTEM,
    THREE,
    AgentFactory,
    AgentUnderTest,
    Implementation,
    RefusalKind,
    Refused,
    ScriptedProvider,
    agent_id_fits,
    conversation_shown,
    declared_agent_id_pattern,
    text,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

DEFAULT_ID = "agent"
FIRST_ANSWER = "Booked."
SECOND_ANSWER = "Three it is."
NEW_SYSTEM = "You book tables for two restaurants now. Confirm every change."

AgentId = str | None
"""An agent's id as the suite sets it: None (never chose one), 'agent', or a name."""

_counter = itertools.count()

# Names come from the documented safe alphabet (SAFE_AGENT_ID_PATTERN: letters, digits,
# '-' and '_', a letter first and no separator last), which runtimes with a name grammar
# accept; an implementation that declares `agent_id_pattern` is handed only the names it
# matches. The alphabet is the regex's own: without one, from_regex draws from every
# character utf-8 encodes, which costs a fresh checkout seconds.
NAME_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
NAMES = st.one_of(
    st.sampled_from(["billing", "support", "triage", "Billing"]),
    st.from_regex(SAFE_AGENT_ID_PATTERN, fullmatch=True, alphabet=NAME_CHARACTERS).filter(
        lambda n: n != DEFAULT_ID
    ),
)
IDS: st.SearchStrategy[AgentId] = st.one_of(st.none(), st.just(DEFAULT_ID), NAMES)
DISTINCT_NAMES = st.lists(NAMES, min_size=2, max_size=2, unique=True)
"""Two different names, from a strategy built once: `NAMES.filter(...)` in a draw builds
the regex's strategy again for each example (~20 ms)."""


PASSED_OVER = [
    HealthCheck.function_scoped_fixture,  # as in every profile: fresh fixtures per test
    HealthCheck.too_slow,
    HealthCheck.filter_too_much,  # names a declared agent_id_pattern refuses are skipped
]

UNNAMED: st.SearchStrategy[AgentId] = st.sampled_from([None, DEFAULT_ID])


@st.composite
def two_names(draw: st.DrawFn) -> tuple[AgentId, AgentId]:
    """Both sides named themselves, differently: the one case that is refused. A name that
    differs only in case is another name ('Billing' is not 'billing'): ids decide, and a
    runtime that folds case answers another agent's conversation."""
    recorder, other = draw(DISTINCT_NAMES)
    recased = recorder.swapcase()
    if recased != DEFAULT_ID and draw(st.booleans()):
        return recorder, recased
    return recorder, other


@st.composite
def an_unnamed_side(draw: st.DrawFn) -> tuple[AgentId, AgentId]:
    """At least one side never chose an id, or chose the default: never refused."""
    unnamed, other = draw(UNNAMED), draw(IDS)
    return (unnamed, other) if draw(st.booleans()) else (other, unnamed)


def names_itself(agent_id: AgentId) -> bool:
    """Only a chosen id other than the default is a name."""
    return agent_id is not None and agent_id != DEFAULT_ID


def is_refused(recorder: AgentId, continuer: AgentId) -> bool:
    """The truth table: refuse exactly when both named themselves and the names differ."""
    return names_itself(recorder) and names_itself(continuer) and recorder != continuer


def fresh_model() -> str:
    """A model name of its own, so a script answers only the agent built with it."""
    return f"turnlaw-whose-{next(_counter)}"


class Cast:
    """Builds each example's agents, fresh every time: an agent reused across Hypothesis
    examples would carry one example's conversation into the next, and a runtime whose
    agents keep history (a law of its own, `run.no-history`) would then FAIL this law for
    another law's reason. Recorders and continuers are separate instances, so a
    continuer never holds the conversation it is handed. Each example's agents get a
    model of their own, so its script answers them whatever a leaky runtime shows."""

    def __init__(self, new_agent: AgentFactory, pattern: str | None) -> None:
        self._new_agent = new_agent
        self._pattern = pattern

    def accepts(self, agent_id: AgentId) -> bool:
        """Would the runtime take this id (the safe default and its declared pattern)?"""
        return agent_id is None or agent_id_fits(agent_id, self._pattern)

    async def agent(self, agent_id: AgentId, model: str) -> AgentUnderTest:
        return await self._new_agent(id=agent_id, model=model)


@pytest.fixture
def cast(new_agent: AgentFactory, implementation: Implementation) -> Cast:
    return Cast(new_agent, declared_agent_id_pattern(implementation))


# The truth table is checked by three property tests, one per kind of pair, so that a
# runtime breaking one law does not fail the other: two different names (refused), the
# same name (continues), and a side that never named itself (continues). Each is a
# FAIL, not an ERROR, on its one failure (report_multiple_bugs off); names a declared
# `agent_id_pattern` refuses are passed over, which may filter many (hence the health
# check is off: an implementation without a pattern filters none).


@pytest.mark.law("mismatch.refuses-another-agents-conversation")
@given(pair=two_names())
@settings(report_multiple_bugs=False, suppress_health_check=PASSED_OVER)
@example(pair=("billing", "support"))
@example(pair=("billing", "Billing"))
async def test_an_agent_refuses_another_named_agents_conversation(
    fake: ScriptedProvider, cast: Cast, pair: tuple[AgentId, AgentId]
) -> None:
    await check_pair(fake, cast, pair)


@pytest.mark.law("mismatch.refuses-another-agents-conversation")
@given(name=NAMES)
@settings(report_multiple_bugs=False, suppress_health_check=PASSED_OVER)
@example(name="billing")
async def test_an_agent_continues_its_own_conversation(
    fake: ScriptedProvider, cast: Cast, name: str
) -> None:
    await check_pair(fake, cast, (name, name))


@pytest.mark.law("mismatch.default-id-never-refuses")
@given(pair=an_unnamed_side())
@settings(report_multiple_bugs=False, suppress_health_check=PASSED_OVER)
@example(pair=(None, "support"))
@example(pair=("billing", None))
@example(pair=(DEFAULT_ID, "support"))
@example(pair=("billing", DEFAULT_ID))
@example(pair=(None, None))
async def test_a_side_that_never_named_itself_never_refuses(
    fake: ScriptedProvider, cast: Cast, pair: tuple[AgentId, AgentId]
) -> None:
    await check_pair(fake, cast, pair)


async def check_pair(fake: ScriptedProvider, cast: Cast, pair: tuple[AgentId, AgentId]) -> None:
    """Record a turn with one id, continue it with the other: refused exactly when due."""
    recorder_id, continuer_id = pair
    assume(cast.accepts(recorder_id) and cast.accepts(continuer_id))
    refused = is_refused(recorder_id, continuer_id)
    # A model and a first message of its own keep this example's script apart from the
    # others'. When a refusal is due, the second answer is there only so that a runtime
    # which continues anyway fails on the refusal assertion rather than on an exhausted
    # script.
    opening, model = f"{BOOK} Reference {next(_counter)}.", fresh_model()
    fake.script(
        [text(FIRST_ANSWER), text(SECOND_ANSWER)],
        name=f"pair {recorder_id!r} -> {continuer_id!r}",
        model=model,
        allow_unused=refused,
    )

    recorder = await cast.agent(recorder_id, model)
    await recorder.run(opening)
    conversation = await recorder.checkpoint()
    continuer = await cast.agent(continuer_id, model)
    sent_before = len(fake.wire)

    if refused:
        with pytest.raises(Refused) as raised:
            await continuer.run(THREE, continue_from=conversation)
        assert raised.value.kind is RefusalKind.MISMATCH, (
            f"agent {continuer_id!r} was handed agent {recorder_id!r}'s conversation and "
            f"refused with {raised.value.kind.value}, not as a conversation mismatch"
        )
        assert len(fake.wire) == sent_before, (
            f"agent {continuer_id!r} refused agent {recorder_id!r}'s conversation only after "
            "sending it to the model: a mismatch must be refused before anything is sent"
        )
        return

    try:
        await continuer.run(THREE, continue_from=conversation)
    except Refused as refusal:
        raise AssertionError(
            f"a conversation recorded by agent id {recorder_id!r} was refused when continued "
            f"by agent id {continuer_id!r} ({refusal.kind.value}): ids decide only when both "
            "sides named themselves, and a missing or default ('agent') id is not a name"
        ) from refusal
    # Continued, not refused: the recorded conversation reached the model with the new
    # message last. That it is shown verbatim is conversation.verbatim's to judge.
    request = fake.wire.last
    shown = [said for _, said in conversation_shown(request, [opening, THREE])]
    assert len(fake.wire) > sent_before and opening in shown and shown[-1:] == [THREE], (
        f"agent {continuer_id!r} was not refused agent {recorder_id!r}'s conversation, yet "
        f"did not continue it: the model was shown {shown}"
    )


@pytest.mark.law("mismatch.default-id-never-refuses")
async def test_agents_that_never_chose_an_id_continue_each_others_conversations(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    """The same law for a runtime without named agents: nobody chose an id, nobody refuses."""
    fake.script([text(FIRST_ANSWER), text(SECOND_ANSWER)])
    recorder = await new_agent()
    await recorder.run(BOOK)
    conversation = await recorder.checkpoint()
    continuer = await new_agent()
    try:
        await continuer.run(THREE, continue_from=conversation)
    except Refused as refusal:
        raise AssertionError(
            f"two agents that never chose an id refused each other's conversation "
            f"({refusal.kind.value}): callers who never pass an id are never refused"
        ) from refusal
    shown = [said for _, said in conversation_shown(fake.wire.last, [BOOK, THREE])]
    assert BOOK in shown and shown[-1:] == [THREE], (
        f"two agents that never chose an id: the continuer was not refused, yet did not "
        f"continue the conversation it was handed: the model was shown {shown}"
    )


@pytest.mark.law("mismatch.changed-agent-continues")
async def test_the_same_agent_continues_after_prompt_tools_and_model_changed(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    before_model, after_model = fresh_model(), fresh_model()
    fake.script([text(FIRST_ANSWER)], model=before_model)
    fake.script([text(SECOND_ANSWER)], model=after_model)

    yesterday = await new_agent(id="billing", system=SYSTEM, model=before_model)
    await yesterday.run(BOOK)
    conversation = await yesterday.checkpoint()
    today = await new_agent(id="billing", system=NEW_SYSTEM, model=after_model, tools=("echo",))
    try:
        await today.run(THREE, continue_from=conversation)
    except Refused as refusal:
        raise AssertionError(
            "agent 'billing' refused its own conversation because its prompt, tools and model "
            f"changed ({refusal.kind.value}): a deploy must still continue yesterday's "
            "conversations"
        ) from refusal

    assert len(fake.wire.requests) == 2, "each turn should make exactly one model call"
    first, request = fake.wire.requests
    assert SYSTEM in first.system and "echo" not in {t.name for t in first.tools}
    assert request.model == after_model, (
        f"the continued turn was sent to model {request.model!r}, not the agent's new model "
        f"{after_model!r}: a changed agent continues as it is now"
    )
    assert NEW_SYSTEM in request.system and SYSTEM not in request.system, (
        "the continued turn did not show the agent's new system prompt (or still showed the "
        f"old one): system was {request.system!r}"
    )
    assert "echo" in {t.name for t in request.tools}, (
        "the continued turn did not offer the tool the new deploy added"
    )
    # yesterday's conversation is what its run showed ([BOOK], unless run() carried more)
    assert request.turns() == [*first.turns(), ("assistant", FIRST_ANSWER), ("user", THREE)], (
        "the changed agent did not show yesterday's conversation followed by the new message"
    )
