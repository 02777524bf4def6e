"""The conformance adapter for langgraph's prebuilt ReAct agent (`--impl
conformance.frameworks.langgraph:implementation`).

expectations/langgraph.toml pins the release this mapping was written for and is the one
place that says which laws langgraph fails and why; the results header reads the versions
from the installed distributions.

It translates; it never repairs, and it raises no refusal of its own: langgraph refuses
nothing the laws ask about, so no `Refused` leaves this module. Each agent is
`langgraph.prebuilt.create_react_agent(ChatOpenAI(...), tools, prompt=spec.system,
name=spec.id, checkpointer=AsyncSqliteSaver, context_schema=RunContext)`: langgraph's own
ReAct graph (deprecated in langgraph 1.x in favour of `langchain.agents.create_agent`,
which lives in another package and is not what this adapter measures). The model is
reached by `ChatOpenAI` over Chat Completions, its default, on the loopback fake; LangSmith
tracing is switched off before langchain loads.

Where conversations live. Every agent's checkpointer is an `AsyncSqliteSaver` on one real
SQLite file (a temporary one, or `LangGraphImplementation(database=path)`), so a paused
thread is resumed from what was written to disk, as a deployment would, by any agent of the
process or by another process on the same file (tests/thirdparty checks that). An
`InMemorySaver` would skip the serialization to disk, so it is not used. Each agent opens
its own connection because langgraph binds an async saver to the event loop it was made on.

The mapping, door by door. A langgraph caller names a thread (`configurable.thread_id`) on
every invoke; the agent here is that caller, and holds the thread it last named:

- `run(message)` names a new thread (uuid4) and invokes the graph on it with that one
  message; the agent holds that thread from the moment it names it.
- `run(message, continue_from=cp)` does the same, seeded with
  `messages_from_dict(cp["messages"])` before the message: the explicit-history door.
- `follow_up(message)` invokes the thread the agent holds with the message: langgraph's
  own continuation (the checkpointer loads the thread). Before any run the agent holds no
  thread yet, so it names a fresh one, as a caller of langgraph would.
- `checkpoint()` is `{"thread_id", "messages": messages_to_dict(state.values["messages"])}`
  of the thread the agent holds, as JSON data. `thread_id` is langgraph's handle for
  `resume`; `continue_from` reads only `messages`.
- `ask_person(question)` calls `langgraph.types.interrupt({...})`; a run that stops there
  returns `__interrupt__`, reported as the pause. `resume(cp, decision)` invokes
  `Command(resume=decision)` on `cp["thread_id"]`, and the tool returns the decision.
- `abandon_pause()` reads the thread's pending `interrupts` and closes the asking call with
  `update_state({"messages": [ToolMessage(ABANDONED_RESULT)]}, as_node="tools")` (and the
  other calls of its batch that have no result with `NOT_RUN_RESULT`: the step is dropped),
  langgraph's documented way to edit a paused thread. langgraph has no abandon of its own,
  so the closing result's text is the catalog's `ABANDONED_RESULT`, the suite's for an
  adapter whose framework has none; the results' notes say so.
- Names: `create_react_agent(name=)` stamps the agent's name on every `AIMessage` (in the
  checkpoint, and on the wire as the assistant `name`), so langgraph has named agents and
  named_agents is declared.
- Identity is langgraph's run-scoped `context=` (`Runtime.context`, read by tools through
  `ToolRuntime`); it is never a thread id, and no provider-side conversation id exists on
  Chat Completions. whoami reports `ToolRuntime.context`: what the caller passed, None
  when nothing was (the thread_id a tool sees in its config is the caller's too).

Errors langgraph raises propagate unmapped: a new message on a paused thread makes the
agent node raise `ValueError` INVALID_CHAT_HISTORY, but only after langgraph has committed
the message and dropped the interrupt, so it is a history check, not a refusal (see
tests/thirdparty and examples/thirdparty/langgraph_pending.py). Bad input to the adapter
(a checkpoint it cannot read, `checkpoint()` before any thread) is a plain `ValueError` /
`LookupError` saying what was wrong.

Not declared, because langgraph has no such concept of its own:

- session_id, identity_report: no session id apart from the thread, no namespace
  ladder; the suite's run(session_id=) is a namespace for tools and memory, not a thread
  that replays turns.
- memory, window, compaction: the prebuilt agent offers `pre_model_hook` and a `store`,
  but recall into the system prompt, a turn window or a model-written fold would be code
  this adapter writes, not langgraph's.
- self_explain: no trace tools. hosting: the LangGraph server, not this package.
"""

from __future__ import annotations

import os
import tempfile
import uuid
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

# Before langchain is imported: no trace leaves the process.
os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["LANGCHAIN_TRACING"] = "false"

import aiosqlite
import openai
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.prebuilt import ToolRuntime, create_react_agent
from langgraph.types import Command, interrupt

from conformance.adapter import (
    JSON,
    AgentSpec,
    Capability,
    Delivery,
    IdentityReport,
    IdentitySpec,
    PendingReport,
    RunOutcome,
)
from conformance.catalog import (
    ABANDONED_RESULT,
    ASK_PERSON,
    CALL_SERVICE,
    ECHO,
    WHOAMI,
    ToolName,
    WhoamiReport,
)
from conformance.wire.ir import Dialect

from .kit import call_service, openai_http, reporting_failures

PACKAGE = "langgraph"
NOT_RUN_RESULT = "Not run: the paused step was abandoned."
"""What the adapter closes the other calls of an abandoned step with (langgraph has none)."""
"""The distribution under test, as expectations/langgraph.toml pins it."""


@dataclass(frozen=True)
class RunContext:
    """langgraph's run-scoped context (`context_schema`): the identity a run was given."""

    identity: dict[str, str] | None = None


@tool(ECHO.name, description=ECHO.description)
def echo(text: str = ECHO.default("text")) -> str:
    return text


@tool(WHOAMI.name, description=WHOAMI.description)
def whoami(runtime: ToolRuntime[RunContext]) -> str:
    context = runtime.context
    identity = context.identity if isinstance(context, RunContext) else None
    return WhoamiReport.told(identity).as_text()


@tool(ASK_PERSON.name, description=ASK_PERSON.description)
def ask_person(
    runtime: ToolRuntime[RunContext], question: str = ASK_PERSON.default("question")
) -> str:
    decision = interrupt(
        {"question": question, "tool_call_id": runtime.tool_call_id, "tool_name": ASK_PERSON.name}
    )
    return str(decision)


CATALOG: dict[ToolName, BaseTool] = {"echo": echo, "whoami": whoami, "ask_person": ask_person}


def _tools(spec: AgentSpec) -> list[BaseTool]:
    """The spec's catalog tools; `call_service` is bound to the spec's base URL."""

    @tool(CALL_SERVICE.name, description=CALL_SERVICE.description)
    async def call_service_tool(key: str = CALL_SERVICE.default("key")) -> str:
        return await call_service(spec.base_url, key)

    bound: dict[str, BaseTool] = {"call_service": call_service_tool}
    return [bound[name] if name in bound else CATALOG[name] for name in spec.tools]


def _config(thread: str) -> dict[str, Any]:
    """The run config a langgraph caller passes: the thread it names."""
    return {"configurable": {"thread_id": thread}}


def _new_thread() -> str:
    return uuid.uuid4().hex


def _restore(checkpoint: JSON) -> list[BaseMessage]:
    """The messages of a checkpoint, read back by langchain's own `messages_from_dict`."""
    try:
        return messages_from_dict(checkpoint["messages"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(
            "continue_from: not a checkpoint of this adapter (a JSON object with 'messages' "
            f"as langchain's messages_to_dict writes them): {error!r}"
        ) from error


def _as_json(thread: str, messages: list[BaseMessage]) -> JSON:
    return {"thread_id": thread, "messages": messages_to_dict(messages)}


class LangGraphAgent:
    """One compiled ReAct graph and the thread its caller holds."""

    def __init__(
        self, graph: Any, connection: aiosqlite.Connection, http: openai.DefaultAsyncHttpxClient
    ) -> None:
        self._graph = graph
        self._connection = connection
        self._http = http
        self._thread: str | None = None

    async def _invoke(self, payload: Any, thread: str, context: RunContext | None) -> RunOutcome:
        """Invoke the graph on `thread`, which the agent holds from now on."""
        self._thread = thread
        # a provider failure propagates out of the graph; the thread keeps what its last
        # completed super-step wrote, which this adapter does not hand back: no checkpoint
        with reporting_failures():
            result = await self._graph.ainvoke(payload, _config(thread), context=context)
        return _outcome(thread, result)

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
                "this adapter does not declare session_id: langgraph has no session apart "
                "from its thread, so run(session_id=...) has no meaning here"
            )
        history = [] if continue_from is None else _restore(continue_from)
        context = RunContext(identity=identity.model_dump(exclude_none=True)) if identity else None
        payload = {"messages": [*history, HumanMessage(message)]}
        return await self._invoke(payload, _new_thread(), context)

    async def follow_up(self, message: str) -> RunOutcome:
        # Before any run the caller holds no thread yet and names a fresh one: langgraph
        # runs it as a first turn (follow-up.refuses-before-first-run fails on that).
        thread = self._thread or _new_thread()
        return await self._invoke({"messages": [HumanMessage(message)]}, thread, None)

    async def checkpoint(self) -> JSON:
        if self._thread is None:
            raise LookupError("checkpoint(): this agent has named no thread yet; run it first")
        state = await self._graph.aget_state(_config(self._thread))
        return _as_json(self._thread, state.values.get("messages", []))

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        if session_id is not None:
            raise ValueError("this adapter does not declare session_id: langgraph has no session")
        if not isinstance(checkpoint, dict) or not isinstance(checkpoint.get("thread_id"), str):
            raise ValueError(
                "resume: not a checkpoint of this adapter (a JSON object naming the paused "
                "thread as 'thread_id'); pass the checkpoint the paused run returned"
            )
        # no decision: invoke the thread with no input and no resume value, which re-runs
        # the interrupted node, whose interrupt() has nothing to return and pauses again
        payload: Command[Any] | None = None if decision is None else Command(resume=decision)
        return await self._invoke(payload, checkpoint["thread_id"], None)

    async def abandon_pause(self) -> dict[str, str] | None:
        if self._thread is None:
            return None
        config = _config(self._thread)
        state = await self._graph.aget_state(config)
        if not state.interrupts:
            return None
        dropped = PendingReport.model_validate(state.interrupts[0].value)
        # The whole paused tool step is dropped: the calls of its batch that have no result
        # are closed too, or langgraph refuses the next turn's history. The step's results
        # that did come are written again with it (the same message ids: add_messages
        # replaces, never duplicates), since an update as the tools node stands in for the
        # interrupted step and its writes.
        messages: list[BaseMessage] = state.values.get("messages", [])
        at = max((n for n, m in enumerate(messages) if isinstance(m, AIMessage)), default=-1)
        came = [m for m in messages[at + 1 :] if isinstance(m, ToolMessage)]
        answered = {m.tool_call_id for m in came}
        batch = messages[at] if at >= 0 else None
        calls = [
            c
            for c in (batch.tool_calls if isinstance(batch, AIMessage) else [])
            if c["id"] not in answered
        ]
        closing = [
            ToolMessage(
                ABANDONED_RESULT if call["id"] == dropped.tool_call_id else NOT_RUN_RESULT,
                tool_call_id=call["id"],
                name=call["name"],
            )
            for call in calls
        ] or [
            ToolMessage(ABANDONED_RESULT, tool_call_id=dropped.tool_call_id, name=dropped.tool_name)
        ]
        update = {"messages": [*came, *closing]}
        await self._graph.aupdate_state(config, update, as_node="tools")
        return dropped.model_dump()

    async def can_explain(self) -> bool:
        return False  # self_explain is not declared: langgraph has no trace tools

    async def last_identity(self) -> IdentityReport | None:
        return None  # identity_report is not declared: langgraph has no identity ladder

    async def close(self) -> None:
        """Close the SQLite connection and the HTTP client on the loop that opened them."""
        await self._connection.close()
        await self._http.aclose()


def _outcome(thread: str, result: dict[str, Any]) -> RunOutcome:
    """What an invoke returned: the pause it stopped at, or the last answer."""
    messages: list[BaseMessage] = result["messages"]
    checkpoint = _as_json(thread, messages)
    interrupts = result.get("__interrupt__") or ()
    if interrupts:
        paused = PendingReport.model_validate(interrupts[0].value)
        return RunOutcome(paused=paused, checkpoint=checkpoint)
    last = messages[-1]
    answer = last.text if isinstance(last, AIMessage) else None
    return RunOutcome(answer=answer, checkpoint=checkpoint)


class LangGraphImplementation:
    name = PACKAGE
    version = metadata.version(PACKAGE)
    capabilities = frozenset(
        {
            Capability.FOLLOW_UP,
            Capability.CONTINUE_FROM,
            Capability.NAMED_AGENTS,
            Capability.IDENTITY,
            Capability.TOOL_CONTEXT,
            Capability.PAUSE,
            Capability.CALL_SERVICE,
        }
    )
    dialects = frozenset({Dialect.OPENAI_CHAT})
    deliveries = frozenset(Delivery)
    notes = (
        f"the agent is langgraph.prebuilt.create_react_agent (langgraph-prebuilt "
        f"{metadata.version('langgraph-prebuilt')}) with ChatOpenAI (langchain-openai "
        f"{metadata.version('langchain-openai')}) over Chat Completions and an AsyncSqliteSaver "
        f"(langgraph-checkpoint-sqlite {metadata.version('langgraph-checkpoint-sqlite')}) on a "
        "SQLite file",
        "follow_up continues the thread_id the agent last named; before any run it names a "
        "fresh one, as a langgraph caller would, and langgraph runs it as a first turn",
        "a thread can be invoked while a run on it is in flight; langgraph (the library, not "
        "the LangGraph server) guards nothing",
        "abandon_pause closes the asking call through update_state(as_node='tools') with a "
        "result text the adapter writes: langgraph has no abandon of its own",
        "a follow-up on a paused thread raises langgraph's INVALID_CHAT_HISTORY ValueError "
        "after committing the message and dropping the interrupt; it is not mapped to a "
        "refusal",
        "run.no-history, follow-up.shows-last-answer, continue-from.any-conversation and "
        "checkpoint.final-answer fail only as collateral: their own tests pass, but they "
        "share the stateful door test with follow-up.refuses-before-first-run",
    )

    def __init__(self, database: Path | None = None) -> None:
        """`database`: the SQLite file to checkpoint to (another process may share it);
        by default one in a temporary folder, removed when the process exits."""
        self._database = database
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    @property
    def database(self) -> Path:
        """The SQLite file every agent of this implementation checkpoints to."""
        if self._database is None:
            self._folder = tempfile.TemporaryDirectory(prefix="turnlaw-langgraph-")
            self._database = Path(self._folder.name) / "checkpoints.sqlite"
        return self._database

    async def create_agent(self, spec: AgentSpec) -> LangGraphAgent:
        if spec.dialect is not Dialect.OPENAI_CHAT:
            raise ValueError(f"this adapter speaks Chat Completions only, not {spec.dialect}")
        http = openai_http()
        model = ChatOpenAI(
            model=spec.model,
            base_url=spec.base_url,
            api_key=spec.api_key,  # type: ignore[arg-type]
            http_async_client=http,
            streaming=spec.stream,  # ainvoke streams underneath and assembles the chunks
        )
        connection = aiosqlite.connect(self.database)
        with warnings.catch_warnings():
            # create_react_agent is deprecated in favour of langchain's create_agent; it is
            # still langgraph's own agent in the pinned version, and the one measured here.
            warnings.simplefilter("ignore", DeprecationWarning)
            graph = create_react_agent(
                model,
                _tools(spec),
                prompt=spec.system or None,
                checkpointer=AsyncSqliteSaver(connection),
                context_schema=RunContext,
                name=spec.id,
            )
        return LangGraphAgent(graph, connection, http)


implementation = LangGraphImplementation()
