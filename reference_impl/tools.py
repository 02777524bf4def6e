"""Tools: what the model may call, and what a tool is told about the run.

A tool sees `ctx.run_id` always, `ctx.tool_call_id` (the call it is answering),
`ctx.session_id` when the run has one, and
`ctx.identity` only when somebody *named* an identity — a namespace the runtime
synthesized is never published, so absent keeps meaning "nobody named one".
A tool pauses the run to ask a person by calling `ask_person(question)`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from .conversation import Identity, ToolSpec


@dataclass(frozen=True, slots=True)
class ToolContext:
    run_id: str
    session_id: str | None = None
    identity: Identity | None = None
    tool_call_id: str | None = None
    """The call this tool is answering (a runtime that asks someone else to run the tool,
    or to approve it, names the call it asks about)."""


class AskPerson(Exception):
    """Raised by a tool to pause the run until a person answers `question`."""

    def __init__(self, question: str) -> None:
        super().__init__(question)
        self.question = question


def ask_person(question: str) -> NoReturn:
    """Pause the run here; the person's decision becomes this tool call's result."""
    raise AskPerson(question)


ToolFunction = Callable[..., Any | Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Tool:
    """A named function the model may call as `fn(ctx, **arguments)`."""

    name: str
    fn: ToolFunction
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    async def call(self, ctx: ToolContext, arguments: dict[str, Any]) -> str:
        """Run the tool; the result reaches the model as text (JSON unless already text)."""
        result = self.fn(ctx, **arguments)
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, str) else json.dumps(result)


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> Callable[[ToolFunction], Tool]:
    """Decorator: `@tool(description=..., parameters={...})` over `fn(ctx, **arguments)`."""

    def wrap(fn: ToolFunction) -> Tool:
        return Tool(
            name=name or fn.__name__,
            fn=fn,
            description=description if description is not None else (fn.__doc__ or "").strip(),
            parameters=parameters or {"type": "object"},
        )

    return wrap
