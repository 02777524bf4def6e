"""The suite's adapter for openai-agents (the OpenAI Agents SDK), pinned to 0.24.0.

Load it with `--impl conformance.adapters.openai_agents:implementation`; the SDK is
imported only then. It translates, it never repairs: each suite call becomes a call of
the SDK's own API, and nothing here adds a lock, a name check or a pause guard the SDK
lacks. Expected failures, with what the wire showed: expectations/openai-agents.toml.

The translation
- Agent: one `agents.Agent` per spec, `name=` the spec's id (the SDK requires a name; a
  spec without one gets "agent", the suite's default id, which means nothing to the SDK),
  `instructions=` the system prompt, `model=OpenAIResponsesModel` on the official
  `openai.AsyncOpenAI` client pointed at the fake over loopback HTTP. Responses is the
  SDK's default API. Its server-side history (`conversation_id=`, `previous_response_id=`)
  is never used. Tracing is off (`set_tracing_disabled(True)`), its only export.
- run(m): `Runner.run(agent, m, context={"identity": ...})`.
- checkpoint: a completed run's `RunResult.to_input_list()` (the SDK's JSON history, as
  returned); a paused run's `RunResult.to_state().to_json()` (the SDK's `RunState` JSON,
  which holds the pending approvals and the run context).
- run(m, continue_from=items): the SDK's documented manual continuation,
  `Runner.run(agent, items + [{"role": "user", "content": m}])`. continue_from a
  `RunState` JSON: `RunState.from_json(agent, ...)`, `state.add_input(m)`,
  `Runner.run(agent, state)`.
- follow_up(m): the SDK has no follow-up door; its manual pattern continues the last
  `RunResult`, so the adapter keeps the last run's checkpoint and follow_up is literally
  `run(m, continue_from=checkpoint())`. Before any run there is no `RunResult` to
  continue, and that absence is reported as NO_CONVERSATION.
- identity: the SDK's run context, which it hands to tools (`ToolContext.context`).
- tools: `echo` and `whoami` are `function_tool`s; `ask_person` is
  `function_tool(needs_approval=True)`, so the model's call ends the run with
  `RunResult.interruptions`. resume(checkpoint, decision): `RunState.from_json`,
  `state.approve(...)`, `Runner.run(agent, state)`; the approved tool returns the decision.
  abandon_pause(): `state.reject(...)` on the held state's undecided calls (the SDK then
  sends its own "Tool execution was not approved." as their result); a call the state
  already records as decided is not dropped again.
- refusals: `RunState.from_json` refusing a state whose agent is not in the continuing
  agent's map ("Run state agent not found in agent map") is MISMATCH; any other state it
  cannot restore is INVALID_CHECKPOINT.

Law by law (declared capabilities first)
- smoke.one-turn, run.no-history: `Runner.run` with a string. PASS.
- run.conversation-id-does-not-join (identity): the identity is run context, not the SDK's
  `conversation_id`. PASS.
- follow-up.shows-last-answer (follow_up): judges `to_input_list()` as the continuation,
  final answer included. PASS.
- follow-up.is-continue-from-checkpoint, follow-up.refuses-before-first-run (follow_up,
  continue_from): hold by the adapter's construction above, not by an SDK door; the first
  fails only on the harness's id normalization (see the manifest).
- continue-from.any-conversation, checkpoint.plain-json, checkpoint.final-answer,
  checkpoint.no-trim (continue_from): `to_input_list()` round-tripped through JSON. PASS.
- checkpoint.carries-identity (identity, tool_context): `to_input_list()` holds model items
  only, so the run context stays behind. FAIL.
- mismatch.* (named_agents: names are mandatory in the SDK): only `RunState` checks
  names; `to_input_list()` carries none, so another named agent continues it. FAIL
  (default-id-never-refuses only through the Hypothesis test it shares);
  changed-agent-continues PASS.
- in-flight.* (in_flight_guard): declared because the law is expressible with the SDK's
  API alone; the SDK runs an Agent, and even one session, twice at once by design. FAIL.
- pending.refuses-new-message (pause): a new `Runner.run` is sent; `add_input` on the
  paused state is accepted and staged. FAIL. pending.resume-continues,
  pending.abandon-returns-dropped: `approve` / `reject` on the `RunState`. PASS.
- identity.ladder, identity.synthesized-not-published, identity.reaches-tools: not
  applicable, `identity_report` left out: the SDK has no identity ladder, and a reported
  source would be the adapter's invention (the three laws share one test).
- `session_id` left out: an SDK `Session` is a stored history that a run replays, not a
  label a run hands its tools; every law needing it also needs `identity_report` or
  `memory`.
- memory.*: `memory` left out: no recall into the system prompt in the SDK.
- window.*, compaction.*: left out: no turn window; the SDK's compaction session relies on
  the server-side Responses compaction endpoint.
- self-explain.*: `self_explain` left out: the SDK's tracing exports spans; it does not
  answer the model about its own runs.
- hosting.* (no tests yet): `hosting` left out; the SDK's sessions (`SQLiteSession`) are
  what those laws would map onto.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

import openai
from agents import (
    Agent,
    FunctionTool,
    OpenAIResponsesModel,
    RunContextWrapper,
    Runner,
    RunState,
    function_tool,
    set_tracing_disabled,
)
from agents.exceptions import UserError
from agents.items import ToolApprovalItem
from agents.result import RunResult
from agents.tool_context import ToolContext

from conformance.adapter import (
    JSON,
    AgentSpec,
    Capability,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    Refused,
    RunOutcome,
    ToolName,
)
from conformance.wire.ir import Dialect

FRAMEWORK_VERSION = "0.24.0"
DEFAULT_NAME = "agent"
_UNDECLARED_SPEC_FIELDS = ("memory", "self_explain", "window", "compaction")
_FOREIGN_STATE = "Run state agent not found in agent map"

set_tracing_disabled(True)

_TLS = ssl.create_default_context()
"""One TLS context for every client (the fake is plain HTTP): loading CA certificates
costs ~30 ms per client and the suite builds hundreds."""

Context = dict[str, Any]


def _identity_of(ctx: RunContextWrapper[Any]) -> Any:
    context = ctx.context
    return context.get("identity") if isinstance(context, dict) else None


def _catalog(decisions: dict[str, str]) -> dict[ToolName, FunctionTool]:
    """The suite's fixed tools as SDK function tools. `decisions` holds what a person
    answered, by tool call id, for the approved `ask_person` call to return."""

    def echo(ctx: ToolContext[Context], text: str = "") -> str:
        return text

    def whoami(ctx: ToolContext[Context]) -> str:
        return json.dumps({"identity": _identity_of(ctx), "session_id": None})

    def ask_person(ctx: ToolContext[Context], question: str = "May I?") -> str:
        if ctx.tool_call_id not in decisions:
            raise RuntimeError(f"ask_person ran without a decision for {ctx.tool_call_id}")
        return decisions.pop(ctx.tool_call_id)

    return {
        "echo": function_tool(echo, description_override="Echo the text back."),
        "whoami": function_tool(whoami, description_override="What the run told this tool."),
        "ask_person": function_tool(
            ask_person,
            description_override="Ask a person and wait for the answer.",
            needs_approval=True,
        ),
    }


def _pending(item: ToolApprovalItem) -> PendingReport:
    raw = item.raw_item
    call_id = str(getattr(raw, "call_id", None) or item.call_id or "")
    arguments = json.loads(str(getattr(raw, "arguments", None) or item.arguments or "{}"))
    return PendingReport(
        tool_name=item.tool_name or "",
        tool_call_id=call_id,
        question=str(arguments.get("question", "")),
    )


def _outcome(result: RunResult) -> RunOutcome:
    """A completed run and its `to_input_list()`, or a pause and its `RunState` JSON."""
    if result.interruptions:
        return RunOutcome(
            paused=_pending(result.interruptions[0]), checkpoint=result.to_state().to_json()
        )
    return RunOutcome(answer=str(result.final_output), checkpoint=result.to_input_list())


class OpenAIAgentsUnderTest:
    """One SDK `Agent`, and the checkpoint of its last run (what the SDK's manual
    continuation pattern holds on to)."""

    def __init__(
        self, agent: Agent[Context], client: openai.AsyncOpenAI, decisions: dict[str, str]
    ) -> None:
        self.agent = agent
        self._client = client
        self._decisions = decisions  # shared with this agent's ask_person tool
        self._held: JSON | None = None

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if session_id is not None:
            raise ValueError(
                "session_id: this adapter does not declare the session_id capability "
                "(an SDK Session replays stored history; see the module docstring)"
            )
        named = identity.model_dump(exclude_none=True) if identity else None
        if isinstance(continue_from, dict):
            state = await self._restore(continue_from, named)
            state.add_input(message)
            result = await Runner.run(self.agent, state)
        else:
            items = list(continue_from or [])
            result = await Runner.run(
                self.agent,
                [*items, {"role": "user", "content": message}] if items else message,
                context={"identity": named},
            )
        outcome = _outcome(result)
        self._held = outcome.checkpoint
        return outcome

    async def _restore(self, data: dict[str, Any], identity: Any = None) -> RunState[Any, Any]:
        """The SDK's own restore; its refusals mapped onto the suite's kinds."""
        override = {"identity": identity} if identity is not None else None
        try:
            return await RunState.from_json(self.agent, data, context_override=override)
        except (UserError, ValueError) as error:
            kind = (
                RefusalKind.MISMATCH
                if _FOREIGN_STATE in str(error)
                else RefusalKind.INVALID_CHECKPOINT
            )
            raise Refused(kind, str(error)) from error

    async def follow_up(self, message: str) -> RunOutcome:
        if self._held is None:
            raise Refused(
                RefusalKind.NO_CONVERSATION,
                "no run has completed, so there is no RunResult to continue",
            )
        return await self.run(message, continue_from=await self.checkpoint())

    async def checkpoint(self) -> JSON:
        if self._held is None:
            raise Refused(RefusalKind.NO_CONVERSATION, "no run yet, so no checkpoint")
        return self._held

    async def resume(self, checkpoint: JSON, decision: str) -> RunOutcome:
        if not isinstance(checkpoint, dict):
            raise Refused(RefusalKind.INVALID_CHECKPOINT, "not a paused run's RunState JSON")
        state = await self._restore(checkpoint)
        for item in state.get_interruptions():
            self._decisions[_pending(item).tool_call_id] = decision
            state.approve(item)
        outcome = _outcome(await Runner.run(self.agent, state))
        self._held = outcome.checkpoint
        return outcome

    async def abandon_pause(self) -> dict[str, str] | None:
        if not isinstance(self._held, dict):
            return None
        state = await self._restore(self._held)
        # RunState has no public accessor for its approval record; the context wrapper
        # it holds answers `is_tool_approved`: None while a call is still undecided.
        dropped = [
            item
            for item in state.get_interruptions()
            if state._context is not None
            and state._context.is_tool_approved(item.tool_name or "", _pending(item).tool_call_id)
            is None
        ]
        if not dropped:
            return None
        for item in dropped:
            state.reject(item)
        self._held = state.to_json()
        return _pending(dropped[0]).model_dump()

    async def can_explain(self) -> bool:
        return False

    async def last_identity(self) -> IdentityReport | None:
        return None

    async def close(self) -> None:
        """Close the SDK client while its event loop is still running."""
        await self._client.close()


class OpenAIAgentsImplementation:
    name = f"openai-agents {FRAMEWORK_VERSION}"
    capabilities = frozenset(
        {
            Capability.FOLLOW_UP,
            Capability.CONTINUE_FROM,
            Capability.NAMED_AGENTS,
            Capability.IDENTITY,
            Capability.TOOL_CONTEXT,
            Capability.PAUSE,
            Capability.IN_FLIGHT_GUARD,
        }
    )
    dialects = frozenset({Dialect.OPENAI_RESPONSES})

    async def create_agent(self, spec: AgentSpec) -> OpenAIAgentsUnderTest:
        asked = [field for field in _UNDECLARED_SPEC_FIELDS if getattr(spec, field)]
        if asked:
            raise ValueError(
                f"{', '.join(asked)}: openai-agents has no such feature, so this adapter "
                "does not declare it (see the module docstring); leave it unset"
            )
        client = openai.AsyncOpenAI(
            base_url=spec.base_url,
            api_key=spec.api_key,
            http_client=openai.DefaultAsyncHttpxClient(verify=_TLS),
        )
        decisions: dict[str, str] = {}
        catalog = _catalog(decisions)
        agent: Agent[Context] = Agent(
            name=spec.id or DEFAULT_NAME,
            instructions=spec.system or None,
            tools=[catalog[name] for name in spec.tools],
            model=OpenAIResponsesModel(model=spec.model, openai_client=client),
        )
        return OpenAIAgentsUnderTest(agent, client, decisions)


implementation = OpenAIAgentsImplementation()
