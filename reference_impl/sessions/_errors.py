"""The session runtime's refusals: each carries the wire's `code` and HTTP `status`, so
the transport answers them without deciding what they mean."""

from __future__ import annotations

from .._error_base import AgentError


class SessionRuntimeRefusal(AgentError):
    """A request the runtime answers with `{error, code}` instead of doing it."""

    __module__ = "reference_impl.sessions"
    status: int = 500
    code: str = "ERR_INTERNAL"


class UnknownIdError(SessionRuntimeRefusal):
    """An agent or conversation id this runtime never made (or not of the kind asked)."""

    __module__ = "reference_impl.sessions"
    status = 404
    code = "ERR_UNKNOWN_ID"

    def __init__(self, kind: str, given: str) -> None:
        self.kind = kind
        self.given = given
        super().__init__(
            f"no {kind} {given!r:.120} here: resume an `agent-…` id (its default "
            "conversation) or a `conv-…` id this runtime created"
        )


class InvalidSessionRequestError(SessionRuntimeRefusal):
    """A body or frame that is not what the wire says (wrong type, unknown field, not
    text a store can keep)."""

    __module__ = "reference_impl.sessions"
    status = 400
    code = "ERR_INVALID_REQUEST"


class StoreUnusableError(SessionRuntimeRefusal):
    """The store refused (a file or row it cannot read); nothing was changed."""

    __module__ = "reference_impl.sessions"
    status = 500
    code = "ERR_STORE"


class ShuttingDownError(SessionRuntimeRefusal):
    """The runtime is stopping: no new sessions or messages."""

    __module__ = "reference_impl.sessions"
    status = 503
    code = "ERR_SHUTTING_DOWN"

    def __init__(self) -> None:
        super().__init__("the session runtime is stopping; open a session on it when it is back")


__all__ = [
    "InvalidSessionRequestError",
    "SessionRuntimeRefusal",
    "ShuttingDownError",
    "StoreUnusableError",
    "UnknownIdError",
]
