"""The reference runtime's adapter wing: everything the conformance suite needs to drive
`reference_impl`, and the only part of it that imports `conformance`.

    --impl reference_impl.adapter:implementation         (the suite's default)
    --impl "cmd:python -m reference_impl.adapter"         (the same adapter over stdio)

The runtime beside it takes what the suite wants changed by injection: its servers'
class (the suite's `PromptServer`, which stops at once) and its SDK clients' TLS context
(the suite's one shared context). This wing passes both, so the runtime itself stays a
model an implementer can copy without the suite.

Here: the adapter (`_implementation`), the agents it builds from a spec (`_spec_agent`),
the hosting door's process and its spawner (`_host_server`, `_host_process`), the session
door's backend and its killable process (`_sessions`, `_sessions_server`,
`_sessions_process`), the warm launcher both spawners fork from (`_launcher`,
`_sdk_warmup`), and the stdio entry (`_stdio`, `__main__`).
"""

from ._implementation import (
    HOSTING_CAPABILITIES,
    SESSION_CAPABILITIES,
    ReferenceAgent,
    ReferenceImplementation,
    implementation,
)

__all__ = [
    "HOSTING_CAPABILITIES",
    "SESSION_CAPABILITIES",
    "ReferenceAgent",
    "ReferenceImplementation",
    "implementation",
]
