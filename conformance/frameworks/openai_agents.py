"""The suite's adapter for openai-agents (the OpenAI Agents SDK).

Load it with `--impl conformance.frameworks.openai_agents:implementation`; the SDK is
imported only then, and `nox -s thirdparty-openai_agents` runs it with
expectations/openai-agents.toml, which pins the release it describes and is the one place
that says which laws the SDK fails and why. It translates, it never repairs: each suite
call becomes a call of the SDK's own API, every refusal the suite sees was raised by the
SDK (an impossible call, such as a checkpoint before any run, is a plain ValueError or
LookupError, never a refusal), and nothing here adds a lock, a name check or a pause
guard the SDK lacks.

The translation
- Agent: one `agents.Agent` per spec, `name=` the spec's id (the SDK requires a name; a
  spec without one gets "agent", the suite's default id, which means nothing to the SDK),
  `instructions=` the system prompt, `model=OpenAIResponsesModel` on the official
  `openai.AsyncOpenAI` client pointed at the fake over loopback HTTP. Responses is the
  SDK's default API. Its server-side history (`conversation_id=`,
  `previous_response_id=`) is never used. Tracing is off (`set_tracing_disabled(True)`),
  its only export.
- run(m): `Runner.run(agent, m, context={"identity": ...})`.
- checkpoint: a completed run's `RunResult.to_input_list()` (the SDK's JSON history, as
  returned); a paused run's `RunResult.to_state().to_json()` (the SDK's `RunState` JSON,
  which holds the pending approvals and the run context).
- run(m, continue_from=items): the SDK's documented manual continuation,
  `Runner.run(agent, items + [{"role": "user", "content": m}])`. continue_from a
  `RunState` JSON: `RunState.from_json(agent, ...)`, `state.add_input(m)`,
  `Runner.run(agent, state)`.
- identity: the SDK's run context (`context=`), which it hands to tools as
  `ToolContext.context`. The SDK puts no id of its own there: `ToolContext` carries no
  conversation or session id, and `run_config.group_id` (a tracing label) stays None.
- tools: `echo` and `whoami` are `function_tool`s; `whoami` reports the run context's
  identity. `ask_person` is `function_tool(needs_approval=True)`, so the model's call ends
  the run with `RunResult.interruptions`. resume(checkpoint, decision):
  `RunState.from_json`, `state.approve(...)`, `Runner.run(agent, state)`; the approved
  tool returns the decision. abandon_pause(): `state.reject(...)` on the held state's
  undecided calls (the SDK then sends its own "Tool execution was not approved." as their
  result). Which calls are undecided is read with the SDK's public
  `RunContextWrapper.is_tool_approved`, on the wrapper the restored state holds in
  `RunState._context`: in 0.24 RunState exposes its approval record through no public
  attribute or method (`get_interruptions()` still lists a rejected call), so this one
  read goes through a private attribute; it only decides whether a second abandon_pause
  has anything left to drop.
- follow_up(m): not declared. An `Agent` is a stateless configuration: it holds no
  conversation, so there is no "this instance's last completed run" and nothing that
  could refuse before a first run. The SDK's other continuations are not that door
  either: `to_input_list()` is continue_from, a `Session` (`SQLiteSession(session_id)`,
  ...) is a stored conversation per session id that the caller names and any Agent can
  run on (the seed's hosting door, not followUp), and server-side `previous_response_id`
  is excluded by the issue. Other laws still call follow_up as one more way in, so it is
  answered with the SDK's manual pattern: `run(m, continue_from=<the last run's
  checkpoint>)`, or a plain `run(m)` before any run.
- refusals: `RunState.from_json` refusing a state whose agent is not in the continuing
  agent's map ("Run state agent not found in agent map") is MISMATCH, because it is the
  SDK's own and comes before anything is sent; it is a handoff-graph lookup by name, not
  an ownership rule, and the implementation's `notes` carry that caveat to the matrix.
  Any other state it cannot restore (`UserError`/`ValueError`) is INVALID_CHECKPOINT.

Not declared:
- identity_report, session_id: no identity ladder (no namespace derived from a session or
  a run), so a reported source would be the adapter's invention; an SDK `Session` is a
  stored history a run replays, not an id a run hands its tools.
- memory: the SDK recalls nothing into the system prompt.
- window: a run has no turn window. The nearest thing, `SessionSettings(limit=)`, caps
  how many items a `Session` hands back (items, not turns) and belongs to sessions.
- compaction: `OpenAIResponsesCompactionSession` calls the provider's
  `responses.compact` endpoint, so what is folded is decided and kept server-side, not in
  a checkpoint the suite can judge.
- self_explain: the SDK's tracing exports spans; it does not answer the model about its
  own runs.
- hosting: left out for now; the SDK's sessions (`SQLiteSession` and the others) are what
  those laws would map onto.
"""

from __future__ import annotations

import json
from importlib.metadata import version
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
    Delivery,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    RunOutcome,
)
from conformance.catalog import ASK_PERSON, CALL_SERVICE, ECHO, WHOAMI, ToolName, WhoamiReport
from conformance.wire.ir import Dialect

from .kit import Refusal, call_service, openai_client, refusing, reporting_failures

PACKAGE = "openai-agents"
DEFAULT_NAME = "agent"
_UNDECLARED_SPEC_FIELDS = ("memory", "self_explain", "window", "compaction")
_FOREIGN_STATE = "Run state agent not found in agent map"
_RESTORE_REFUSALS = (
    Refusal((UserError, ValueError), RefusalKind.MISMATCH, says=_FOREIGN_STATE),
    Refusal((UserError, ValueError), RefusalKind.INVALID_CHECKPOINT),
)
"""What `RunState.from_json` refuses: another agent's state (by name), or any it cannot read."""

set_tracing_disabled(True)

Context = dict[str, Any]


def _identity_of(ctx: RunContextWrapper[Any]) -> Any:
    context = ctx.context
    return context.get("identity") if isinstance(context, dict) else None


def _catalog(decisions: dict[str, str], base_url: str) -> dict[ToolName, FunctionTool]:
    """The suite's fixed tools as SDK function tools. `decisions` holds what a person
    answered, by tool call id, for the approved `ask_person` call to return;
    `call_service` calls the fake at `base_url`."""

    def echo(ctx: ToolContext[Context], text: str = ECHO.default("text")) -> str:
        return text

    def whoami(ctx: ToolContext[Context]) -> str:
        return WhoamiReport.told(_identity_of(ctx)).as_text()

    def ask_person(
        ctx: ToolContext[Context], question: str = ASK_PERSON.default("question")
    ) -> str:
        if ctx.tool_call_id not in decisions:
            raise RuntimeError(f"ask_person ran without a decision for {ctx.tool_call_id}")
        return decisions.pop(ctx.tool_call_id)

    async def call_service_tool(
        ctx: ToolContext[Context], key: str = CALL_SERVICE.default("key")
    ) -> str:
        return await call_service(base_url, key)

    return {
        "echo": function_tool(echo, name_override=ECHO.name, description_override=ECHO.description),
        "whoami": function_tool(
            whoami, name_override=WHOAMI.name, description_override=WHOAMI.description
        ),
        "ask_person": function_tool(
            ask_person,
            name_override=ASK_PERSON.name,
            description_override=ASK_PERSON.description,
            needs_approval=True,
        ),
        "call_service": function_tool(
            call_service_tool,
            name_override=CALL_SERVICE.name,
            description_override=CALL_SERVICE.description,
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
            with reporting_failures():  # the SDK raises the provider's error: no RunResult
                result = await Runner.run(self.agent, state)
        else:
            items = list(continue_from or [])
            with reporting_failures():
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
        with refusing(*_RESTORE_REFUSALS):
            return await RunState.from_json(self.agent, data, context_override=override)

    async def follow_up(self, message: str) -> RunOutcome:
        """Not an SDK door (follow_up is not declared): the SDK's manual pattern, continuing
        the last run's checkpoint, or a plain first run when there is none."""
        return await self.run(message, continue_from=self._held)

    async def checkpoint(self) -> JSON:
        if self._held is None:
            raise LookupError(
                "checkpoint(): this agent has not run yet, so there is no RunResult to "
                "checkpoint; call run() first"
            )
        return self._held

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        if session_id is not None:
            raise ValueError("session_id: this adapter does not declare the session_id capability")
        # A completed run's checkpoint (an item list) is the SDK's to refuse: from_json
        # raises UserError ('Run state JSON must be an object'), read as invalid_checkpoint.
        state = await self._restore(checkpoint)
        for item in state.get_interruptions():
            if decision is None:  # no decision: the call stays neither approved nor rejected
                continue
            self._decisions[_pending(item).tool_call_id] = decision
            state.approve(item)
        with reporting_failures():
            outcome = _outcome(await Runner.run(self.agent, state))
        self._held = outcome.checkpoint
        return outcome

    async def abandon_pause(self) -> dict[str, str] | None:
        if not isinstance(self._held, dict):
            return None
        state = await self._restore(self._held)
        # RunState 0.24 exposes its approval record through nothing public (a rejected call
        # is still in get_interruptions()); the RunContextWrapper it holds in `_context`
        # answers the public `is_tool_approved`: None while a call is undecided.
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
    name = PACKAGE
    version = version(PACKAGE)
    capabilities = frozenset(
        {
            Capability.CONTINUE_FROM,
            Capability.NAMED_AGENTS,
            Capability.IDENTITY,
            Capability.TOOL_CONTEXT,
            Capability.PAUSE,
            Capability.CALL_SERVICE,
        }
    )
    dialects = frozenset({Dialect.OPENAI_RESPONSES})
    deliveries = frozenset({Delivery.WHOLE})  # Runner.run asks for whole responses
    notes = (
        "follow_up is not declared: an Agent holds no conversation; continuing is "
        "Runner.run(agent, result.to_input_list() + [new message]), and a Session is a "
        "stored conversation per session id (hosting), not this agent's last run",
        "MISMATCH is RunState.from_json's 'Run state agent not found in agent map', a "
        "handoff-graph lookup by name, not an ownership rule: it also refuses a paused "
        "state moving between a named agent and an unnamed one ('agent'), which "
        "mismatch.default-id-never-refuses forbids; no law hands a paused RunState to "
        "another id, and to_input_list() carries no name at all",
    )

    async def create_agent(self, spec: AgentSpec) -> OpenAIAgentsUnderTest:
        asked = [field for field in _UNDECLARED_SPEC_FIELDS if getattr(spec, field)]
        if asked:
            raise ValueError(
                f"{', '.join(asked)}: openai-agents has no such feature, so this adapter "
                "does not declare it (see the module docstring); leave it unset"
            )
        client = openai_client(spec)
        decisions: dict[str, str] = {}
        catalog = _catalog(decisions, spec.base_url)
        agent: Agent[Context] = Agent(
            name=spec.id or DEFAULT_NAME,
            instructions=spec.system or None,
            tools=[catalog[name] for name in spec.tools],
            model=OpenAIResponsesModel(model=spec.model, openai_client=client),
        )
        return OpenAIAgentsUnderTest(agent, client, decisions)


implementation = OpenAIAgentsImplementation()
