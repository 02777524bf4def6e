"""Served conversations: a standing agent on a real HTTP host, one stored conversation
per session (docs/hosting.md).

    async with standing_agent(agent=agent, sessions=sqlite_sessions("sessions.db"),
                              host=uvicorn_host(port=8080)) as served:
        print(served.url)

A session id is caller data, never authentication: without an `identity` verifier,
anyone holding a session id holds the session.
"""

from ._errors import (
    AwaitingDecisionError,
    ConcurrentRunError,
    HostRefusal,
    InvalidRequestError,
    NoPendingAskHostError,
    PauseNotCarriedError,
    RunFailedHostError,
    SessionNotFoundError,
    SessionUnreadableError,
    ShuttingDownError,
    UnauthenticatedError,
)
from ._lanes import AgentFactory, AgentPool, ConcurrentInvoke, SessionLanes, SharedAgentLane
from ._serving import Served, UvicornHost, standing_agent, uvicorn_host
from ._standing import IdentityVerifier, Incoming, Persist, StandingAgent, TurnServed
from ._wire import InvokeBody

__all__ = [
    "AgentFactory",
    "AgentPool",
    "AwaitingDecisionError",
    "ConcurrentInvoke",
    "ConcurrentRunError",
    "HostRefusal",
    "IdentityVerifier",
    "Incoming",
    "InvalidRequestError",
    "InvokeBody",
    "NoPendingAskHostError",
    "PauseNotCarriedError",
    "Persist",
    "RunFailedHostError",
    "Served",
    "SessionLanes",
    "SessionNotFoundError",
    "SessionUnreadableError",
    "SharedAgentLane",
    "ShuttingDownError",
    "StandingAgent",
    "TurnServed",
    "UnauthenticatedError",
    "UvicornHost",
    "standing_agent",
    "uvicorn_host",
]
