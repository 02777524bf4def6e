"""Identity, session id, memory and door together, in the combinations no single-law test makes:
an explicit identity beside a session id, and runs that name nobody on a memory agent.
"""

from __future__ import annotations

import pytest

from ._kit import (
    BOOK,
    NOT_APPLICABLE_PREFIX,
    SYSTEM,
    THREE,
    AgentFactory,
    Capability,
    IdentitySpec,
    Implementation,
    ScriptedProvider,
    declares,
    premise,
    shown_anywhere,
    text,
    tool_call,
    tool_results,
    whoami_report,
)

pytestmark = pytest.mark.asyncio

WHO = IdentitySpec(conversation_id="conv-combo", tenant="acme", principal="ana")


@pytest.mark.law("memory.namespace-isolation")
async def test_two_runs_that_name_nobody_do_not_share_memory(
    fake: ScriptedProvider, new_agent: AgentFactory
) -> None:
    fake.script([text("Booked."), text("Three it is."), text("Booked."), text("Three what?")])
    named = await new_agent(system=SYSTEM, memory=True)
    await named.run(BOOK, identity=WHO)
    await named.run(THREE, identity=WHO)
    premise(
        "memory.system-block-not-turns",
        shown_anywhere(fake.wire.last, BOOK),
        "memory under one named identity did not recall its earlier turn",
    )
    agent = await new_agent(system=SYSTEM, memory=True)
    await agent.run(BOOK)
    await agent.run(THREE)
    assert not shown_anywhere(fake.wire.last, BOOK), (
        "two runs that named nobody shared memory: each is its own namespace "
        "({ conversationId: '<runId>' }), so the second must not recall the first"
    )


@pytest.mark.law("identity.reaches-tools")
async def test_an_explicit_identity_beside_a_session_id_reaches_tools(
    fake: ScriptedProvider, new_agent: AgentFactory, implementation: Implementation
) -> None:
    if not declares(implementation, Capability.SESSION_ID):
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX}identity.reaches-tools beside a session id needs "
            "the session_id capability"
        )
    fake.script([tool_call("whoami"), text("You are Ana.")])
    agent = await new_agent(tools=("whoami",))
    await agent.run(BOOK, identity=WHO, session_id="session-9")
    told = tool_results(fake.wire.last)
    assert told, "the whoami tool was not run"
    report = whoami_report(told[0]) or {}
    identity = report.get("identity") or {}
    assert identity.get("conversation_id") == WHO.conversation_id, (
        "an identity passed beside a session id did not reach the tool as ctx.identity (the "
        f"session id must not displace it): the tool was told {report}"
    )
