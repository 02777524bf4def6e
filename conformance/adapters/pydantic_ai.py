"""pydantic-ai (`pydantic-ai-slim[openai]`) under the conformance suite.

`--impl conformance.adapters.pydantic_ai:implementation`; `nox -s thirdparty-pydantic_ai`
runs it with expectations/pydantic-ai.toml. It translates and never repairs: every refusal
the suite sees was raised by pydantic-ai, and nothing here holds a lock, compares names or
guards a pause.

The framework speaks to the fake with its own OpenAI models on the official `openai`
client over real HTTP: `OpenAIResponsesModel` (what `Agent("openai:…")` builds, its
default) and `OpenAIChatModel` (`"openai-chat:…"`), one suite dialect each. Its
instrumentation stays off (the default; `Agent.instrument_all(False)` makes sure), and no
server-side state is asked for: no `openai_previous_response_id`, no
`openai_conversation_id`, so the suite's identity never becomes a provider conversation.

Law by law (capability declared, and the pydantic-ai API it maps onto):

- `run` is `agent.run(message)`: the Agent is stateless, every call a new conversation.
- continue_from (declared) is `agent.run(message, conversation=...)`, the Conversation
  rebuilt with `ConversationTypeAdapter.validate_python` from the checkpoint, which is
  `ConversationTypeAdapter.dump_python(result.conversation, mode="json")`: pydantic-ai's
  own plain-JSON form of a conversation. A checkpoint it cannot validate is refused as
  invalid_checkpoint (its ValidationError).
- named_agents (declared) is `Agent(name=spec.id)`, with `infer_name=False` on every run
  so an unnamed agent stays unnamed (by default pydantic-ai names it after the variable
  holding it). The framework records no name in a Conversation and checks none, so
  whatever the mismatch law finds is its own doing.
- identity (declared): `identity.conversation_id` is the run's `conversation_id=` (a local
  correlation id pydantic-ai carries in the Conversation and never sends to the provider),
  and the whole identity is the run's `deps=`, the framework's one channel for per-run
  context.
- tool_context (declared): tools get pydantic-ai's `RunContext`. `whoami` reports
  `ctx.deps` as the identity (what the caller named for this run; None when nobody did)
  and, as extra evidence, `ctx.conversation_id`, which pydantic-ai always fills (a fresh
  uuid7 when none was given), so it cannot stand for "named".
- pause (declared): `ask_person` raises `CallDeferred(kind="question")`, pydantic-ai's
  deferred tool for "an answer from the user" (its approval flavour, `requires_approval`,
  is a yes/no on running a tool, while a person's answer is the call's result); the run
  ends with `DeferredToolRequests`
  (hence `output_type=[str, DeferredToolRequests]`), held in the Conversation's
  `deferred_tool_requests`. `resume` is `agent.run(conversation=…,
  deferred_tool_results=DeferredToolResults(calls={id: decision}))`. A new prompt on the
  paused conversation raises pydantic-ai's `UserError` ("…unprocessed tool calls…"),
  mapped to pending_question. `abandon_pause` is `repair_messages(conversation.messages)`,
  the framework's documented way out (its UserError names it), reporting the deferred call
  it closed.
- in_flight_guard (declared): `Agent(max_concurrency=ConcurrencyLimit(max_running=1,
  max_queued=0))`, pydantic-ai's documented setting for an agent that runs one thing at a
  time; its `ConcurrencyLimitExceeded` is mapped to run_in_flight. This is configuration
  of a mechanism the framework ships, not a guard added here; by default an Agent accepts
  any number of concurrent runs (agents are meant to be shared).

Left out (NOT_APPLICABLE), because pydantic-ai has no such concept:

- follow_up: the Agent holds no conversation, so there is no "this agent's last run" to
  continue and nothing that could refuse before a first run. The suite's follow_up is
  still answered (other laws use it as one more door) with the pydantic-ai idiom
  `agent.run(message, conversation=<the last result's conversation>)`, a plain new run
  when there is none; its own laws are not claimed.
- session_id, identity_report, memory, window, compaction, self_explain, hosting: no
  session id reaches a run, no identity ladder is reported, no recall, no built-in window
  or compaction (history processors are user code), no trace tools. ConversationStore
  exists, but the hosting laws have no tests yet.
"""

from __future__ import annotations

import dataclasses
import ssl
from importlib.metadata import version
from typing import Any

import openai
from pydantic import ValidationError

try:
    import pydantic_ai  # noqa: F401
except ImportError as missing:
    raise ImportError(
        'conformance.adapters.pydantic_ai needs pydantic-ai: pip install "turnlaw[pydantic-ai]" '
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
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RefusalKind,
    Refused,
    RunOutcome,
)
from ..wire.ir import Dialect

PACKAGE = "pydantic-ai-slim"
PENDING_MARK = "unprocessed tool calls"
"""What pydantic-ai's UserError says when a new prompt meets a paused conversation."""

Agent.instrument_all(False)


def _echo(text: str = "") -> str:
    """Echo the text back."""
    return text


def _whoami(ctx: RunContext[IdentitySpec | None]) -> dict[str, Any]:
    """What the run told this tool."""
    named = ctx.deps.model_dump(exclude_none=True) if ctx.deps is not None else None
    return {"identity": named, "session_id": None, "conversation_id": ctx.conversation_id}


def _ask_person(question: str = "May I?") -> str:
    """Ask a person and wait for the answer."""
    raise CallDeferred(metadata={"question": question}, kind="question")


CATALOG: dict[str, Tool[Any]] = {
    "echo": Tool(_echo, name="echo"),
    "whoami": Tool(_whoami, name="whoami", takes_ctx=True),
    "ask_person": Tool(_ask_person, name="ask_person"),
}

_TLS = ssl.create_default_context()
"""One TLS context for every client the suite builds (loading CA certificates costs ~30 ms
each, and the fake is plain HTTP anyway)."""


def _model(spec: AgentSpec, client: openai.AsyncOpenAI) -> Model:
    provider = OpenAIProvider(openai_client=client)
    if spec.dialect is Dialect.OPENAI_CHAT:
        return OpenAIChatModel(spec.model, provider=provider)
    return OpenAIResponsesModel(spec.model, provider=provider)


def _checkpoint(conversation: Conversation) -> JSON:
    return ConversationTypeAdapter.dump_python(conversation, mode="json")


def _conversation(checkpoint: JSON) -> Conversation:
    try:
        return ConversationTypeAdapter.validate_python(checkpoint)
    except ValidationError as error:
        raise Refused(RefusalKind.INVALID_CHECKPOINT, str(error)) from error


class _Refusals:
    """pydantic-ai's own refusals, in the suite's kinds; anything else propagates."""

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: Any
    ) -> None:
        if isinstance(error, ConcurrencyLimitExceeded):
            raise Refused(RefusalKind.RUN_IN_FLIGHT, str(error)) from error
        if isinstance(error, UserError) and PENDING_MARK in error.message:
            raise Refused(RefusalKind.PENDING_QUESTION, error.message) from error


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
        with _Refusals():
            result: AgentRunResult[Any] = await self.agent.run(
                message,
                conversation=conversation,
                conversation_id=identity.conversation_id if identity else None,
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
        if self._last is None:
            raise Refused(RefusalKind.NO_CONVERSATION, "no run has returned a conversation yet")
        return _checkpoint(self._last)

    async def resume(self, checkpoint: JSON, decision: str) -> RunOutcome:
        conversation = _conversation(checkpoint)
        asked = conversation.deferred_tool_requests
        calls: dict[str, Any] = {c.tool_call_id: decision for c in asked.calls} if asked else {}
        return await self._run(None, conversation, results=DeferredToolResults(calls=calls))

    async def abandon_pause(self) -> dict[str, str] | None:
        conversation = self._last
        if conversation is None or conversation.deferred_tool_requests is None:
            return None
        dropped = _pending(conversation.deferred_tool_requests)
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
            Capability.IN_FLIGHT_GUARD,
        }
    )
    dialects = frozenset({Dialect.OPENAI_RESPONSES, Dialect.OPENAI_CHAT})
    notes = (
        "the in-flight laws pass with pydantic-ai's own setting "
        "max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0), which the adapter "
        "turns on; by default an Agent runs any number of runs at once",
        "follow_up is not declared: an Agent holds no conversation; continuing is "
        "agent.run(message, conversation=...)",
    )

    async def create_agent(self, spec: AgentSpec) -> PydanticAIAgent:
        client = openai.AsyncOpenAI(
            base_url=spec.base_url,
            api_key=spec.api_key,
            http_client=openai.DefaultAsyncHttpxClient(verify=_TLS),
        )
        asks = "ask_person" in spec.tools
        agent: Agent[IdentitySpec | None, Any] = Agent(
            _model(spec, client),
            name=spec.id,
            instructions=spec.system or None,
            deps_type=IdentitySpec | None,
            output_type=[str, DeferredToolRequests] if asks else str,
            tools=[CATALOG[name] for name in spec.tools],
            max_concurrency=ConcurrencyLimit(max_running=1, max_queued=0),
        )
        return PydanticAIAgent(agent, client)


implementation = PydanticAIImplementation()
