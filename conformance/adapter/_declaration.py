"""What an implementation declares besides its name and capabilities, read in one place.

Every declaration is an optional attribute of the Implementation (or a field of a `cmd:`
adapter's `start` reply, which the connector sets as the same attributes): the
dialects and deliveries it offers, its trace tool and the tool that activates it, the
compaction triggers it honours, its version and notes, its agent id pattern and the
protocol revision it was written for. An implementation that says nothing gets the
spec's defaults, written here once: `declaration_of` is the only reader, so the runner,
the laws, the stdio adapter side and the protocol's evolution all see the same answer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ..wire.ir import Dialect
from ._types import Delivery

DEFAULT_DIALECTS = frozenset({Dialect.OPENAI_CHAT})
"""An implementation that declares no `dialects`: Chat Completions only."""
DEFAULT_DELIVERIES = frozenset({Delivery.STREAM})
"""An implementation that declares no `deliveries`: it streams, as the spec's default
asks (and as it did before the axis existed)."""
DEFAULT_COMPACTION_TRIGGERS = ("turns",)
"""An implementation that declares no (or no) `compaction_triggers`: turns only."""


class Declaration(BaseModel):
    """An implementation's optional declarations, each with its default."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    dialects: frozenset[Dialect] = DEFAULT_DIALECTS
    """The dialects it offers (an unknown one is none the suite speaks: left out)."""
    deliveries: frozenset[Delivery] = DEFAULT_DELIVERIES
    """What it honours of `AgentSpec.stream`."""
    trace_tool: str | None = None
    """The tool a self-explain agent offers its model to read the trace."""
    trace_activation: str | None = None
    """A tool the model calls first, in each run, before the trace tool is offered."""
    compaction_triggers: tuple[str, ...] = DEFAULT_COMPACTION_TRIGGERS
    version: str | None = None
    """The release under test, for the results header."""
    notes: tuple[str, ...] = ()
    """What a reader of its results must know, for the results header."""
    agent_id_pattern: object = None
    """As declared, checked by `declared_agent_id_pattern` (not here: a bad one is the
    user's error to be told, not a default to fall back on)."""
    revision: int | None = None
    """The protocol v1 revision it says it was written for; None: it says nothing (each
    reader knows what silence means for it)."""


def _name(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def declaration_of(implementation: Any) -> Declaration:
    """Read `implementation`'s declarations, the defaults for what it leaves out."""
    dialects = getattr(implementation, "dialects", None)
    dialects = DEFAULT_DIALECTS if dialects is None else dialects
    deliveries = getattr(implementation, "deliveries", None)
    deliveries = DEFAULT_DELIVERIES if deliveries is None else deliveries
    triggers = getattr(implementation, "compaction_triggers", None) or ()
    version = getattr(implementation, "version", None)
    revision = getattr(implementation, "revision", None)
    return Declaration(
        dialects=frozenset(d for d in Dialect if d in set(dialects)),
        deliveries=frozenset(Delivery(str(d)) for d in deliveries),
        trace_tool=_name(getattr(implementation, "trace_tool", None)),
        trace_activation=_name(getattr(implementation, "trace_activation", None)),
        compaction_triggers=tuple(str(t) for t in triggers) or DEFAULT_COMPACTION_TRIGGERS,
        version=None if version is None else str(version),
        notes=tuple(str(n) for n in getattr(implementation, "notes", ())),
        agent_id_pattern=getattr(implementation, "agent_id_pattern", None),
        revision=revision if isinstance(revision, int) and not isinstance(revision, bool) else None,
    )


__all__ = [
    "DEFAULT_COMPACTION_TRIGGERS",
    "DEFAULT_DELIVERIES",
    "DEFAULT_DIALECTS",
    "Declaration",
    "declaration_of",
]
