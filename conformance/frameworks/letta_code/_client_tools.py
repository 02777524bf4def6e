"""The catalog's tools as Letta Code client tools: registered per session, run here.

The SDK's `tools` option is a list of `{name, description, parameters, execute}`: it
registers the first three with the CLI (`register_external_tools`) and, when the CLI
sends `execute_external_tool`, calls `execute` and answers `external_tool_result` with
the text it returned, or, when it threw, with `Tool execution error: <message>` and
`is_error: true`. These are the catalog's tools written that way, their bodies as the
reference runtime's (`reference_impl/_spec_agent.py`):

- `echo(text)` returns the text;
- `whoami()` reports what the runtime told the tool: Letta Code's request names only
  the call (`tool_call_id`, `tool_name`, `input`), no identity and no session, so the
  report says None for both;
- `call_service(key)` GETs the fake's service URL (`conformance.frameworks.kit`), failing
  with its reply when that is not 200;
- `ask_person(question)`: in the session model the person is asked through the
  runtime's permission request (`needs_approval`, `decide`), before the tool runs; a run
  of `ask_person` after an allow returns "allow", and one no person was asked about
  returns the catalog's abandoned-question text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from conformance.catalog import ABANDONED_RESULT, TOOLS, ToolName, WhoamiReport
from conformance.frameworks.kit import ServiceFailedError, call_service

from ._letta_lines import ExternalTool


def tool_definitions(names: Iterable[ToolName]) -> list[ExternalTool]:
    """What `register_external_tools` sends for the session's tools."""
    return [
        ExternalTool(
            name=TOOLS[name].name,
            description=TOOLS[name].description,
            parameters=TOOLS[name].parameters_schema(),
        )
        for name in names
    ]


def _argument(tool: ToolName, arguments: Any, name: str) -> str:
    value = arguments.get(name) if isinstance(arguments, dict) else None
    return value if isinstance(value, str) else TOOLS[tool].default(name)


async def run_client_tool(
    name: str, arguments: Any, *, offered: Iterable[str], base_url: str, allowed: bool
) -> tuple[str, bool]:
    """Run `name` as the SDK runs a registered tool: (text, is_error)."""
    if name not in set(offered) or name not in TOOLS:
        return f"Unknown external tool: {name}", True
    tool: ToolName = TOOLS[name].name  # type: ignore[index]
    try:
        if tool == "echo":
            return _argument(tool, arguments, "text"), False
        if tool == "whoami":
            return WhoamiReport.told(None, None).as_text(), False
        if tool == "ask_person":
            return ("allow" if allowed else ABANDONED_RESULT), False
        return await call_service(base_url, _argument(tool, arguments, "key")), False
    except ServiceFailedError as error:
        return f"Tool execution error: {error}", True


__all__ = ["run_client_tool", "tool_definitions"]
