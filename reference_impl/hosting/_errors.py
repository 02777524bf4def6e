"""The host's refusals: each carries the wire's `code` and HTTP `status`, so the one
place that answers a request never has to guess which error means what."""

from __future__ import annotations

from .._error_base import AgentError


class HostRefusal(AgentError):
    """A request the host answers with `{error, code}` and `status` instead of a turn."""

    __module__ = "reference_impl.hosting"
    status: int = 500
    code: str = "ERR_INTERNAL"


class InvalidRequestError(HostRefusal):
    """The body is not JSON, has a field of the wrong type, or carries neither or both of
    `input` and `decision`."""

    __module__ = "reference_impl.hosting"
    status = 400
    code = "ERR_INVALID_REQUEST"


class UnauthenticatedError(HostRefusal):
    """A verifier is configured and refused the request's credentials."""

    __module__ = "reference_impl.hosting"
    status = 401
    code = "ERR_UNAUTHENTICATED"

    def __init__(self) -> None:
        super().__init__("the credentials were refused; authenticate and try again")


class SessionNotFoundError(HostRefusal):
    """No such session for this caller: missing, or owned by another principal (the same
    answer, so a session id cannot be probed)."""

    __module__ = "reference_impl.hosting"
    status = 404
    code = "ERR_SESSION_NOT_FOUND"

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"session {session_id!r} not found")


class ConcurrentRunError(HostRefusal):
    """`reject` policy: the session's previous turn is still running; nothing was sent."""

    __module__ = "reference_impl.hosting"
    status = 409
    code = "ERR_CONCURRENT_RUN"

    def __init__(self, session_id: str, active_turn: str) -> None:
        self.session_id = session_id
        self.active_turn = active_turn
        super().__init__(
            f"session {session_id!r} is still running turn {active_turn!r}; nothing was "
            "sent to the model. Wait for its reply and send this again (or serve with "
            "on_concurrent_invoke='enqueue')."
        )


class AwaitingDecisionError(HostRefusal):
    """A message arrived while the session owes a decision (the agent's own
    PendingQuestionError): not run, the pause kept."""

    __module__ = "reference_impl.hosting"
    status = 409
    code = "ERR_AWAITING_DECISION"


class NoPendingAskHostError(HostRefusal):
    """A decision arrived for a session with nothing paused."""

    __module__ = "reference_impl.hosting"
    status = 409
    code = "ERR_NO_PENDING_ASK"


class PauseNotCarriedError(HostRefusal):
    """The turn paused but the request had no session id, so no later request could
    answer the question."""

    __module__ = "reference_impl.hosting"
    status = 409
    code = "ERR_PAUSE_NOT_CARRIED"

    def __init__(self, question: str) -> None:
        super().__init__(
            f"the turn paused to ask {question!r}, but the request carried no session id to "
            "keep the question under; send a sessionId (or x-session-id) with the message"
        )


class SessionUnreadableError(HostRefusal):
    """The stored conversation exists and cannot be read: never answered from a fresh
    start."""

    __module__ = "reference_impl.hosting"
    status = 500
    code = "ERR_SESSION_UNREADABLE"


class RunFailedHostError(HostRefusal):
    """The run failed; the stored session is the last completed one."""

    __module__ = "reference_impl.hosting"
    status = 502
    code = "ERR_RUN_FAILED"


class ShuttingDownError(HostRefusal):
    """The host is stopping: running turns finish, new ones are refused."""

    __module__ = "reference_impl.hosting"
    status = 503
    code = "ERR_SHUTTING_DOWN"

    def __init__(self) -> None:
        super().__init__("the host is shutting down; retry against a running host")
