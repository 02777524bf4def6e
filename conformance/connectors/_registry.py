"""The registry: a connector per prefix, and the one lookup the runner makes."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..adapter import Implementation

if TYPE_CHECKING:
    import pytest


class ConnectorError(ValueError):
    """`--impl` cannot be connected; the message says why, in the user's words."""


@dataclass(frozen=True)
class Connection:
    """What the runner tells a connector besides the spec."""

    config: pytest.Config | None = None
    """The run's pytest config (its options), or None outside a pytest run."""
    runs_tests: bool = True
    """False for an xdist controller: its implementation only says what it is (name,
    capabilities, declarations), and runs no test."""


Connect = Callable[[str, Connection], Implementation]


@dataclass(frozen=True)
class Connector:
    prefix: str
    """What a spec starts with to be this connector's (`cmd:`); `""` for `module:attr`."""
    connect: str
    """`module:function` of its `Connect`, imported only when a spec asks for it (a
    connector's package is not loaded for a run that does not use it)."""
    plugin: str | None = None
    """A pytest plugin module the runner loads with its own: the connector's options
    and report hooks."""


def _resolve(dotted: str) -> Connect:
    module, _, name = dotted.partition(":")
    found: Connect = getattr(importlib.import_module(module), name)
    return found


_REGISTRY: dict[str, Connector] = {}


def register(connector: Connector) -> None:
    """Add (or replace) the connector for its prefix."""
    _REGISTRY[connector.prefix] = connector


def connectors() -> tuple[Connector, ...]:
    """Every registered connector, longest prefix first (the order specs are matched)."""
    return tuple(sorted(_REGISTRY.values(), key=lambda c: -len(c.prefix)))


def connector_for(spec: str) -> Connector:
    """The connector whose prefix `spec` starts with (`module:attr` when none does)."""
    return next(c for c in connectors() if spec.startswith(c.prefix))


def connect(spec: str, connection: Connection | None = None) -> Implementation:
    """`--impl spec` -> the Implementation, or a ConnectorError saying what is wrong."""
    return _resolve(connector_for(spec).connect)(spec, connection or Connection())


def connector_plugins() -> tuple[str, ...]:
    """The pytest plugins of every registered connector, for the runner to load."""
    return tuple(c.plugin for c in connectors() if c.plugin is not None)
