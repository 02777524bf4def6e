"""The seed's HTTP wire as the suite speaks it, for the hosting laws.

`SeedWireCaller` speaks docs/hosting.md's wire to a host over real HTTP; `HostClient`
is what the laws ask of any caller, so a host speaking another wire brings its own
(`Implementation.host_client`, a `HostClientFactory`). Every reply is a `HostReply`;
one that is not the wire is `NotTheWire` (the host's fault: the law FAILs), and a host
that does not answer is `HostUnreachable` (ERROR). `hosting_wire_schema()` is
schemas/hosting-wire-v1.json, for hosts in other languages.
"""

from ._client import HostClient, HostClientFactory
from ._reply import AwaitingQuestion, HostReply, HostUnreachable, NotTheWire
from ._seed_caller import SeedWireCaller
from ._wire import (
    ERROR_STATUS,
    STATUSES,
    TERMINAL_EVENTS,
    Answered,
    Awaiting,
    Chunk,
    Complete,
    ErrorCode,
    Health,
    InvokeBody,
    Paused,
    Refusal,
    SessionRead,
    hosting_wire_schema,
)

__all__ = [
    "ERROR_STATUS",
    "STATUSES",
    "TERMINAL_EVENTS",
    "Answered",
    "Awaiting",
    "AwaitingQuestion",
    "Chunk",
    "Complete",
    "ErrorCode",
    "Health",
    "HostClient",
    "HostClientFactory",
    "HostReply",
    "HostUnreachable",
    "InvokeBody",
    "NotTheWire",
    "Paused",
    "Refusal",
    "SeedWireCaller",
    "SessionRead",
    "hosting_wire_schema",
]
