"""How `--impl` becomes an Implementation: one connector per prefix of the spec.

`module:attr` (no prefix) imports a Python Implementation into the suite's process;
`cmd:<command line>` starts a stdio adapter (conformance.stdio) in a process of its own.
The runner asks this registry and knows no connector: a connector that needs options
of its own, or hooks on a test's report (the stdio adapter's labels and stderr), names
a pytest plugin the runner loads with its own. So no package a connector lives in
imports the runner, and a new way to reach a runtime is one `register` call.

A connector raises `ConnectorError` for a spec it cannot connect; its message is what
the user reads (the runner makes it a usage error).
"""

from ._python import import_implementation
from ._registry import (
    Connect,
    Connection,
    Connector,
    ConnectorError,
    connect,
    connector_for,
    connector_plugins,
    connectors,
    register,
)

register(Connector(prefix="", connect="conformance.connectors._python:import_implementation"))
register(
    Connector(
        prefix="cmd:",
        connect="conformance.stdio.plugin:command_implementation",
        plugin="conformance.stdio.plugin",
    )
)


__all__ = [
    "Connect",
    "Connection",
    "Connector",
    "ConnectorError",
    "connect",
    "connector_for",
    "connector_plugins",
    "connectors",
    "import_implementation",
    "register",
]
