"""Every path the fake answers, in one table, and the one function that reads it.

Each row names a path and, per method, the endpoint that answers it; so a path in the
table asked with another method is a 405, and a path in no row is a 404 (Starlette decides
the same way from its route list). Three groups, tried in this order:

- the control endpoints under `/_turnlaw/` (the loopback server's only; never recorded),
  and the service the `call_service` tool calls, also under the base URL;
- the per-test prefix `/turnlaw/<n>`: when the server has one, a path not under it is a
  late request to a retired provider (410, recorded by no provider);
- the provider's endpoints (`/v1/models` and one per dialect), recorded by the provider.

Provider paths are normalized first (`normalize`), so one base URL suits every SDK. The
table decides; the provider and the server render the reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from .dialects import CODECS
from .dialects._base import DialectCodec

CONTROL = "/_turnlaw/"
PREFIX = "/turnlaw/"


class Endpoint(Enum):
    MODELS = "models"
    DIALECT = "dialect"
    LOG = "log"
    FINDINGS = "findings"
    HOLD = "hold"  # how a hold stands
    HOLD_RELEASE = "hold_release"
    SERVICE = "service"  # what the call_service tool calls (conformance.wire.service)
    PROVIDER = "provider"  # under the current prefix: the provider's table decides
    RETIRED = "retired"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"


@dataclass(frozen=True, slots=True)
class Route:
    path: str  # a `{label}` segment matches any one segment
    methods: dict[str, Endpoint]
    codec: DialectCodec | None = None


PROVIDER_ROUTES: tuple[Route, ...] = (
    Route("/v1/models", {"GET": Endpoint.MODELS}),
    *(Route(codec.path, {"POST": Endpoint.DIALECT}, codec) for codec in CODECS),
)
CONTROL_ROUTES: tuple[Route, ...] = (
    Route("/_turnlaw/log", {"GET": Endpoint.LOG}),
    Route("/_turnlaw/findings", {"GET": Endpoint.FINDINGS}),
    Route("/_turnlaw/holds/{label}", {"GET": Endpoint.HOLD, "POST": Endpoint.HOLD}),
    Route(
        "/_turnlaw/holds/{label}/release",
        {"GET": Endpoint.HOLD, "POST": Endpoint.HOLD_RELEASE},
    ),
    Route("/_turnlaw/tools/{label}", {"GET": Endpoint.SERVICE}),
)
_SERVICE_UNDER_BASE = "/v1" + CONTROL + "tools/"
SERVED = ", ".join(f"{method} {r.path}" for r in PROVIDER_ROUTES for method in r.methods)
"""What a 404 or 405 from the provider lists, in the table's order."""

_BY_PATH = {route.path: route for route in PROVIDER_ROUTES}
_CONTROL_PARTS = [(route.path.strip("/").split("/"), route) for route in CONTROL_ROUTES]


@dataclass(frozen=True, slots=True)
class Resolved:
    """What the table says about one request."""

    endpoint: Endpoint
    codec: DialectCodec | None = None  # the dialect whose path it is (whatever the method)
    path: str = ""  # PROVIDER: the target without the prefix; otherwise normalized
    label: str | None = None  # HOLD, HOLD_RELEASE: the hold's label; SERVICE: the key
    control: bool = False  # answered by the server in its own `{"error": ...}` shape
    allow: str = ""  # METHOD_NOT_ALLOWED: the path's methods, for the 405's Allow header


def normalize(path: str) -> str:
    """`/v1/x` stays; `/x` (a base URL without /v1) is served as `/v1/x`.

    One base URL (`.../v1`) then suits every SDK: OpenAI's appends `/chat/completions`,
    Anthropic's appends `/v1/messages`. Query and trailing slashes are dropped.
    """
    bare = path.split("?", 1)[0].rstrip("/") or "/"
    while bare.startswith("/v1/v1/"):  # an Anthropic client given the OpenAI-style base URL
        bare = bare[3:]
    return bare if bare.startswith("/v1/") or bare == "/v1" else "/v1" + bare


_CACHED_LENGTH = 256
"""A request whose method and path are this long at most is cached (a runtime sends the
same few over and over); longer ones, only ever hostile, would make the cache hold megabytes."""


def _uncached(method: str, path: str) -> Resolved:
    path = normalize(path)
    route = _BY_PATH.get(path)
    if route is None:
        return Resolved(Endpoint.NOT_FOUND, path=path)
    endpoint = route.methods.get(method, Endpoint.METHOD_NOT_ALLOWED)
    return Resolved(endpoint, route.codec, path, allow=_allow(route, endpoint))


_resolve = lru_cache(maxsize=512)(_uncached)


def resolve(method: str, target: str) -> Resolved:
    """The provider's answer to `method target` (target: path and query, no prefix)."""
    path = target.split("?", 1)[0]
    if len(path) + len(method) > _CACHED_LENGTH:
        return _uncached(method, path)
    return _resolve(method, path)


def resolve_server(method: str, target: str, prefix: str) -> Resolved:
    """The loopback server's answer: a control endpoint, a retired prefix, or the provider
    (`PROVIDER`, with `path` the target as the provider is to see it)."""
    if target.startswith(CONTROL):
        return _resolve_control(method, target)
    rest = target
    if prefix:
        bare = target.split("?", 1)[0]
        if bare != prefix and not bare.startswith(prefix + "/"):
            return Resolved(Endpoint.RETIRED, _codec_of(bare), bare)
        rest = target[len(prefix) :] or "/"
    if rest.startswith(_SERVICE_UNDER_BASE):  # a tool calls `{base_url}/_turnlaw/tools/<key>`
        return _resolve_control(method, rest.removeprefix("/v1"))
    return Resolved(Endpoint.PROVIDER, path=rest)


def _allow(route: Route, endpoint: Endpoint) -> str:
    """A 405 must say what the path does allow (RFC 9110, 15.5.6)."""
    return ", ".join(route.methods) if endpoint is Endpoint.METHOD_NOT_ALLOWED else ""


def _resolve_control(method: str, target: str) -> Resolved:
    parts = target.split("?", 1)[0].strip("/").split("/")
    for pattern, route in _CONTROL_PARTS:
        if len(pattern) != len(parts):
            continue
        if all(want in (got, "{label}") for want, got in zip(pattern, parts, strict=True)):
            label = parts[pattern.index("{label}")] if "{label}" in pattern else None
            endpoint = route.methods.get(method, Endpoint.METHOD_NOT_ALLOWED)
            return Resolved(endpoint, label=label, control=True, allow=_allow(route, endpoint))
    return Resolved(Endpoint.NOT_FOUND, control=True)


def _codec_of(path: str) -> DialectCodec | None:
    """The dialect a late request meant, under whichever prefix it came: its 410 is in
    that dialect's error shape, so the runtime's SDK raises a readable error."""
    if path.startswith(PREFIX):
        path = "/" + path[len(PREFIX) :].partition("/")[2]
    route = _BY_PATH.get(normalize(path))
    return route.codec if route is not None else None
