"""The ids a session exposes, and what they look like (seed 003, its opening section).

"Sessions expose read-only `agentId`, `conversationId`, and `sessionId` values once the
backend resolves them (`sessionId` is `"<agentId>:<conversationId>"`)." The agent id is
the one `createAgent` returned; sessions on one conversation report the same
conversation id and sessions on different ones different ids; the session id is the two
joined by a colon. "Agent IDs look like `agent-xxx` … Conversation IDs look like
`conv-xxx`" is the SHOULD of the ids' shapes.
"""

from __future__ import annotations

import pytest

from ._kit import BackendFactory, SessionAgentSpec, SessionIds, open_new, open_resumed

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio


async def three_sessions(new_backend: BackendFactory) -> tuple[str, list[tuple[str, SessionIds]]]:
    """An agent, and the ids of three sessions on it: two resumed from the agent id (one
    conversation) and one created (another). No turn is needed: ids are resolved by the
    backend, and a session that needs a turn to resolve them resolves them in `ids()`."""
    backend = await new_backend()
    agent_id = await backend.create_agent(SessionAgentSpec())
    opened = []
    for how in ("resume_session(agent_id)", "create_session(agent_id)", "resume again"):
        if how.startswith("create"):
            session = await open_new(backend, agent_id)
        else:
            session = await open_resumed(backend, agent_id, by="agent")
        opened.append((how, await session.ids()))
        await session.close()
    return agent_id, opened


@pytest.mark.law("session.ids")
async def test_a_session_exposes_its_agent_its_conversation_and_both_as_its_id(
    new_backend: BackendFactory,
) -> None:
    agent_id, opened = await three_sessions(new_backend)
    for how, ids in opened:
        assert ids.agent_id == agent_id, (
            f"a session opened by {how} exposes agent id {ids.agent_id!r}, not the agent's "
            f"{agent_id!r} that create_agent returned"
        )
        assert ids.conversation_id, f"a session opened by {how} exposes no conversation id"
    (_, default), (_, created), (_, default_again) = opened
    assert default.conversation_id == default_again.conversation_id, (
        f"two sessions on the agent's default conversation expose different conversation "
        f"ids: {default.conversation_id!r} and {default_again.conversation_id!r}"
    )
    assert created.conversation_id != default.conversation_id, (
        f"a created session and the default conversation expose one conversation id "
        f"{created.conversation_id!r}"
    )
    wrong = [
        f"{how}: {ids.session_id!r}, not {f'{ids.agent_id}:{ids.conversation_id}'!r}"
        for how, ids in opened
        if ids.session_id != f"{ids.agent_id}:{ids.conversation_id}"
    ]
    assert not wrong, (
        'sessionId is "<agentId>:<conversationId>" (a detail of the law), but:\n' + "\n".join(wrong)
    )


@pytest.mark.law("session.id-shapes")
async def test_agent_ids_look_like_agents_and_conversation_ids_like_conversations(
    new_backend: BackendFactory,
) -> None:
    agent_id, opened = await three_sessions(new_backend)
    assert agent_id.startswith("agent-"), f"agent id {agent_id!r} does not look like agent-xxx"
    wrong = [
        f"{how}: {ids.conversation_id!r}"
        for how, ids in opened
        if not ids.conversation_id.startswith("conv-")
    ]
    assert not wrong, "conversation ids that do not look like conv-xxx:\n" + "\n".join(wrong)
