"""The fixed tool catalog: the tools every adapter offers its model, as data.

A law scripts the model to call `echo`, `whoami`, `ask_person` or `call_service` and then
reads, on the
wire, what the runtime did with the call; so every adapter must offer the same tools
under the same names, with the same descriptions and arguments, and `whoami` must
report in one shape. They are data rather than code because each adapter wraps them in
its framework's own tool type (a reference `Tool`, a pydantic-ai `Tool`, an Agents SDK
`function_tool`, a langchain `@tool`): the wrapping is the adapter's, the facts are
here, once.

What each framework derives for itself stays its own: a framework builds the parameter
schema it sends from the Python signature the adapter writes (adding defaults, titles or
strictness), so `parameters_schema()` is the catalog's plain schema, which a runtime
that takes a schema as given (the reference) sends unchanged. The defaults the
signatures carry are read from `Parameter.default`.

This module imports nothing of the suite: `conformance.adapter` takes `ToolName` from
here, and a runtime written against the suite may read it without the adapter protocol.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, get_args
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

ToolName = Literal["echo", "whoami", "ask_person", "call_service"]
"""The names of the fixed tools; `AgentSpec.tools` names which of them an agent offers."""


class Parameter(BaseModel):
    """One argument of a catalog tool: a string, optional, with the default it takes."""

    model_config = ConfigDict(frozen=True)

    name: str
    default: str


class CatalogTool(BaseModel):
    """One tool of the catalog: what the model is told and what a call returns."""

    model_config = ConfigDict(frozen=True)

    name: ToolName
    description: str
    parameters: tuple[Parameter, ...] = ()
    returns: str

    def default(self, parameter: str) -> str:
        """The default of `parameter`, for the signature an adapter writes."""
        for known in self.parameters:
            if known.name == parameter:
                return known.default
        raise KeyError(f"{self.name} takes no parameter {parameter!r}")

    def parameters_schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments: an object of optional strings."""
        schema: dict[str, Any] = {"type": "object"}
        if self.parameters:
            schema["properties"] = {p.name: {"type": "string"} for p in self.parameters}
        return schema


ECHO = CatalogTool(
    name="echo",
    description="Echo the text back.",
    parameters=(Parameter(name="text", default=""),),
    returns="the text it was given",
)
WHOAMI = CatalogTool(
    name="whoami",
    description="What the run told this tool.",
    returns="a WhoamiReport as JSON: what the runtime's tool context said",
)
ASK_PERSON = CatalogTool(
    name="ask_person",
    description="Ask a person and wait for the answer.",
    parameters=(Parameter(name="question", default="May I?"),),
    returns="nothing at first: the run pauses; once resumed, the person's decision",
)

CALL_SERVICE = CatalogTool(
    name="call_service",
    description="Call the booking service and return what it answered.",
    parameters=(Parameter(name="key", default="status"),),
    returns="the text of the fake's reply to GET service_url(base_url, key); on a reply "
    "that is not 200, the tool raises (fails) with the reply's text",
)
"""A tool that waits on someone else: the suite holds it mid-run (a law about a tool
that is running) or makes it fail (a law about a tool that raises). Offered only by an
adapter declaring the `call_service` capability."""

TOOLS: Mapping[ToolName, CatalogTool] = {
    tool.name: tool for tool in (ECHO, WHOAMI, ASK_PERSON, CALL_SERVICE)
}
"""Every catalog tool by name, in `ToolName`'s order."""

if tuple(TOOLS) != get_args(ToolName):  # pragma: no cover - a catalog edited by halves
    raise RuntimeError(f"the catalog's tools {tuple(TOOLS)} do not match ToolName")


class WhoamiReport(BaseModel):
    """What `whoami` returns: the identity the run was given and its session id.

    `identity` is there only when one was named (None when the runtime made one up, or
    had none); `session_id` is None where the runtime has no sessions."""

    model_config = ConfigDict(frozen=True)

    identity: dict[str, str] | None = None
    session_id: str | None = None

    @classmethod
    def told(
        cls, identity: BaseModel | Mapping[str, str] | None, session_id: str | None = None
    ) -> WhoamiReport:
        """The report of a tool told `identity` (a model's unset fields left out)."""
        if isinstance(identity, BaseModel):
            identity = identity.model_dump(exclude_none=True)
        return cls(identity=dict(identity) if identity is not None else None, session_id=session_id)

    def as_text(self) -> str:
        """The report as tool result text: `json.dumps` of the two keys, in order, with
        its spacing (what a runtime that hands the framework a dict gets is the
        framework's own serialization; `model_dump_json` would be compact)."""
        return json.dumps(self.model_dump())


def service_url(base_url: str, key: str) -> str:
    """Where `call_service(key)` sends its GET: under the agent's base URL, so it reaches
    the very fake (and test) the agent's model calls go to."""
    return f"{base_url.rstrip('/')}/_turnlaw/tools/{quote(key, safe='')}"


ABANDONED_RESULT = "The person was not asked: the question was abandoned."
"""What an adapter closes an abandoned `ask_person` call with when its framework has no
text of its own (a framework that has one sends its own). `abandon_pause` itself reports
the dropped call as `conformance.adapter.AbandonedPause`: tool_name, tool_call_id, question."""


__all__ = [
    "ABANDONED_RESULT",
    "ASK_PERSON",
    "CALL_SERVICE",
    "ECHO",
    "TOOLS",
    "WHOAMI",
    "CatalogTool",
    "Parameter",
    "ToolName",
    "WhoamiReport",
    "service_url",
]
