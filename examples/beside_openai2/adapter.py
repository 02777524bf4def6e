"""A runtime on openai 2.x, judged in-process by a suite installed beside it.

Frameworks that pin `openai<3` can still run turnlaw in their own environment: the suite
and the fake need no provider SDK (only the bundled reference runtime does, through the
`turnlaw[reference]` extra). This runtime is the smallest honest one on that SDK — one
conversation per agent, kept as Chat Completions messages, one turn at a time — and
`nox -s beside-openai2`
runs the suite against it in a virtualenv that has `openai<3` and no `anthropic`.

    python -m conformance run \
        --impl examples.beside_openai2.adapter:implementation --dialects openai-chat
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai

from conformance.adapter import (
    JSON,
    AgentSpec,
    Capability,
    Delivery,
    IdentityReport,
    IdentitySpec,
    RefusalKind,
    Refused,
    RunFailed,
    RunOutcome,
)
from conformance.catalog import TOOLS, WhoamiReport, service_url
from conformance.wire.ir import Dialect

Message = dict[str, Any]
VERSION = 1
MAX_TOOL_ROUNDS = 8
ROLES = ("user", "assistant", "tool")


def history_of(checkpoint: JSON) -> list[Message]:
    """A checkpoint's messages, or a refusal: this runtime's own format, checked whole."""
    if not isinstance(checkpoint, dict) or checkpoint.get("version") != VERSION:
        raise Refused(RefusalKind.INVALID_CHECKPOINT, "not a checkpoint of this runtime")
    messages = checkpoint.get("messages")
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str)
        for m in messages
    ):
        raise Refused(RefusalKind.INVALID_CHECKPOINT, "its messages are not chat messages")
    problem = _unpaired(messages)
    if problem is not None:
        raise Refused(RefusalKind.INVALID_CHECKPOINT, problem)
    return json.loads(json.dumps(messages))  # a copy: the caller's data stays theirs


def _a_call(call: Any) -> bool:
    """Is `call` a Chat Completions function call (id, name, arguments as JSON text)?"""
    function = call.get("function") if isinstance(call, dict) else None
    return (
        isinstance(call, dict)
        and isinstance(call.get("id"), str)
        and call.get("type") == "function"
        and isinstance(function, dict)
        and isinstance(function.get("name"), str)
        and isinstance(function.get("arguments"), str)
    )


def _unpaired(messages: list[Any]) -> str | None:
    """Why these messages are no conversation the API takes (None: they are): every tool
    result answers a call of the assistant message before it, and every call is answered
    before anything else is said."""
    owed: set[str] = set()
    seen: set[str] = set()
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            answers = message.get("tool_call_id")
            if not isinstance(answers, str) or answers not in owed:
                return f"messages.{index}: a tool result for no call the assistant made"
            owed.discard(answers)
            continue
        if owed:
            return f"messages.{index}: calls {sorted(owed)} were never answered"
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list) or not all(_a_call(c) for c in calls):
            return f"messages.{index}.tool_calls: not a list of calls with ids"
        owed = {c["id"] for c in calls}
        if len(owed) < len(calls) or owed & seen:
            return f"messages.{index}.tool_calls: a call id is used twice"
        seen |= owed
    return f"calls {sorted(owed)} were never answered" if owed else None


class ChatAgent:
    """One agent: its system prompt, its SDK client, and its last completed conversation.

    It keeps a conversation, so it answers one turn at a time: a turn asked for while
    another is in flight is refused before anything is sent (two overlapping turns would
    both reach the model, and the later one to finish would overwrite the other)."""

    def __init__(self, spec: AgentSpec) -> None:
        self.spec = spec
        self.client = openai.AsyncOpenAI(base_url=spec.base_url, api_key=spec.api_key)
        self.last: list[Message] | None = None
        self.in_flight = False

    def _one_at_a_time(self) -> None:
        """Refuse while a turn is in flight; checked first, whatever else is wrong."""
        if self.in_flight:
            raise Refused(RefusalKind.RUN_IN_FLIGHT, "a turn of this agent is in flight")

    async def _guarded_turn(self, history: list[Message], message: str) -> RunOutcome:
        self.in_flight = True  # set before the first await: no other turn slips in
        try:
            return await self._turn(history, message)
        finally:
            self.in_flight = False

    async def _turn(self, history: list[Message], message: str) -> RunOutcome:
        """One turn: model calls until an answer, each tool call answered in between."""
        conversation = [*history, {"role": "user", "content": message}]
        system = [{"role": "system", "content": self.spec.system}] if self.spec.system else []
        tools = [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": TOOLS[name].description,
                    "parameters": TOOLS[name].parameters_schema(),
                },
            }
            for name in self.spec.tools
        ]
        for _ in range(MAX_TOOL_ROUNDS):
            try:
                reply = await self.client.chat.completions.create(
                    model=self.spec.model,
                    messages=[*system, *conversation],
                    **({"tools": tools} if tools else {}),
                )
            except openai.APIError as error:  # after the SDK's retries: the run failed
                # no checkpoint of the failed turn is kept: the last completed one stays
                raise RunFailed(f"{type(error).__name__}: {error}") from error
            said = reply.choices[0].message
            if not said.tool_calls:
                answer = said.content or ""
                conversation.append({"role": "assistant", "content": answer})
                self.last = conversation  # only a completed turn is the agent's conversation
                return RunOutcome(answer=answer, checkpoint=await self.checkpoint())
            calls = [c.model_dump(include={"id", "type", "function"}) for c in said.tool_calls]
            conversation.append(
                {"role": "assistant", "content": said.content or "", "tool_calls": calls}
            )
            for call in said.tool_calls:
                result = await self._call_tool(call.function.name, call.function.arguments)
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": result})
        raise RuntimeError(f"no answer after {MAX_TOOL_ROUNDS} tool rounds")

    async def _call_tool(self, name: str, arguments: str) -> str:
        if name not in self.spec.tools:
            return f"no tool {name!r}"
        given = json.loads(arguments or "{}")
        if name == "echo":
            return str(given.get("text", TOOLS["echo"].default("text")))
        if name == "call_service":  # a GET to the fake; a failed one is the tool's error
            key = str(given.get("key", TOOLS["call_service"].default("key")))
            async with httpx.AsyncClient(timeout=None) as http:
                reply = await http.get(service_url(self.spec.base_url, key))
            if reply.status_code != 200:
                return f"tool failed: {reply.status_code}: {reply.text}"
            return reply.text
        if name == "whoami":  # tool_context is not declared: nothing was told
            return WhoamiReport.told(None).as_text()
        raise NotImplementedError("pause is not declared: ask_person cannot pause")

    async def run(
        self,
        message: str,
        *,
        continue_from: JSON | None = None,
        identity: IdentitySpec | None = None,
        session_id: str | None = None,
    ) -> RunOutcome:
        if identity is not None or session_id is not None:
            raise NotImplementedError("identity and session_id are not declared")
        self._one_at_a_time()
        history = [] if continue_from is None else history_of(continue_from)
        return await self._guarded_turn(history, message)

    async def follow_up(self, message: str) -> RunOutcome:
        self._one_at_a_time()
        if self.last is None:
            raise Refused(RefusalKind.NO_CONVERSATION, "no completed run to follow up")
        return await self._guarded_turn(self.last, message)

    async def checkpoint(self) -> JSON:
        if self.last is None:
            raise Refused(RefusalKind.NO_CONVERSATION, "no completed run yet")
        return {"version": VERSION, "messages": [dict(m) for m in self.last]}

    async def resume(
        self, checkpoint: JSON, decision: str | None, *, session_id: str | None = None
    ) -> RunOutcome:
        raise NotImplementedError("pause is not declared")

    async def abandon_pause(self) -> dict[str, str] | None:
        raise NotImplementedError("pause is not declared")

    async def can_explain(self) -> bool:
        raise NotImplementedError("self_explain is not declared")

    async def last_identity(self) -> IdentityReport | None:
        raise NotImplementedError("identity_report is not declared")

    async def close(self) -> None:
        await self.client.close()


class ChatImplementation:
    name = "chat on openai 2.x"
    version = openai.__version__
    capabilities = frozenset(
        {Capability.FOLLOW_UP, Capability.CONTINUE_FROM, Capability.CALL_SERVICE}
    )
    dialects = frozenset({Dialect.OPENAI_CHAT})
    deliveries = frozenset({Delivery.WHOLE})  # chat.completions.create, never streamed

    async def create_agent(self, spec: AgentSpec) -> ChatAgent:
        return ChatAgent(spec)


implementation: Any = ChatImplementation()
