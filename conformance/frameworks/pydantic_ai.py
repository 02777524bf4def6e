"""pydantic-ai (`pydantic-ai-slim[openai]`) under the conformance suite.

`--impl conformance.frameworks.pydantic_ai:implementation`; `nox -s thirdparty-pydantic_ai`
runs it with expectations/pydantic-ai.toml, which pins the release this mapping was
written for and is the one place that says which laws pydantic-ai fails and why;
examples/thirdparty/pydantic_ai_*.py reproduce failures with pydantic-ai alone. It
translates and never repairs: the only Refused it raises are pydantic-ai's own errors
renamed (ConcurrencyLimitExceeded -> run_in_flight, the UserError about "unprocessed tool
calls" -> pending_question, the ValidationError of its own `ConversationTypeAdapter` ->
invalid_checkpoint); nothing here holds a lock, compares names or guards a pause. Where
the framework has nothing to refuse (checkpoint() before any run) the error is a plain
LookupError.

The translation. pydantic-ai's own OpenAI models on the official `openai` client over real
HTTP: `OpenAIResponsesModel` (what `Agent("openai:...")` builds) and `OpenAIChatModel`, one
dialect each. Instrumentation stays off (`Agent.instrument_all(False)`); no server-side
state (`openai_previous_response_id`, `openai_conversation_id`) is asked for. One `Agent`
per spec, `name=spec.id` (named_agents), `infer_name=False` on every run (else an unnamed
agent is named after its variable). run(m) is `agent.run(m)`; continue_from is
`agent.run(m, conversation=...)` with the Conversation rebuilt by `ConversationTypeAdapter`
from the checkpoint, which is `ConversationTypeAdapter.dump_python(result.conversation,
mode="json")`. An identity is the run's `conversation_id=` plus `deps=` (the framework's
one per-run context channel); on a continued run only `deps=`, because a Conversation
carries its own id and pydantic-ai refuses both ("passing both is ambiguous"), so an
explicit identity cannot rename a continued conversation. `whoami` reports what the
RunContext says: `{conversation_id: ctx.conversation_id}` plus tenant and principal from
`ctx.deps`. `ask_person` raises `CallDeferred(kind="question")` (an answer from a person is
the call's result, not a yes/no on running it, which `requires_approval` would be), so the
run ends with `DeferredToolRequests`; resume is `agent.run(conversation=...,
deferred_tool_results=DeferredToolResults(calls={id: decision}))`, and abandon_pause is
`repair_messages(conversation.messages)`, the way out pydantic-ai's UserError names (the
adapter also sets the held Conversation's `deferred_tool_requests` to None itself:
pydantic-ai never reads that field when running; it rebuilds it from a run's output).

Two runs at once: `Agent(max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0))`,
the framework's own setting, turned on here (by default an Agent runs any number of runs
at once; the implementation's notes say so), so a second run raises
ConcurrencyLimitExceeded.

Not declared:
- follow_up: an Agent has no "last run" to continue and nothing that could refuse before
  a first one. `follow_up` still answers other laws' calls as `agent.run(m,
  conversation=<last result's conversation>)`, a plain run before any.
- session_id, identity_report: pydantic-ai's own ladder (explicit, the history's last id,
  a fresh UUID7) has no session rung, and a run reports the id it used but not where it
  came from.
- memory: no recall across conversations. window: no built-in window; history processors
  are functions the user writes.
- compaction: `OpenAICompaction` and `AnthropicCompaction` exist but are provider-side
  only (the provider folds, through `context_management` or OpenAI's
  `/responses/compact`); the framework folds nothing and the fake serves neither.
- self_explain: no trace tools.
- hosting: not mapped yet; pydantic-ai's UI adapters with a ConversationStore are the
  nearest thing.
"""

from __future__ import annotations

import dataclasses
from importlib.metadata import version
from typing import Any

import openai
from pydantic import ValidationError

try:
    import pydantic_ai  # noqa: F401
except ImportError as missing:
    raise ImportError(
        'conformance.frameworks.pydantic_ai needs pydantic-ai: pip install "turnlaw[pydantic-ai]" '
        "(or run nox -s thirdparty-pydantic_ai)"
    ) from missing

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, RunContext, Tool
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.concurrency import ConcurrencyLimit
from pydantic_ai.conversation import Conversation, ConversationTypeAdapter
from pydantic_ai.exceptions import CallDeferred, ConcurrencyLimitExceeded, UserError
from pydantic_ai.messages import repair_messages
from pydantic_ai.models import Model
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

from ..adapter import (
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
from ..catalog import ASK_PERSON, CALL_SERVICE, ECHO, WHOAMI, ToolName, WhoamiReport
from ..wire.ir import Dialect
from .kit import Refusal, call_service, openai_client, refusing, reporting_failures

PACKAGE = "pydantic-ai-slim"
PENDING_MARK = "unprocessed tool calls"
"""What pydantic-ai's UserError says when a new prompt meets a paused conversation."""

Agent.instrument_all(False)


def _echo(text: str = ECHO.default("text")) -> str:
    return text


def _whoami(ctx: RunContext[IdentitySpec | None]) -> dict[str, Any]:
    # The report is what pydantic-ai's RunContext says: the namespace key is
    # ctx.conversation_id, never the copy in deps; tenant and principal ride in ctx.deps,
    # the run's one context channel. It goes back as a dict: pydantic-ai writes the JSON.
    if ctx.conversation_id is None:  # pydantic-ai fills it on every run it starts
        return WhoamiReport().model_dump()
    deps = ctx.deps
    told = IdentitySpec(
        conversation_id=ctx.conversation_id,
        tenant=deps.tenant if deps else None,
        principal=deps.principal if deps else None,
    )
    return WhoamiReport.told(told).model_dump()


def _ask_person(question: str = ASK_PERSON.default("question")) -> str:
    raise CallDeferred(metadata={"question": question}, kind="question")


CATALOG: dict[ToolName, Tool[Any]] = {
    "echo": Tool(_echo, name=ECHO.name, description=ECHO.description),
    "whoami": Tool(_whoami, name=WHOAMI.name, description=WHOAMI.description, takes_ctx=True),
    "ask_person": Tool(_ask_person, name=ASK_PERSON.name, description=ASK_PERSON.description),
}


def _tools(spec: AgentSpec) -> list[Tool[Any]]:
    """The spec's catalog tools; `call_service` is bound to the spec's base URL."""

    async def _call_service(key: str = CALL_SERVICE.default("key")) -> str:
        return await call_service(spec.base_url, key)

    bound = {
        "call_service": Tool(
            _call_service, name=CALL_SERVICE.name, description=CALL_SERVICE.description
        )
    }
    return [bound[name] if name in bound else CATALOG[name] for name in spec.tools]


def _model(spec: AgentSpec, client: openai.AsyncOpenAI) -> Model:
    provider = OpenAIProvider(openai_client=client)
    if spec.dialect is Dialect.OPENAI_CHAT:
        return OpenAIChatModel(spec.model, provider=provider)
    return OpenAIResponsesModel(spec.model, provider=provider)


def _checkpoint(conversation: Conversation) -> JSON:
    return ConversationTypeAdapter.dump_python(conversation, mode="json")


def _conversation(checkpoint: JSON) -> Conversation:
    with refusing(Refusal(ValidationError, RefusalKind.INVALID_CHECKPOINT)):
        return ConversationTypeAdapter.validate_python(checkpoint)


_REFUSALS = (
    Refusal(ConcurrencyLimitExceeded, RefusalKind.RUN_IN_FLIGHT),
    Refusal(UserError, RefusalKind.PENDING_QUESTION, says=PENDING_MARK),
)
"""pydantic-ai's own refusals, in the suite's kinds; anything else propagates."""


_NO_DECISION = Refusal(
    UserError, RefusalKind.PENDING_QUESTION, "results need to be provided for all deferred"
)
"""resume without a decision: pydantic-ai's own refusal, before anything is sent."""


class PydanticAIAgent:
    """One pydantic-ai Agent, and the last conversation a run handed back to its caller."""

    def __init__(self, agent: Agent[IdentitySpec | None, Any], client: openai.AsyncOpenAI) -> None:
        self.agent = agent
        self._client = client
        self._last: Conversation | None = None

    async def _run(
        self,
        message: str | None,
        conversation: Conversation | None,
        identity: IdentitySpec | None = None,
        results: DeferredToolResults | None = None,
    ) -> RunOutcome:
        # A Conversation carries its own conversation_id, and pydantic-ai refuses a second
        # one next to it (UserError: "passing both is ambiguous"): on a continued run the
        # identity travels as deps alone, and the Conversation's id stays the run's.
        named_id = identity.conversation_id if identity and conversation is None else None
        # A provider failure (ModelHTTPError and the like, after the SDK's retries) leaves
        # no Conversation behind: RunFailed without a checkpoint, and _last unchanged.
        with reporting_failures(), refusing(*_REFUSALS):
            result: AgentRunResult[Any] = await self.agent.run(
                message,
                conversation=conversation,
                conversation_id=named_id,
                deps=identity,
                deferred_tool_results=results,
                infer_name=False,
            )
        self._last = result.conversation
        checkpoint = _checkpoint(result.conversation)
        if isinstance(result.output, DeferredToolRequests):
            return RunOutcome(paused=_pending(result.output), checkpoint=checkpoint)
        return RunOutcome(answer=str(result.output), checkpoint=checkpoint)

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if session_id is not None:
            raise TypeError("pydantic-ai has no session id; session_id is not declared")
        conversation = _conversation(continue_from) if continue_from is not None else None
        return await self._run(message, conversation, identity)

    async def follow_up(self, message: str) -> RunOutcome:
        return await self._run(message, self._last)

    async def checkpoint(self) -> JSON:
        if self._last is None:  # pydantic-ai has nothing to refuse here: a plain error
            raise LookupError("no run on this agent has returned a Conversation yet")
        return _checkpoint(self._last)

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        if session_id is not None:
            raise TypeError("pydantic-ai has no session id; session_id is not declared")
        conversation = _conversation(checkpoint)
        asked = conversation.deferred_tool_requests
        # no decision: the deferred call gets no result, as a caller without one would run
        answered = asked.calls if asked and decision is not None else []
        calls: dict[str, Any] = {c.tool_call_id: decision for c in answered}
        # pydantic-ai refuses deferred calls left without a result: the question still owed
        with refusing(_NO_DECISION):
            return await self._run(None, conversation, results=DeferredToolResults(calls=calls))

    async def abandon_pause(self) -> dict[str, str] | None:
        conversation = self._last
        if conversation is None or conversation.deferred_tool_requests is None:
            return None
        dropped = _pending(conversation.deferred_tool_requests)
        # repair_messages is pydantic-ai's; clearing deferred_tool_requests is the adapter's
        # own bookkeeping (a run never reads the field), so the held copy stops waiting.
        self._last = dataclasses.replace(
            conversation,
            messages=repair_messages(conversation.messages),
            deferred_tool_requests=None,
        )
        return dropped.model_dump()

    async def can_explain(self) -> bool:
        return False

    async def last_identity(self) -> IdentityReport | None:
        return None

    async def close(self) -> None:
        await self._client.close()


def _pending(requests: DeferredToolRequests) -> PendingReport:
    call = (requests.calls or requests.approvals)[0]
    question = requests.metadata.get(call.tool_call_id, {}).get("question", "")
    return PendingReport(
        tool_name=call.tool_name, tool_call_id=call.tool_call_id, question=question
    )


class PydanticAIImplementation:
    name = "pydantic-ai"
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
    dialects = frozenset({Dialect.OPENAI_RESPONSES, Dialect.OPENAI_CHAT})
    deliveries = frozenset({Delivery.WHOLE})  # agent.run asks for whole responses
    notes = (
        "the in-flight laws pass with pydantic-ai's own setting "
        "max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0), which the adapter "
        "turns on; by default an Agent runs any number of runs at once",
        "follow_up is not declared: an Agent holds no conversation; continuing is "
        "agent.run(message, conversation=...)",
        "whoami reports what RunContext says: ctx.conversation_id (a UUID7 pydantic-ai makes "
        "up when none is named) with tenant and principal from ctx.deps",
        "an identity passed with continue_from travels as deps only: pydantic-ai refuses "
        "conversation_id= next to conversation=, so the Conversation keeps its own id",
        "abandon_pause is repair_messages(); the adapter also clears the held Conversation's "
        "deferred_tool_requests, a field pydantic-ai does not read when running",
    )

    async def create_agent(self, spec: AgentSpec) -> PydanticAIAgent:
        client = openai_client(spec)
        asks = "ask_person" in spec.tools
        agent: Agent[IdentitySpec | None, Any] = Agent(
            _model(spec, client),
            name=spec.id,
            instructions=spec.system or None,
            deps_type=IdentitySpec | None,
            output_type=[str, DeferredToolRequests] if asks else str,
            tools=_tools(spec),
            max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0),
        )
        return PydanticAIAgent(agent, client)


implementation = PydanticAIImplementation()
