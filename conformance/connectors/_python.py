"""The `module:attr` connector: a Python Implementation imported into the suite's process."""

from __future__ import annotations

import importlib

from ..adapter import (
    AgentIdPatternError,
    Capability,
    Implementation,
    declared_agent_id_pattern,
)
from ._registry import Connection, ConnectorError

_REFERENCE_SDKS = frozenset({"openai", "anthropic"})
"""What the reference runtime imports that the suite does not (the `reference` extra)."""


def import_implementation(spec: str, connection: Connection) -> Implementation:
    """`module:attr` -> the Implementation it names, checked for what the runner reads
    before any law: its name, capabilities and agent id pattern."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConnectorError(f"--impl {spec!r}: expected 'module:attribute'")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        sdk = error.name if isinstance(error, ImportError) else None
        hint = ""
        if module_name.startswith("reference_impl") and sdk in _REFERENCE_SDKS:
            hint = (
                "; the bundled reference runtime needs the official SDKs: install "
                "'turnlaw[reference]', or, where your framework pins other SDK versions, "
                "run the reference from an environment of its own through cmd: (see "
                "'Installing beside your framework' in docs/suite.md); pass --impl for "
                "your own runtime (the suite itself needs no SDK)"
            )
        raise ConnectorError(
            f"--impl {spec!r}: cannot import {module_name}: {error!r}{hint}"
        ) from error
    try:
        implementation = getattr(module, attr)
    except AttributeError:
        raise ConnectorError(f"--impl {spec!r}: {module_name} has no attribute {attr!r}") from None
    if not isinstance(implementation, Implementation):
        raise ConnectorError(
            f"--impl {spec!r}: not an Implementation (needs name, capabilities and an async "
            "create_agent(spec)); see conformance.adapter"
        )
    unknown = {str(c) for c in implementation.capabilities} - {c.value for c in Capability}
    if unknown:
        raise ConnectorError(f"--impl {spec!r}: unknown capabilities {sorted(unknown)}")
    try:
        declared_agent_id_pattern(implementation)
    except AgentIdPatternError as error:
        raise ConnectorError(f"--impl {spec!r}: {error}") from None
    return implementation
