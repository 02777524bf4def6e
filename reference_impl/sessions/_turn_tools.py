"""What a session's turn is played with besides the agent record: a provider that tells
the session what the model answered, and the session's client tools.

The agent's tool loop is the reference's own (`TurnLoop`); the session runtime only
wraps what the loop calls. The provider wrapper emits an `assistant` event for each model
reply that has text; a client tool emits `tool_call`, waits for a person when the session
says the tool needs approval (`approval_request`; denied: the model is shown the denial),
has the client run it over the session's connection, and emits `tool_result` with exactly
what the model is shown (an error result as the loop words it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn, Protocol

from ..conversation import ToolSpec, Turn
from ..providers import ModelProvider, ModelReply
from ..tools import Tool, ToolContext
from ._events import AssistantEvent, ToolCallEvent, ToolResultEvent
from ._lane import ActiveTurn
from ._wire import ToolDefinition

ERROR_PREFIX = "tool error: "
"""How the tool loop words a failed tool's result (`TurnLoop._run_tools`), so the
`tool_result` event says what the model is shown."""


class ToolFailedError(Exception):
    """A client tool failed, or a person denied it: the model is shown the message."""


class ApprovalDesk(Protocol):
    """The runtime's seams a client tool goes through."""

    def needs_approval(self, turn: ActiveTurn, tool_name: str) -> bool: ...

    async def wait_for_approval(
        self, turn: ActiveTurn, tool_call_id: str, tool_name: str, arguments: dict[str, Any]
    ) -> bool: ...

    def denial(self, tool_name: str) -> str: ...


class EventedProvider:
    """The runtime's model provider, telling the turn's session what the model answered."""

    def __init__(self, inner: ModelProvider, turn: ActiveTurn) -> None:
        self.inner = inner
        self.turn = turn

    async def complete(
        self,
        *,
        model: str,
        system: str,
        turns: Sequence[Turn],
        tools: Sequence[ToolSpec],
    ) -> ModelReply:
        reply = await self.inner.complete(model=model, system=system, turns=turns, tools=tools)
        if not reply.tool_calls:
            self.turn.finishing = True
        if reply.text:
            self.turn.emit(AssistantEvent(text=reply.text, run_id=self.turn.run_id()))
        return reply


def client_tool(definition: ToolDefinition, turn: ActiveTurn, desk: ApprovalDesk) -> Tool:
    """The session's tool as the agent offers it: run by the turn's client."""
    name = definition.name

    async def run(ctx: ToolContext, **arguments: Any) -> str:
        call_id = ctx.tool_call_id or ""
        turn.emit(
            ToolCallEvent(
                tool_call_id=call_id, tool_name=name, arguments=arguments, run_id=ctx.run_id
            )
        )
        if desk.needs_approval(turn, name) and not await desk.wait_for_approval(
            turn, call_id, name, arguments
        ):
            _failed(turn, ctx, desk.denial(name))
        output = await turn.owner.run_tool(call_id, name, arguments)
        if output.is_error:
            _failed(turn, ctx, output.content)
        turn.emit(ToolResultEvent(tool_call_id=call_id, content=output.content, run_id=ctx.run_id))
        return output.content

    return Tool(
        name=name, fn=run, description=definition.description, parameters=definition.parameters
    )


def _failed(turn: ActiveTurn, ctx: ToolContext, message: str) -> NoReturn:
    """Emit the error result the model will be shown, and fail the tool with it."""
    turn.emit(
        ToolResultEvent(
            tool_call_id=ctx.tool_call_id or "",
            content=f"{ERROR_PREFIX}{message}",
            is_error=True,
            run_id=ctx.run_id,
        )
    )
    raise ToolFailedError(message)
