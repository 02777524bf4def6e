"""The error body both OpenAI dialects send: the real API types errors alike on each endpoint."""

from __future__ import annotations

from typing import Any

# (type, code) as api.openai.com sends them: 401 and 404 are `invalid_request_error`
# there, the specific kind lives in `code`.
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("service_unavailable_error", "server_is_overloaded"),
}


def error_body(status: int, message: str) -> dict[str, Any]:
    """`{"error": {message, type, param, code}}` for a non-2xx response with `status`."""
    default = ("server_error", None) if status >= 500 else ("invalid_request_error", None)
    kind, code = _ERROR_KINDS.get(status, default)
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
