"""The conformance adapter for langgraph's prebuilt ReAct agent (`--impl
conformance.adapters.langgraph:implementation`).

Pinned and observed with langgraph 1.2.24 (langgraph-prebuilt 1.1.3, langgraph-checkpoint
4.3.2), langgraph-checkpoint-sqlite 3.1.2, langchain-core 1.8.3, langchain-openai 1.7.4.

It translates; it never repairs. Each agent is `langgraph.prebuilt.create_react_agent(
ChatOpenAI(...), tools, prompt=spec.system, name=spec.id, checkpointer=AsyncSqliteSaver,
context_schema=RunContext)`: langgraph's own ReAct graph (deprecated in langgraph 1.x in
favour of `langchain.agents.create_agent`, which lives in another package and is not what
this adapter measures). The model is reached by `ChatOpenAI` over Chat Completions, its
default, on the loopback fake; LangSmith tracing is switched off before langchain loads.

Where conversations live. Every agent's checkpointer is an `AsyncSqliteSaver` on one real
SQLite file (a temporary one, or `LangGraphImplementation(database=path)`), so a paused
thread is resumed from what was written to disk, as a deployment would, by any agent of the
process or by another process on the same file (tests/thirdparty checks that). An
`InMemorySaver` would skip the serialization to disk, so it is not used. Each agent opens
its own connection because langgraph binds an async saver to the event loop it was made on.

The mapping, door by door:

- `run(message)` invokes the graph on a new `thread_id` (uuid4) with that one message;
  the agent remembers the thread as its current conversation once the invoke returns.
- `run(message, continue_from=cp)` invokes on a new thread seeded with
  `messages_from_dict(cp["messages"])` plus the message: the explicit-history door.
- `follow_up(message)` invokes the agent's current thread with the message: langgraph's
  own continuation (the checkpointer loads the thread). Before any run the agent has no
  thread and the invoke names none, which langgraph refuses ("Checkpointer requires ...
  thread_id"): NO_CONVERSATION.
- `checkpoint()` is `{"thread_id", "messages": messages_to_dict(state.values["messages"])}`
  of the current thread, as JSON data. `thread_id` is langgraph's handle for `resume`;
  `continue_from` reads only `messages`.
- `ask_person(question)` calls `langgraph.types.interrupt({...})`; a run that stops there
  returns `__interrupt__`, reported as the pause. `resume(cp, decision)` invokes
  `Command(resume=decision)` on `cp["thread_id"]`, and the tool returns the decision.
- `abandon_pause()` reads the thread's pending `interrupts`, closes the asking call with
  `update_state({"messages": [ToolMessage(...)]}, as_node="tools")` (langgraph's documented
  way to edit a paused thread) and returns what it dropped.
- Identity is langgraph's run-scoped `context=` (`Runtime.context`, read by tools through
  `ToolRuntime`); it is never a thread id, and no provider-side conversation id exists on
  Chat Completions.

Errors langgraph raises are mapped, never anticipated: `ValueError` "Checkpointer requires
... thread_id" -> NO_CONVERSATION; `ValueError` INVALID_CHAT_HISTORY (the agent node found a
tool call without a result, i.e. the asking call of a pause) -> PENDING_QUESTION; a
checkpoint `messages_from_dict` cannot read -> INVALID_CHECKPOINT. The INVALID_CHAT_HISTORY
refusal comes after langgraph has committed the new message to the paused thread and
dropped its interrupt, so a later resume is refused the same way: the refusal is mapped as
langgraph gives it, and what it costs is shown in tests/thirdparty and
examples/thirdparty/langgraph_pending.py.

Capabilities declared, law by law:

- follow_up, continue_from: the doors above. run.no-history, follow-up.*,
  continue-from.any-conversation and checkpoint.{plain-json,final-answer,no-trim} pass.
- named_agents: `create_react_agent(name=)` stamps the name on every `AIMessage` (it is in
  the checkpoint and on the wire as the assistant `name`), so langgraph has named agents;
  it never compares them, so mismatch.refuses-another-agents-conversation fails.
  mismatch.changed-agent-continues passes, and so does mismatch.default-id-never-refuses
  on its own (langgraph refuses nothing), though the runner also charges it with the
  failure of the Hypothesis test it shares with the law above.
- identity, tool_context: `context=` reaches tools (whoami) and never joins runs
  (run.conversation-id-does-not-join passes). Context is not state: a continued thread or
  a restored checkpoint runs without it, so checkpoint.carries-identity fails.
- pause: interrupt / Command(resume) / update_state as above. A new message on a paused
  thread is committed before the agent node rejects the history, and a new `run()` is a
  new thread that nothing stops, so pending.refuses-new-message fails.

Left out (NOT_APPLICABLE), because langgraph has no such concept of its own:

- session_id, identity_report (identity.ladder): no session id apart from the thread, no
  namespace ladder; the suite's run(session_id=) is a namespace for tools and memory, not
  a thread that replays turns. identity.reaches-tools and
  identity.synthesized-not-published are checked only inside the ladder test, so they are
  not applicable either, although `context=` does reach tools.
- memory, window, compaction: the prebuilt agent offers `pre_model_hook` and a `store`,
  but recall into the system prompt, a turn window or a model-written fold would be code
  this adapter writes, not langgraph's.
- in_flight_guard: no guard in the library (the "reject" multitask strategy belongs to
  the LangGraph server). Seen on the fake: a second invoke on a thread whose run is in
  flight runs at once, the model is shown both user turns in a row, and the thread keeps
  only the run that finished last.
- self_explain: no trace tools. hosting: the LangGraph server, not this package.
"""

from __future__ import annotations

import json
import os
import ssl
import tempfile
import uuid
import warnings
from dataclasses import dataclass
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
from langgraph.errors import ErrorCode
from langgraph.prebuilt import ToolRuntime, create_react_agent
from langgraph.types import Command, interrupt

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
)
from conformance.wire.ir import Dialect

ABANDONED = "The person was not asked: the question was abandoned."
"""The result an abandoned asking call is closed with (langgraph has no text of its own)."""

_NO_THREAD = "Checkpointer requires one or more of the following 'configurable' keys"


@dataclass(frozen=True)
class RunContext:
    """langgraph's run-scoped context (`context_schema`): the identity a run was given."""

    identity: dict[str, str] | None = None


@tool
def echo(text: str = "") -> str:
    """Echo the text back."""
    return text


@tool
def whoami(runtime: ToolRuntime[RunContext]) -> str:
    """What the run told this tool."""
    context = runtime.context
    identity = context.identity if isinstance(context, RunContext) else None
    return json.dumps({"identity": identity, "session_id": None})


@tool
def ask_person(runtime: ToolRuntime[RunContext], question: str = "May I?") -> str:
    """Ask a person and wait for the answer."""
    decision = interrupt(
        {"question": question, "tool_call_id": runtime.tool_call_id, "tool_name": "ask_person"}
    )
    return str(decision)


CATALOG: dict[str, BaseTool] = {"echo": echo, "whoami": whoami, "ask_person": ask_person}


def _config(thread: str | None) -> dict[str, Any]:
    """A run config naming the thread, or naming none (langgraph then refuses)."""
    return {"configurable": {"thread_id": thread}} if thread is not None else {}


def _refusal(error: Exception) -> Refused | None:
    """langgraph's own refusals, in the suite's kinds; anything else is not one."""
    said = str(error)
    if isinstance(error, ValueError) and said.startswith(_NO_THREAD):
        return Refused(RefusalKind.NO_CONVERSATION, said)
    if isinstance(error, ValueError) and ErrorCode.INVALID_CHAT_HISTORY.value in said:
        return Refused(RefusalKind.PENDING_QUESTION, said)
    return None


def _restore(checkpoint: JSON) -> list[BaseMessage]:
    """The messages of a checkpoint, read back by langchain's own `messages_from_dict`."""
    try:
        return messages_from_dict(checkpoint["messages"])
    except (KeyError, TypeError, ValueError) as error:
        raise Refused(
            RefusalKind.INVALID_CHECKPOINT,
            f"not a checkpoint of this adapter ({{'thread_id', 'messages'}}): {error!r}",
        ) from error


def _as_json(thread: str | None, messages: list[BaseMessage]) -> JSON:
    return {"thread_id": thread, "messages": messages_to_dict(messages)}


class LangGraphAgent:
    """One compiled ReAct graph and the thread it last ran on."""

    def __init__(
        self, graph: Any, connection: aiosqlite.Connection, http: openai.DefaultAsyncHttpxClient
    ) -> None:
        self._graph = graph
        self._connection = connection
        self._http = http
        self._thread: str | None = None

    async def _invoke(self, payload: Any, thread: str | None, context: RunContext | None) -> Any:
        try:
            return await self._graph.ainvoke(payload, _config(thread), context=context)
        except ValueError as error:
            refusal = _refusal(error)
            if refusal is None:
                raise
            raise refusal from error

    def _outcome(self, thread: str | None, result: dict[str, Any]) -> RunOutcome:
        self._thread = thread
        messages: list[BaseMessage] = result["messages"]
        checkpoint = _as_json(thread, messages)
        interrupts = result.get("__interrupt__") or ()
        if interrupts:
            asked = interrupts[0].value
            return RunOutcome(
                paused=PendingReport(
                    tool_name=asked["tool_name"],
                    tool_call_id=asked["tool_call_id"],
                    question=asked["question"],
                ),
                checkpoint=checkpoint,
            )
        last = messages[-1]
        answer = last.text if isinstance(last, AIMessage) else None
        return RunOutcome(answer=answer, checkpoint=checkpoint)

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
        thread = uuid.uuid4().hex
        payload = {"messages": [*history, HumanMessage(message)]}
        return self._outcome(thread, await self._invoke(payload, thread, context))

    async def follow_up(self, message: str) -> RunOutcome:
        thread = self._thread  # None before any run: langgraph refuses a run on no thread
        result = await self._invoke({"messages": [HumanMessage(message)]}, thread, None)
        return self._outcome(thread, result)

    async def checkpoint(self) -> JSON:
        if self._thread is None:
            raise Refused(RefusalKind.NO_CONVERSATION, "this agent has run on no thread yet")
        state = await self._graph.aget_state(_config(self._thread))
        return _as_json(self._thread, state.values.get("messages", []))

    async def resume(self, checkpoint: JSON, decision: str) -> RunOutcome:
        if not isinstance(checkpoint, dict) or not isinstance(checkpoint.get("thread_id"), str):
            raise Refused(RefusalKind.INVALID_CHECKPOINT, "a checkpoint names its thread_id")
        thread: str = checkpoint["thread_id"]
        return self._outcome(thread, await self._invoke(Command(resume=decision), thread, None))

    async def abandon_pause(self) -> dict[str, str] | None:
        if self._thread is None:
            return None
        config = _config(self._thread)
        state = await self._graph.aget_state(config)
        if not state.interrupts:
            return None
        asked = state.interrupts[0].value
        closing = ToolMessage(ABANDONED, tool_call_id=asked["tool_call_id"], name="ask_person")
        await self._graph.aupdate_state(config, {"messages": [closing]}, as_node="tools")
        return {key: str(asked[key]) for key in ("tool_name", "tool_call_id", "question")}

    async def can_explain(self) -> bool:
        return False  # self_explain is not declared: langgraph has no trace tools

    async def last_identity(self) -> IdentityReport | None:
        return None  # identity_report is not declared: langgraph has no identity ladder

    async def close(self) -> None:
        """Close the SQLite connection and the HTTP client on the loop that opened them."""
        await self._connection.close()
        await self._http.aclose()


_TLS = ssl.create_default_context()
"""One CA context for every agent's HTTP client (building one costs ~30 ms; the fake is
plain HTTP anyway)."""


class LangGraphImplementation:
    name = "langgraph 1.2.24 create_react_agent (langchain-openai 1.7.4, SQLite checkpointer)"
    capabilities = frozenset(
        {
            Capability.FOLLOW_UP,
            Capability.CONTINUE_FROM,
            Capability.NAMED_AGENTS,
            Capability.IDENTITY,
            Capability.TOOL_CONTEXT,
            Capability.PAUSE,
        }
    )
    dialects = frozenset({Dialect.OPENAI_CHAT})

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
        http = openai.DefaultAsyncHttpxClient(verify=_TLS)
        model = ChatOpenAI(
            model=spec.model,
            base_url=spec.base_url,
            api_key=spec.api_key,  # type: ignore[arg-type]
            http_async_client=http,
        )
        connection = aiosqlite.connect(self.database)
        with warnings.catch_warnings():
            # create_react_agent is deprecated in favour of langchain's create_agent; it is
            # still langgraph's own agent in the pinned version, and the one measured here.
            warnings.simplefilter("ignore", DeprecationWarning)
            graph = create_react_agent(
                model,
                [CATALOG[name] for name in spec.tools],
                prompt=spec.system or None,
                checkpointer=AsyncSqliteSaver(connection),
                context_schema=RunContext,
                name=spec.id,
            )
        return LangGraphAgent(graph, connection, http)


implementation = LangGraphImplementation()
