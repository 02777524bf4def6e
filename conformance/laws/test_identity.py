"""The identity ladder, and what a tool is told.

A run's namespace is the identity passed to the call, else the one the continued
conversation carries, else {conversation_id: session id}, else {conversation_id: run id};
a tool sees `identity` only for the named ones, and always the session id.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    THREE,
    AgentFactory,
    Capability,
    IdentitySpec,
    Implementation,
    LawViolation,
    RequestIR,
    ScriptedProvider,
    premise,
    text,
    tool_call,
    whoami_report,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

Source = Literal["explicit", "carried", "session", "run"]

EXPLICIT = IdentitySpec(conversation_id="c-explicit", tenant="acme", principal="ana")
CARRIED = IdentitySpec(conversation_id="c-carried", tenant="acme", principal="bo")
RECORDING_SESSION = "s-recorded"
SESSION = "s-continued"
DONE = "Done."

CASES = list(itertools.product((None, EXPLICIT), (None, CARRIED), (None, SESSION)))


def case_id(case: tuple[IdentitySpec | None, IdentitySpec | None, str | None]) -> str:
    explicit, carried, session = case
    return "-".join(
        (
            "explicit" if explicit else "no_explicit",
            "carried" if carried else "nothing_carried",
            "session" if session else "no_session",
        )
    )


def expected_source(
    explicit: IdentitySpec | None, carried: IdentitySpec | None, session: str | None
) -> Source:
    """The ladder: a named identity (passed, then carried), then the session, then the run."""
    if explicit is not None:
        return "explicit"
    if carried is not None:
        return "carried"
    if session is not None:
        return "session"
    return "run"


def whoami_result(request: RequestIR, call_id: str) -> dict[str, Any]:
    """The `whoami` tool result the model was shown, parsed."""
    results = [m for m in request.messages if m.role == "tool" and m.tool_call_id == call_id]
    assert len(results) == 1, (
        f"the model was shown {len(results)} results for the whoami call {call_id!r}, not one"
    )
    shown = whoami_report(results[0].text)
    assert shown is not None, (
        f"whoami returned {results[0].text!r}, not {{'identity': ..., 'session_id': ...}}"
    )
    return shown


def named(identity: Any) -> Any:
    """An identity as a tool saw it, without the fields nobody set."""
    if isinstance(identity, dict):
        return {key: value for key, value in identity.items() if value is not None}
    return identity


LADDER, SYNTHESIZED, REACHES_TOOLS = (
    "identity.ladder",
    "identity.synthesized-not-published",
    "identity.reaches-tools",
)
CONTINUES = "continue-from.any-conversation"


# The three laws as literals too: docs/laws.md reads markers from source.
@pytest.mark.law("identity.ladder", "identity.synthesized-not-published", "identity.reaches-tools")
@pytest.mark.parametrize(("explicit", "carried", "session"), CASES, ids=map(case_id, CASES))
async def test_the_ladder_decides_the_identity_and_tools_see_only_named_ones(
    fake: ScriptedProvider,
    new_agent: AgentFactory,
    implementation: Implementation,
    explicit: IdentitySpec | None,
    carried: IdentitySpec | None,
    session: str | None,
) -> None:
    if Capability.CONTINUE_FROM not in implementation.capabilities:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}every identity case continues a conversation")
    fake.script([text("Noted."), tool_call("whoami"), text(DONE)])

    recorder = await new_agent()
    if carried is not None:
        await recorder.run(BOOK, identity=carried)
    else:
        await recorder.run(BOOK, session_id=RECORDING_SESSION)
    conversation = await recorder.checkpoint()

    agent = await new_agent(tools=("whoami",))
    outcome = await agent.run(
        THREE, continue_from=conversation, identity=explicit, session_id=session
    )
    # The set-up: a recorded conversation continued on another agent, to its answer. That
    # is continue-from.any-conversation's statement; its own tests judge it.
    premise(
        CONTINUES,
        outcome.answer == DONE and len(fake.wire.requests) == 3,
        f"the continued turn answered {outcome.answer!r} after {len(fake.wire.requests)} "
        "model requests (record one turn, then a whoami call and its answer)",
    )

    source = expected_source(explicit, carried, session)

    # Which rung the runtime chose first (the ladder), then what its tool was told: each
    # check fails as the one law it judges (LawViolation), so a runtime that publishes a
    # synthesized namespace is not also charged with a wrong ladder.
    report = await agent.last_identity()
    if report is None:
        raise LawViolation(LADDER, "the runtime reported no identity for the run it just made")
    if report.source != source:
        raise LawViolation(
            LADDER,
            f"the identity ladder picked {report.source!r} where it should pick {source!r} "
            f"(explicit={explicit is not None}, carried={carried is not None}, "
            f"session={session is not None})",
        )
    namespace = {"explicit": EXPLICIT.conversation_id, "carried": CARRIED.conversation_id}
    if source in namespace and report.conversation_id != namespace[source]:
        raise LawViolation(
            LADDER,
            f"the run's identity is {source}, so its namespace is {namespace[source]!r}, "
            f"not {report.conversation_id!r}",
        )
    if source == "session" and report.conversation_id != SESSION:
        raise LawViolation(
            LADDER, f"a session run's namespace is {report.conversation_id!r}, not the session id"
        )
    if source == "run" and report.conversation_id in (SESSION, RECORDING_SESSION):
        raise LawViolation(
            LADDER, "a run with no identity and no session took a session id as its namespace"
        )

    request = fake.wire.last
    calls = [c for m in request.messages for c in m.tool_calls if c.name == "whoami"]
    assert len(calls) == 1, f"the model was shown {len(calls)} whoami calls, not the one it made"
    shown = whoami_result(request, calls[0].id)
    if source in ("explicit", "carried"):
        given = explicit if explicit is not None else carried
        assert given is not None
        expected = given.model_dump(exclude_none=True)
        if named(shown["identity"]) != expected:
            raise LawViolation(
                REACHES_TOOLS,
                f"the run's identity was {source} ({expected}), but the tool was told "
                f"{shown['identity']!r}: a named identity must reach tools as ctx.identity",
            )
    elif shown["identity"] is not None:
        raise LawViolation(
            SYNTHESIZED,
            f"nobody named an identity (the namespace is synthesized from the {source}), yet "
            f"the tool was told {shown['identity']!r}: a synthesized namespace is never "
            "published, absent must keep meaning 'nobody named one'",
        )
    if shown["session_id"] != session:
        raise LawViolation(
            SYNTHESIZED,  # its quote: "A tool that wants the session has ctx.sessionId."
            f"the run's session id was {session!r}, but the tool was told {shown['session_id']!r}",
        )


def this_runs_whoami(request: RequestIR) -> dict[str, Any]:
    """The result of the last whoami call shown: the one this run's model made."""
    calls = [c for m in request.messages for c in m.tool_calls if c.name == "whoami"]
    assert calls, "the model was shown no whoami call, not the one it made"
    return whoami_result(request, calls[-1].id)


def only_whoami(request: RequestIR) -> dict[str, Any]:
    calls = [c for m in request.messages for c in m.tool_calls if c.name == "whoami"]
    assert len(calls) == 1, f"the model was shown {len(calls)} whoami calls, not the one it made"
    return whoami_result(request, calls[0].id)


# The two laws below are also judged by the ladder above, which needs a runtime with
# sessions and an identity report; these need only what each law needs, so a runtime
# without those still gets a verdict on them.


@pytest.mark.law("identity.reaches-tools")
async def test_an_identity_passed_to_the_run_reaches_its_tools(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([tool_call("whoami"), text(DONE)])
    agent = await new_agent(tools=("whoami",))
    outcome = await agent.run(BOOK, identity=EXPLICIT)
    assert outcome.answer == DONE, f"the run answered {outcome.answer!r}"
    shown = only_whoami(fake.wire.last)
    assert named(shown["identity"]) == EXPLICIT.model_dump(exclude_none=True), (
        f"the run was given the identity {EXPLICIT.model_dump(exclude_none=True)}, but its "
        f"tool was told {shown['identity']!r}: a named identity must reach tools"
    )


@pytest.mark.law("identity.synthesized-not-published")
async def test_tools_are_told_no_identity_when_nobody_named_one(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    sessions = Capability.SESSION_ID in implementation.capabilities
    fake.script([tool_call("whoami"), text(DONE), tool_call("whoami"), text(DONE)])
    agent = await new_agent(tools=("whoami",))
    await agent.run(BOOK)
    shown = only_whoami(fake.wire.last)
    assert shown["identity"] is None, (
        f"nobody named an identity, yet the tool was told {shown['identity']!r}: a namespace "
        "the runtime made up is never published as the identity"
    )
    if sessions:
        await agent.run(THREE, session_id=SESSION)
        # This run's own whoami call is the last one shown, whatever else the request
        # carried (an earlier run carried along is run.no-history's to judge).
        shown = this_runs_whoami(fake.wire.last)
        assert shown["identity"] is None, (
            f"a run in session {SESSION!r} with no identity told its tool "
            f"{shown['identity']!r}: the session's namespace is synthesized, never published"
        )
    else:
        fake.allow_unused()


@pytest.mark.law("follow-up.is-continue-from-checkpoint")
async def test_a_follow_up_of_a_session_run_is_told_what_continue_from_is_told(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    """followUp(message) is run({ message, continueFrom: this.checkpoint() }) and nothing
    else, and that run names no session: a follow-up of a session's run carries the
    session only if the checkpoint does, so both doors tell their tool the same."""
    if Capability.SESSION_ID not in implementation.capabilities:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX}a session's run needs session_id")
    fake.script([text("Noted."), tool_call("whoami"), text(DONE)] * 2)
    told: dict[str, dict[str, Any]] = {}
    for door in ("run(continue_from=checkpoint())", "follow_up"):
        agent = await new_agent(tools=("whoami",))
        await agent.run(BOOK, session_id=SESSION)
        if door == "follow_up":
            outcome = await agent.follow_up(THREE)
        else:
            outcome = await agent.run(THREE, continue_from=await agent.checkpoint())
        premise(  # continuing at all is each door's own law; this one compares them
            "follow-up.shows-last-answer" if door == "follow_up" else CONTINUES,
            outcome.answer == DONE and fake.wire.last.user_texts()[-1:] == [THREE],
            f"{door} after a session's run answered {outcome.answer!r}",
        )
        told[door] = only_whoami(fake.wire.last)
    mechanism, sugar = told["run(continue_from=checkpoint())"], told["follow_up"]
    assert sugar == mechanism, (
        f"after a run in session {SESSION!r}, follow_up told its tool {sugar} where "
        f"run(continue_from=checkpoint()) told it {mechanism}: the convenience drifted from "
        "the mechanism (a follow-up passes no session id the continue-from run would not)"
    )
