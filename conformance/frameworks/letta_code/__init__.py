"""The suite's adapter for Letta Code (PyPI `letta` 0.34.12): the seed-003 session model.

Load it with `--impl conformance.frameworks.letta_code:implementation` after
`pip install "turnlaw[letta]"`. Letta Code is a wheel holding its own Node and a JS
bundle: the CLI, a headless runtime speaking line-delimited JSON ("stream-json") and a
local backend keeping everything under `$HOME/.letta`. The seed's API is the TypeScript
SDK `@letta-ai/letta-code-sdk` 0.1.14, which spawns that CLI per session; this adapter
does with the CLI's lines what the SDK does (its `buildCliArgs`, `Session.initialize /
send / stream / abort / listMessages / bootstrapState / recoverPendingApprovals / close`,
`transformMessage`, `createAgent / createSession / resumeSession`), translating and
never repairing, so a verdict is about Letta Code. docs/letta-code.md holds the evidence
for every behaviour below, and the cost figures.

The translation
- backend: the store is the CLI's HOME (`_letta_home`); opened with `letta --backend
  local connect openai-compatible --base-url <fake> --api-key <key>`, once per store,
  URL and key. Every process passes `--backend local`.
- create_agent: `--new-agent -m openai-compatible/<model>`, initialize, close (the
  SDK's `createAgent`); `system` is `--system-custom` (or `--system <preset>`). With
  memory blocks, whose SDK flag (`--memory-blocks`) CLI 0.34.12 refuses, Letta Code's
  App Server's `agent_create` (`_letta_app_server`).
- create_session: `--agent A --new`; resume_session: `--agent <id> --conversation
  default` for an agent id (`agent-...`), else `--conversation <id>`. This departs from
  SDK 0.1.14, whose rule (`conv-` prefix: a conversation; anything else: an agent) no
  local conversation id fits (`local-conv-N`, `default`), so through the SDK none could
  be resumed by its id; the CLI's own flag lets every law resting on a resume be judged
  (docs/letta-code.md records the SDK's rule as a finding).
- a session is one CLI process (`_letta_session`): send is a `user` line, abort the
  `interrupt` control request, list_messages / state the `list_messages` /
  `bootstrap_session_state` control requests, client tools `register_external_tools`
  and `execute_external_tool` (`_client_tools`), approvals the CLI's `can_use_tool`
  requests under `--permission-mode standard`, answered by `decide`; break "drop"
  closes both pipes, "kill" SIGKILLs the process group; close is the SDK's (stdin
  ended, SIGTERM).
- list_conversations / list_messages without a session: the App Server's
  `conversation_list` / `conversation_messages_list` (SDK 0.1.14 has no
  `client.conversations`).
- run (agent surface, `_letta_agent`): the SDK's `prompt()`: one turn on a new
  conversation of an agent made for the spec.

Declared: sessions, session_abort, session_state, session_approvals, session_memory,
session_model, session_client_tools, session_drop, session_kill, conversations_api. Not
declared: session_queue_remove (the stream-json protocol has no request removing a
queued message). What Letta Code does under each law, with the evidence, is
docs/letta-code.md.
"""

from __future__ import annotations

from pathlib import Path

from conformance.adapter import (
    AgentSpec,
    BackendSpec,
    Capability,
    Delivery,
)
from conformance.wire.ir import Dialect

from ._letta_agent import LettaAgentUnderTest
from ._letta_backend import LettaBackend
from ._letta_home import LettaHome, LettaInstall
from ._letta_session import LettaSession

INSTALL = LettaInstall.find()


class LettaCodeImplementation:
    """Implements `SessionImplementation` (and the agent surface's `run`)."""

    name = "letta-code"
    version = INSTALL.version
    capabilities = frozenset(
        {
            Capability.SESSIONS,
            Capability.SESSION_ABORT,
            Capability.SESSION_STATE,
            Capability.SESSION_APPROVALS,
            Capability.SESSION_MODEL,
            Capability.SESSION_CLIENT_TOOLS,
            Capability.SESSION_DROP,
            Capability.SESSION_KILL,
            Capability.SESSION_MEMORY,
            Capability.CONVERSATIONS_API,
        }
    )
    dialects = frozenset({Dialect.OPENAI_CHAT})
    deliveries = frozenset({Delivery.STREAM})
    notes = (
        "the local backend (letta --backend local), one CLI process per session, driven "
        "over stream-json as @letta-ai/letta-code-sdk 0.1.14 drives it",
        "every process runs with --tools naming exactly the session's client tools (none "
        "of the CLI's built-in tools is offered) and with the SDK options skillSources [], "
        "systemInfoReminder false, memfsStartup skip, sleeptime trigger off",
        "memory blocks at create_agent and conversations read without a session go "
        "through Letta Code's App Server (letta server --listen): SDK 0.1.14's "
        "--memory-blocks is unknown to CLI 0.34.12 and the SDK has no conversations API",
        "resume_session sends agent ids (agent-...) to --agent A --conversation default and "
        "any other id to --conversation, not SDK 0.1.14's conv- rule, which no local "
        "conversation id (local-conv-N, default) fits",
    )

    async def open_backend(self, spec: BackendSpec) -> LettaBackend:
        if spec.dialect is not Dialect.OPENAI_CHAT:
            raise ValueError(
                f"{spec.dialect.value}: Letta Code's openai-compatible provider speaks "
                "Chat Completions"
            )
        home = LettaHome(INSTALL, Path(spec.store).resolve())
        await home.connect(spec.base_url, spec.api_key)
        return LettaBackend(home, spec)

    async def create_agent(self, spec: AgentSpec) -> LettaAgentUnderTest:
        return await LettaAgentUnderTest.create(INSTALL, spec)


implementation = LettaCodeImplementation()

__all__ = [
    "INSTALL",
    "LettaAgentUnderTest",
    "LettaBackend",
    "LettaCodeImplementation",
    "LettaSession",
    "implementation",
]
