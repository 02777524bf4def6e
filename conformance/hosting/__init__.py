"""The seed's HTTP wire as the suite speaks it, for the hosting laws.

`SeedWireCaller` speaks the seed's requests to a host over real HTTP and reads its
replies through the host's wire profile (conformance.adapter.HostWireProfile);
`HostClient` is what the laws ask of any caller, so a host whose wire is not HTTP+JSON
brings its own (`Implementation.host_client`, a `HostClientFactory`). Every reply is a
`HostReply` saying outcomes (`HostOutcome`), judged by `assert_said`; one that cannot be read
is `NotTheWire` (the host's fault: the law FAILs), and a host that does not answer is
`HostUnreachable` (ERROR). `hosting_wire_schema()` is schemas/hosting-wire-v1.json,
the default profile's wire written out for hosts in other languages.
"""

from ..adapter import DEFAULT_PROFILE, HostOutcome, HostWireProfile
from ._client import HostClient, HostClientFactory
from ._judge import UNANSWERED, assert_said, describe, refused
from ._reply import AwaitingQuestion, HostReply, HostUnreachable, NotTheWire
from ._seed_caller import MAX_REPLY_BYTES, SeedWireCaller
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
    "DEFAULT_PROFILE",
    "ERROR_STATUS",
    "MAX_REPLY_BYTES",
    "STATUSES",
    "TERMINAL_EVENTS",
    "UNANSWERED",
    "Answered",
    "Awaiting",
    "AwaitingQuestion",
    "Chunk",
    "Complete",
    "ErrorCode",
    "Health",
    "HostClient",
    "HostClientFactory",
    "HostOutcome",
    "HostReply",
    "HostUnreachable",
    "HostWireProfile",
    "InvokeBody",
    "NotTheWire",
    "Paused",
    "Refusal",
    "SeedWireCaller",
    "SessionRead",
    "assert_said",
    "describe",
    "hosting_wire_schema",
    "refused",
]
