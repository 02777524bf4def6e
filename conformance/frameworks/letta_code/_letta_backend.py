"""A Letta Code backend: one store (an isolated HOME), its agents and its sessions.

What the SDK's `createAgent` / `createSession` / `resumeSession` put on the CLI's command
line (`buildCliArgs`), plus the flags that keep this adapter's requests small and safe
(`_letta_home.QUIET_FLAGS`, `--backend local`, and `--tools` naming exactly the session's
client tools, so none of the CLI's ~20 built-in tools, Bash among them, is offered or
run). Everything runs in CLI processes of its own, so `killable` changes nothing.
"""

from __future__ import annotations

from typing import Any

from conformance.adapter import BackendSpec, SessionAgentSpec, SessionOptions, StoredMessage

from ._letta_app_server import app_server
from ._letta_events import stored_message
from ._letta_home import PROVIDER, QUIET_FLAGS, LettaHome
from ._letta_session import PAGE, LettaSession, SessionPlan

SYSTEM_PRESETS = (
    "default",
    "letta-claude",
    "letta-codex",
    "letta-gemini",
    "claude",
    "codex",
    "gemini",
)
"""The SDK passes one of these as `--system <preset>`, any other text as `--system-custom`."""


def model_handle(model: str) -> str:
    """The CLI's handle for a model the fake lists: `openai-compatible/<id>`."""
    return f"{PROVIDER}/{model}"


def _stream_json(*target: str) -> list[str]:
    return ["--output-format", "stream-json", "--input-format", "stream-json", *target]


def session_flags(options: SessionOptions) -> list[str]:
    """The session's tools and permission behaviour. Tools needing approval make the
    permission mode `standard` (the CLI asks, `can_use_tool`, for any tool no rule
    allows) with the others allowed by `--allowedTools`; with none, the CLI's default
    mode (`unrestricted`: nothing is asked), which is what the SDK's "default" gives."""
    flags = ["--backend", "local", "--tools", ",".join(options.tools), *QUIET_FLAGS]
    if options.model is not None:
        flags += ["-m", model_handle(options.model)]
    if options.needs_approval:
        flags += ["--permission-mode", "standard"]
        allowed = [name for name in options.tools if name not in options.needs_approval]
        if allowed:
            flags += ["--allowedTools", ",".join(allowed)]
    return flags


class LettaBackend:
    """Implements `BackendUnderTest` for Letta Code's local backend."""

    def __init__(self, home: LettaHome, spec: BackendSpec) -> None:
        self.home = home
        self.spec = spec
        self._sessions: list[LettaSession] = []

    async def _open(self, target: list[str], options: SessionOptions) -> LettaSession:
        plan = SessionPlan(
            args=(*_stream_json(*target), *session_flags(options)),
            options=options,
            base_url=self.spec.base_url,
        )
        session = await LettaSession.open(self.home, plan)
        self._sessions.append(session)
        return session

    async def create_agent(self, spec: SessionAgentSpec) -> str:
        """The SDK's `createAgent`: `--new-agent` with the backend's model, initialize,
        read the agent id, close. With memory blocks, which the SDK would pass as
        `--memory-blocks` (unknown to CLI 0.34.12), the App Server's `agent_create`
        instead: the same local backend's own agent body, `memory_blocks` and all."""
        if spec.memory:
            return await self._create_with_memory(spec)
        target = ["--new-agent", "-m", model_handle(self.spec.model)]
        if spec.system:
            flag = "--system" if spec.system in SYSTEM_PRESETS else "--system-custom"
            target += [flag, spec.system]
        session = await self._open(target, SessionOptions())
        try:
            return session.init.agent_id
        finally:
            await session.close()

    async def _create_with_memory(self, spec: SessionAgentSpec) -> str:
        body: dict[str, Any] = {
            "model": model_handle(self.spec.model),
            "memory_blocks": [
                {"label": label, "value": value} for label, value in spec.memory.items()
            ],
        }
        if spec.system:
            body["system"] = spec.system
        async with app_server(self.home) as server:
            created = await server.request("agent_create", body=body)
        return str(created["agent"]["id"])

    async def create_session(
        self, agent_id: str, options: SessionOptions | None = None
    ) -> LettaSession:
        """The SDK's `createSession(agentId)`: `--agent A --new`."""
        return await self._open(["--agent", agent_id, "--new"], options or SessionOptions())

    async def resume_session(self, id: str, options: SessionOptions | None = None) -> LettaSession:
        """`resumeSession(id)` as the CLI takes it: an agent id (`agent-...`) resumes its
        default conversation (`--agent <id> --conversation default`), any other id is a
        conversation (`--conversation <id>`). SDK 0.1.14 tells the two apart by a `conv-`
        prefix, which the local backend's ids (`local-conv-N`, `default`) never have, so
        through the SDK no local conversation can be resumed by its id at all
        (docs/letta-code.md); the adapter drives the CLI's own flag instead, so that the
        laws resting on a resume judge Letta Code's conversations, not that prefix."""
        target = (
            ["--agent", id, "--conversation", "default"]
            if id.startswith("agent-")
            else ["--conversation", id]
        )
        return await self._open(target, options or SessionOptions())

    async def list_conversations(self, agent_id: str) -> list[str]:
        """`client.conversations.list`: the App Server's `conversation_list` (SDK 0.1.14
        has no conversations API, the CLI no command listing conversations)."""
        async with app_server(self.home) as server:
            listed = await server.request("conversation_list", query={"agent_id": agent_id})
        return [str(c["id"]) for c in listed.get("conversations") or [] if isinstance(c, dict)]

    async def list_messages(self, conversation_id: str) -> list[StoredMessage]:
        """`client.conversations.listMessages`: the App Server's
        `conversation_messages_list`, newest first, page by page, returned oldest first.
        The id is passed as it is: the local backend's "default" names no agent."""
        records: list[Any] = []
        query: dict[str, Any] = {"limit": PAGE, "order": "desc"}
        async with app_server(self.home) as server:
            while True:
                page = await server.request(
                    "conversation_messages_list", conversation_id=conversation_id, query=query
                )
                records.extend(page.get("messages") or [])
                if not (page.get("has_more") and page.get("next_before") and page.get("messages")):
                    break
                query = {**query, "before": page["next_before"]}
        return [stored_message(r) for r in reversed(records) if isinstance(r, dict)]

    async def kill(self) -> None:
        """SIGKILL every CLI process this backend started; the store stays."""
        for session in self._sessions:
            await session.reap()
        self._sessions.clear()

    async def close(self) -> None:
        for session in self._sessions:
            await session.close()
        self._sessions.clear()


__all__ = ["LettaBackend", "model_handle", "session_flags"]
