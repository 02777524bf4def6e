"""The values that cross the hosting door: what the suite asks a host to be.

The hosting laws judge a served conversation over the seed's HTTP wire, so the suite
asks an implementation to start its *own* host (a real process) against the fake, on a
store it can find again: a second `start_host` with the same `store` is the same host
after a restart. What each session's agent is comes from `agent`, exactly as for the
agent laws.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ._types import AgentSpec

ConcurrentInvoke = Literal["reject", "enqueue"]
"""What a host does with a second request for a session whose turn is still running."""


class HostSpec(BaseModel):
    """Everything an adapter needs to start one host against the fake provider."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: AgentSpec = Field(description="what every session's agent is")
    store: str = Field(
        min_length=1,
        description="a file path the host keeps its sessions in (the suite gives a fresh "
        "one per test); a host started again with the same path is the same host after a "
        "restart, with every stored session",
    )
    session_cookie: str | None = Field(
        default=None,
        description="cookie mode: the cookie the host reads a session id from, and issues "
        "to a request that carried no session id at all",
    )
    on_concurrent_invoke: ConcurrentInvoke = Field(
        default="reject",
        description="a request for a session whose turn is still running: refused (409 "
        "ERR_CONCURRENT_RUN) before anything is sent, or run after the first persisted",
    )
    agent_per_session: bool = Field(
        default=False,
        description="every active session gets its own agent (agentFactory), so sessions "
        "run in parallel; otherwise one agent serves every session, one turn at a time",
    )
    principals: dict[str, str] | None = Field(
        default=None,
        description="an identity verifier: a request's `Authorization: Bearer <token>` "
        "names the principal principals[token]; any other credential (or none) is "
        "refused with 401. None: no verifier, the session id alone decides",
    )
