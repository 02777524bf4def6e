"""Adapter protocol v1: drive a runtime in any language through a stdio adapter.

`protocol` defines the messages, `connector` is the suite's side (`--impl cmd:...`),
`serve` the adapter's side for Python runtimes. See docs/adapter-protocol.md.
"""

from ..errors import (
    AdapterCrashed,
    AdapterFailure,
    AdapterGaveUp,
    AdapterProtocolError,
    AdapterReportedError,
    AdapterStopped,
    AdapterTimeout,
)
from .connector import (
    ConnectorOptions,
    StdioAgent,
    StdioBackend,
    StdioImplementation,
    StdioSession,
    start_command,
)
from .protocol import PROTOCOL_VERSION

__all__ = [
    "PROTOCOL_VERSION",
    "AdapterCrashed",
    "AdapterFailure",
    "AdapterGaveUp",
    "AdapterProtocolError",
    "AdapterReportedError",
    "AdapterStopped",
    "AdapterTimeout",
    "ConnectorOptions",
    "StdioAgent",
    "StdioBackend",
    "StdioImplementation",
    "StdioSession",
    "start_command",
]
