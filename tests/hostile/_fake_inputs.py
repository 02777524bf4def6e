"""Hypothesis strategies for what a hostile runtime sends the fake provider.

Bodies: arbitrary bytes; JSON of every shape (lone surrogates as JavaScript writes them,
huge and non-finite numbers, duplicate keys, nesting far past any limit); and valid
requests of each dialect with one field swapped for a wrong-typed value. Requests: methods,
paths and headers a raw socket can carry.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from conformance._unicode_text import unicode_text

DIALECT_PATHS = ("/chat/completions", "/responses", "/messages")

_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_ANY_CHAR = st.one_of(st.characters(), _SURROGATES)
TEXTS = st.text(_ANY_CHAR, max_size=12)
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**400, -(10**400)]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXTS)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(TEXTS, children, max_size=4)
    ),
    max_leaves=12,
)


def _dumps(value: Any, ensure_ascii: bool) -> bytes:
    text = json.dumps(value, ensure_ascii=ensure_ascii)  # NaN, Infinity and surrogates pass
    return text.encode("utf-8", "surrogatepass")


def valid_body(path: str, text: str, stream: bool) -> dict[str, Any]:
    messages = [{"role": "user", "content": text}]
    if path == "/responses":
        return {"model": "m", "input": text, "stream": stream}
    if path == "/messages":
        return {"model": "m", "max_tokens": 16, "messages": messages, "stream": stream}
    return {"model": "m", "messages": messages, "stream": stream}


@st.composite
def _mutated(draw: st.DrawFn, path: str) -> Any:
    """A valid body with one field (top level or in the first message) wrong-typed."""
    body = valid_body(path, draw(TEXTS), draw(st.booleans()))
    target = body
    if "messages" in body and draw(st.booleans()):
        target = body["messages"][0]
    key = draw(st.sampled_from([*target, "tools", "system", "tool_choice", "metadata"]))
    if draw(st.integers(0, 4)) == 0:
        target.pop(key, None)
    else:
        target[key] = draw(JSON_VALUES)
    return body


@st.composite
def _nested(draw: st.DrawFn) -> bytes:
    depth = draw(st.integers(0, 1500))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"a": ', "}")]))
    inner = opener * depth + "1" + closer * depth
    return ('{"model": "m", "messages": [], "metadata": ' + inner + "}").encode()


@st.composite
def _duplicated(draw: st.DrawFn, path: str) -> bytes:
    first = json.dumps(valid_body(path, draw(TEXTS), False))[1:-1]
    second = json.dumps({"model": draw(TEXTS), "messages": draw(JSON_VALUES)})[1:-1]
    return ("{" + first + ", " + second + "}").encode("utf-8", "surrogatepass")


@st.composite
def _huge_number(draw: st.DrawFn, path: str) -> bytes:
    """A number past Python's 4300-digit int limit, or a float literal past a double."""
    digits = "9" * draw(st.integers(300, 6000))
    number = draw(st.sampled_from([digits, "1e" + digits[:4], "-0." + digits + "e-99999"]))
    body = json.dumps(valid_body(path, "x", False))[:-1]
    return (body + ', "max_tokens": ' + number + "}").encode()


@st.composite
def bodies(draw: st.DrawFn, path: str) -> bytes:
    kind = draw(st.integers(0, 6))
    if kind == 6:
        return draw(_huge_number(path))
    ensure_ascii = draw(st.booleans())
    if kind == 0:
        return draw(st.binary(max_size=64))
    if kind == 1:
        return _dumps(draw(JSON_VALUES), ensure_ascii)
    if kind == 2:
        return draw(_nested())
    if kind == 3:
        return draw(_duplicated(path))
    if kind == 4:
        return _dumps(valid_body(path, draw(TEXTS), draw(st.booleans())), ensure_ascii)
    return _dumps(draw(_mutated(path)), ensure_ascii)


TOKEN_CHARS = "!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
METHODS = st.one_of(
    st.just("POST"),
    st.sampled_from(["POST", "GET", "PUT", "DELETE", "OPTIONS", "PATCH", "HEAD"]),
    st.text(TOKEN_CHARS, min_size=1, max_size=8),
)


def _path_text(raw: bytes) -> str:
    """Bytes as a request target: printable ones as they are, the rest percent-escaped."""
    return "".join(chr(b) if 0x21 <= b < 0x7F and b not in b"?#%" else f"%{b:02X}" for b in raw)


PATH_BYTES = st.binary(min_size=0, max_size=24).map(_path_text)
PATHS = st.one_of(
    st.just("/v1/chat/completions"),
    st.sampled_from(["/v1" + p for p in DIALECT_PATHS] + ["/v1/models", "/_turnlaw/log"]),
    st.builds(lambda a, b: a + b, st.sampled_from(["/v1/", "/", "/turnlaw/1/v1/"]), PATH_BYTES),
    st.builds(
        lambda p, q: f"/v1{p}?{q}", st.sampled_from(DIALECT_PATHS), st.text(TOKEN_CHARS + "=&")
    ),
)
HEADER_NAMES = st.one_of(
    st.sampled_from(
        ["authorization", "x-api-key", "cookie", "anthropic-version", "anthropic-beta", "accept"]
    ),
    st.text(TOKEN_CHARS, min_size=1, max_size=12),
)
HEADER_VALUES = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
HEADERS = st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=6)
RAW_BODIES = st.one_of(
    st.binary(max_size=64),
    st.builds(
        lambda text, stream: json.dumps(valid_body("/chat/completions", text, stream)).encode(),
        unicode_text(max_size=8),
        st.booleans(),
    ),
)
