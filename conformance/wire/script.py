"""Scripts: the ordered replies a test has the fake provider give.

A step is consumed by exactly one request and never reused; nothing cycles. Steps are
pydantic models with a `kind` tag so that a script can be written as JSON by a test in
any language (`python -m conformance.wire serve --script FILE`). Only `React`, which
holds a Python callable, has no file form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from . import _strict_json as strict_json
from ._signals import Gate, Signal
from .ir import Dialect, RequestIR, ToolCall, Usage

MAX_DELAY = 600.0
"""Seconds. The official SDKs' default read timeout is 600 s: a longer delay can only end in
the client's timeout, and an unbounded one (1e308, Infinity) in a reply never sent."""
MAX_RETRY_AFTER_MS = 600_000
RETRY_HINT_MS = 1
"""The `retry-after-ms` a scripted 500 or 429 sends unless told otherwise: the SDKs still
retry it (each retry is another request on the wire), without their own backoff."""
MAX_SCRIPT_FILE = 64 * 1024 * 1024
"""Bytes. A script is a few steps; a file this large is a mistake (or an attack) to refuse
before reading it all into memory."""
MAX_AFTER_EVENTS = 1_000_000

HeaderName = Annotated[str, StringConstraints(pattern=r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")]
"""An HTTP header name (RFC 9110 token)."""
HeaderValue = Annotated[str, StringConstraints(pattern=r"^[\t\x20-\x7e]*$")]
"""A header value a server can send: visible ASCII, spaces and tabs; no CR/LF (injection)."""
_FRAMING_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})


def _lone_surrogate(value: Any) -> bool:
    """Whether a str anywhere in `value` holds a lone surrogate (it has no UTF-8 form)."""
    if isinstance(value, str):
        return strict_json.has_lone_surrogate(value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_lone_surrogate(v) for v in value)
    if isinstance(value, BaseModel):
        return any(_lone_surrogate(getattr(value, name)) for name in type(value).model_fields)
    return False


def _kind_is_required(schema: dict[str, Any]) -> None:
    """`kind` has a Python default for convenience, but a file must always say it."""
    required = schema.setdefault("required", [])
    if "kind" not in required:
        required.insert(0, "kind")


class _Sendable(BaseModel):
    """A step, or part of one, whose text can be sent: none of it holds a lone surrogate."""

    @model_validator(mode="after")
    def _utf8_text(self) -> _Sendable:
        for name in type(self).model_fields:
            if name != "then" and _lone_surrogate(getattr(self, name)):
                raise ValueError(f"field {name!r} holds a lone surrogate, which has no UTF-8 form")
        return self


class _Step(_Sendable):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_kind_is_required)

    label: str | None = Field(default=None, description="A name for reports and for holds.")
    delay: float = Field(
        default=0.0,
        ge=0,
        le=MAX_DELAY,
        allow_inf_nan=False,
        description="Seconds to wait before answering.",
    )


class Text(_Step):
    """Answer with assistant text."""

    kind: Literal["text"] = "text"
    text: str
    blocks: list[str] = Field(
        default_factory=list,
        description="Send the text in these blocks (Messages: text blocks; Responses:"
        " output_text parts); their concatenation is `text`. Chat Completions has one"
        " content string, so it sends `text`.",
    )
    usage: Usage | None = None
    stop_reason: Literal["end_turn", "max_tokens"] = "end_turn"

    @model_validator(mode="after")
    def _blocks_make_the_text(self) -> Text:
        if self.blocks and "".join(self.blocks) != self.text:
            raise ValueError("`blocks` must concatenate to `text`")
        return self


class Call(_Sendable):
    """One tool call to place in a `ToolCalls` reply. An empty id lets the dialect mint one."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(
        default_factory=dict,
        description="An object, or text that is not JSON (a model's malformed arguments),"
        " sent as the arguments text itself by Chat Completions and Responses. Messages"
        " carries an object: text there would be no real reply, so do not script it.",
    )
    id: str = ""


class ToolCalls(_Step):
    """Answer with one or several (parallel) tool calls, optionally after some text."""

    kind: Literal["tool_calls"] = "tool_calls"
    calls: list[Call] = Field(min_length=1)
    text: str = ""
    usage: Usage | None = None

    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in self.calls)


class Fault(_Step):
    """Answer with an HTTP error in the dialect's own error shape.

    SDKs retry 429 and 5xx by default, so each retry consumes another step.
    `retry_after_ms` keeps those retries fast; set it to None to send no hint.
    """

    kind: Literal["fault"] = "fault"
    status: int = Field(default=500, ge=400, le=599)
    message: str = "turnlaw: scripted fault"
    body: Any = Field(default=None, description="Send this JSON body instead of the dialect's.")
    headers: dict[HeaderName, HeaderValue] = Field(default_factory=dict)
    retry_after_ms: int | None = Field(default=RETRY_HINT_MS, ge=0, le=MAX_RETRY_AFTER_MS)

    @field_validator("headers")
    @classmethod
    def _no_framing(cls, headers: dict[str, str]) -> dict[str, str]:
        framing = sorted(name for name in headers if name.lower() in _FRAMING_HEADERS)
        if framing:
            raise ValueError(f"{framing} frame the HTTP message; the server sets them itself")
        return headers


class StreamError(_Step):
    """Start a normal streamed reply, then fail in the middle of it.

    `mode="event"` sends the provider's own in-stream error event; `"disconnect"`
    cuts the connection. Sent to a non-streaming request, it is a 500 instead, with a
    Fault's default retry hint.
    """

    kind: Literal["stream_error"] = "stream_error"
    text: str = "partial answer"
    after_events: int = Field(
        default=2, ge=0, le=MAX_AFTER_EVENTS, description="Events sent before the failure."
    )
    message: str = "turnlaw: scripted stream failure"
    mode: Literal["event", "disconnect"] = "disconnect"


ReplyStep = Annotated[Text | ToolCalls | Fault | StreamError, Field(discriminator="kind")]


class Hold(_Step, Gate):
    """Park the reply until the test calls `release()`.

    The test can `await hold.arrived()` to know the request reached the provider, which
    is what the timing laws (a second run while one is in flight) need.
    """

    kind: Literal["hold"] = "hold"
    then: ReplyStep
    at: Literal["start", "stream_end"] = "start"
    """`start`: nothing of the reply is sent until release. `stream_end`: a streamed reply
    is sent whole but its last event (the model has answered; the call has not ended);
    a reply that is not streamed is held at the start."""
    _arrived: Signal = PrivateAttr(default_factory=Signal)
    _streamed: Signal = PrivateAttr(default_factory=Signal)
    _released: Signal = PrivateAttr(default_factory=Signal)
    _request: RequestIR | None = PrivateAttr(default=None)

    @property
    def request(self) -> RequestIR | None:
        """The request that is being held, once it arrived."""
        return self._request

    async def arrived(self, timeout: float = 10.0) -> RequestIR:
        """Wait until the held request has reached the provider and return it."""
        if not await self._arrived.wait_async(timeout):
            raise HoldTimeoutError(self, timeout)
        assert self._request is not None
        return self._request

    async def streamed(self, timeout: float = 10.0) -> None:
        """`at="stream_end"`: wait until all of the stream but its last event is out."""
        if not await self._streamed.wait_async(timeout):
            raise HoldTimeoutError(self, timeout)

    def _mark_streamed(self) -> None:
        self._streamed.set()

    def wait_arrived(self, timeout: float = 10.0) -> RequestIR:
        """Blocking twin of `arrived()`, for synchronous tests."""
        if not self._arrived.wait(timeout):
            raise HoldTimeoutError(self, timeout)
        assert self._request is not None
        return self._request

    def _mark_arrived(self, request: RequestIR | None) -> None:
        self._request = request
        self._arrived.set()


class React(BaseModel):
    """Compute the reply from the request IR. Python only: it has no file form."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    kind: Literal["react"] = "react"
    label: str | None = None
    fn: Callable[[RequestIR], Text | ToolCalls | Fault | StreamError | Hold]


FileStep = Annotated[Text | ToolCalls | Fault | StreamError | Hold, Field(discriminator="kind")]
Step = Text | ToolCalls | Fault | StreamError | Hold | React


class Match(BaseModel):
    """Which requests a script answers. Empty matches everything."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    dialect: Dialect | None = None

    def accepts(self, request: RequestIR) -> bool:
        return (self.model is None or self.model == request.model) and (
            self.dialect is None or self.dialect == request.dialect
        )


class ScriptSpec(BaseModel):
    """One script as written in a script file."""

    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    match: Match = Field(default_factory=Match)
    allow_unused: bool = False
    steps: list[FileStep]


class ScriptFile(BaseModel):
    """The file format of `serve --script`: a version and one or more scripts."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    scripts: list[ScriptSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _hold_labels_are_unique(self) -> ScriptFile:
        """A label names one hold for `provider.hold()` and the release endpoint."""
        seen: dict[str, str] = {}
        for spec in self.scripts:
            for index, step in enumerate(spec.steps):
                if isinstance(step, Hold) and step.label:
                    where = f"script '{spec.name[:80]}', step {index} (hold)"
                    if step.label in seen:
                        raise ValueError(
                            f"{where}: hold label {step.label[:80]!r} is used twice "
                            f"(first at {seen[step.label]}); hold labels must be unique"
                        )
                    seen[step.label] = where
        return self


def script_file_schema() -> dict[str, Any]:
    """JSON Schema of the script file, for writing scripts from other languages."""
    schema = ScriptFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://turnlaw.dev/schemas/script-file-v1.json"
    return schema


class ScriptFileError(ValueError):
    """A script file that cannot be used; the message names the step that is wrong."""


def load_script_file(path: str | Path) -> ScriptFile:
    """Read and validate a script file (a ScriptFile object, or a bare list of steps).

    Parsed as strictly as request bodies (`_strict_json`): a file is data from anywhere,
    and whatever loads here must be servable — finite, bounded, sendable text.
    """
    source = Path(path)
    try:
        size = source.stat().st_size
        if size > MAX_SCRIPT_FILE:
            raise ScriptFileError(
                f"{source}: {size} bytes is not a script file (the limit is {MAX_SCRIPT_FILE})"
            )
        raw = source.read_bytes()
    except OSError as error:
        raise ScriptFileError(f"{source}: cannot read the script file: {error}") from error
    try:
        data = strict_json.loads(raw)
    except strict_json.JsonRefusal as error:
        where = _refusal_location(error)
        raise ScriptFileError(f"{source}: not valid UTF-8 JSON\n  {where}{error.problem}") from None
    if isinstance(data, list):
        data = {"scripts": [{"steps": data}]}
    try:
        return ScriptFile.model_validate(data)
    except ValidationError as error:
        raise ScriptFileError(_describe_validation(source, data, error)) from error


def _refusal_location(error: strict_json.JsonRefusal) -> str:
    """`script 'main', step 3 (text), field 'delay': ` for a value the JSON decoder refused."""
    if not error.path:
        return ""
    path, data = list(error.path), error.document
    if isinstance(data, list):  # a bare list of steps: the default script
        path, data = ["scripts", 0, "steps", *path], {"scripts": [{"steps": data}]}
    if len(path) >= 4:
        return _location(path, data, tagged=False) + ": "
    return strict_json.format_path(error.path) + ": "


def _describe_validation(source: Path, data: Any, error: ValidationError) -> str:
    lines = [f"{source}: invalid script file"]
    for problem in error.errors(include_url=False):
        loc = list(problem["loc"])
        where = _location(loc, data)
        lines.append(f"  {where}: {problem['msg']}")
    return "\n".join(lines)


def _location(loc: list[int | str], data: Any, *, tagged: bool = True) -> str:
    """Turn an error location into `script 'main', step 3 (text), field 'text'`.

    A pydantic location has the discriminated union's tag after the step index (`tagged`);
    a location from the JSON decoder does not.
    """
    if len(loc) >= 4 and loc[0] == "scripts" and loc[2] == "steps":
        script_index, step_index = loc[1], loc[3]
        name: object = script_index
        kind: object = "?"
        try:
            spec = data["scripts"][script_index]
            name = spec.get("name", "default")
            kind = spec["steps"][step_index].get("kind", "no kind")
        except (KeyError, IndexError, TypeError, AttributeError):
            pass
        rest = loc[5:] if tagged and loc[4:5] == [kind] else loc[4:]  # drop the tag level
        shown = ".".join(map(str, rest[:10])) + ("…" if len(rest) > 10 else "")
        field = f", field '{shown[:200]}'" if rest else ""
        label = f"'{str(name)[:80]}'" if isinstance(name, str) else str(name)
        return f"script {label}, step {step_index} ({str(kind)[:40]}){field}"
    return ".".join(map(str, loc))[:200] or "file"


_STEP_ADAPTER: TypeAdapter[FileStep] = TypeAdapter(FileStep)


def parse_steps(steps: Sequence[Step | dict[str, Any]]) -> list[Step]:
    """Accept step objects or their dict form, so tests can paste JSON."""
    if isinstance(steps, BaseModel | dict | str):
        raise TypeError(
            f"steps must be a list of steps, got one {type(steps).__name__}: [{steps!r}]?"
        )
    parsed: list[Step] = []
    for index, step in enumerate(steps):
        if isinstance(step, Text | ToolCalls | Fault | StreamError | Hold | React):
            parsed.append(step)
            continue
        try:
            parsed.append(_STEP_ADAPTER.validate_python(step))
        except ValidationError as error:
            raise ValueError(f"step {index} is not a valid step: {error}") from error
    return parsed


class HoldTimeoutError(TimeoutError):
    """The held request never reached the provider."""

    def __init__(self, hold: Hold, timeout: float) -> None:
        name = f" '{hold.label}'" if hold.label else ""
        super().__init__(
            f"hold{name}: no request reached the provider within {timeout:g}s; "
            "did the runtime call the model, and is it pointed at this provider's base URL?"
        )


def text(content: str, **options: Any) -> Text:
    """`text("Table booked.")` — shorthand for `Text(text=...)`."""
    return Text(text=content, **options)


def text_blocks(*blocks: str, **options: Any) -> Text:
    """An answer in several text blocks: `text_blocks("Booked for ", "three", ".")`."""
    return Text(text="".join(blocks), blocks=list(blocks), **options)


def tool_call(name: str, arguments: dict[str, Any] | None = None, **options: Any) -> ToolCalls:
    """One tool call: `tool_call("echo", {"text": "hi"})`."""
    return ToolCalls(calls=[Call(name=name, arguments=arguments or {})], **options)


def parallel_calls(*calls: tuple[str, dict[str, Any]], **options: Any) -> ToolCalls:
    """Several tool calls in one reply: `parallel_calls(("a", {}), ("b", {"x": 1}))`."""
    return ToolCalls(calls=[Call(name=n, arguments=a) for n, a in calls], **options)
