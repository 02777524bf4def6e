"""A request the host cannot read as HTTP is still refused in the wire's shape.

uvicorn's h11 protocol answers a request h11 refuses (a malformed head, or one still
incomplete past h11's buffer limit: an oversized cookie sent in pieces) itself, before
the app, with `400 text/plain "Invalid HTTP request received."`. The wire promises
`{"error", "code"}` for every refusal, so `WireH11Protocol` answers the same 400 as JSON
with `ERR_INVALID_REQUEST`. A head over `HEAD_LIMIT` that arrived whole reaches the app,
which refuses it with the same words (`head_too_large`), so the limit does not depend
on how the network cut the bytes.
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ._errors import InvalidRequestError
from ._wire import ErrorReply, dump

HEAD_LIMIT = 16 * 1024
"""The most bytes of a request's head (request line, headers, cookies) the host reads:
h11's own default, set explicitly so the refusal can name it."""


def head_too_large() -> InvalidRequestError:
    """The refusal of a request whose head is over HEAD_LIMIT."""
    return InvalidRequestError(
        "the request's head (request line, headers and cookies) is over "
        f"{HEAD_LIMIT // 1024} KiB, more than this host reads; send smaller headers "
        "(an oversized cookie?)"
    )


def unreadable_http() -> InvalidRequestError:
    """The refusal of a request h11 cannot parse."""
    return InvalidRequestError(
        "the request is not HTTP/1.1 this host can read (a malformed request line or header)"
    )


class WireH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, refusing what h11 cannot read as the wire's JSON 400."""

    def send_400_response(self, msg: str) -> None:
        unread, _ = self.conn.trailing_data
        refusal = head_too_large() if len(unread) > HEAD_LIMIT else unreadable_http()
        body = json.dumps(dump(ErrorReply(error=str(refusal), code=refusal.code))).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (b"connection", b"close"),
        ]
        head = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        self.transport.write(self.conn.send(head) or b"")
        self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()
