"""The recorder: every request the runtime sent, exactly, in arrival order.

This is the evidence every law is judged on, so it keeps the parsed body with its key
order, the IR view of it, which scripted step answered, and what was wrong with it.
Credentials are redacted on the way in, not on the way out: a key is never stored, and the
export scrubs again with every secret learned since (the provider's `Redactor`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..redaction import REDACTED, Redactor
from ._logfile import LogFile
from ._normalize import Normalizer
from ._signals import Signal
from .ir import Dialect, RequestIR

CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})
"""Recorded, as '<redacted>': that a key was sent this way is part of the evidence. Every
other credential-bearing header is learned by the Redactor and not recorded."""
RECORDED_HEADERS = frozenset(
    {"content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta"}
    | CREDENTIAL_HEADERS
)

FindingKind = Literal[
    "exhausted",
    "unmatched",
    "malformed",
    "unknown_endpoint",
    "invariant",
    "react_failed",
    "internal",
    "too_large",
    "hold_expired",
    "hold_unreleased",
    "unanswered",
    "unused_steps",
    "wrong_dialect",
]


class Finding(BaseModel):
    """Something the provider saw that should fail the test."""

    model_config = ConfigDict(frozen=True)

    kind: FindingKind
    message: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class StepRef:
    """Which scripted step answered an exchange."""

    script: str
    index: int
    kind: str
    label: str | None = None


class Delivery:
    """When the reply to an exchange was fully sent: the one part of an exchange known only
    after it is recorded.

    An exchange is recorded at arrival, complete in everything the fake decides (request,
    step, status, findings), because a test looks at a held request while its reply waits,
    and the log file has the line before the reply leaves. When the transport has sent the
    last byte is known later, and only the transport knows it: it is written here, once.
    Timings are never exported, so the log and its file form do not depend on it.
    """

    __slots__ = ("finished_at",)

    def __init__(self) -> None:
        self.finished_at: float | None = None

    def finish(self, at: float) -> None:
        """The reply's last byte went out at `at` (time.monotonic()); the first call counts."""
        if self.finished_at is None:
            self.finished_at = at


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and how the fake answered it: built once, when everything about it is
    decided (`ScriptedProvider.respond`), and never changed after; its delivery time is
    kept apart (`Delivery`).

    A frozen slotted dataclass rather than a pydantic model: one is built for every request
    on the provider's hot path, every value in it is already validated or built there, and
    the two cost the same to build without validation. Its fields are
    frozen, not their values: `headers` and `body` are the recorded dict and JSON, which
    a reader must treat as read-only (copying them per request would cost more than the
    exchange itself). Its file form is `ExchangeRecord` (see `WireLog.export`).
    """

    seq: int
    dialect: Dialect | None
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    ir: RequestIR | None
    step: StepRef | None
    status: int
    arrived_at: float  # time.monotonic() at arrival
    findings: tuple[Finding, ...] = ()
    aborted: str | None = None  # why the request never arrived whole (no step was used)
    delivery: Delivery = field(default_factory=Delivery, compare=False, repr=False)

    @property
    def finished_at(self) -> float | None:
        """When the reply was fully sent (None until then, and for a reply never sent)."""
        return self.delivery.finished_at

    @property
    def duration(self) -> float | None:
        finished = self.delivery.finished_at
        return None if finished is None else finished - self.arrived_at


def record_headers(headers: Iterable[tuple[str, str]], redactor: Redactor) -> dict[str, str]:
    """The allow-listed headers, credentials replaced by a marker, sorted by name.

    Takes every (name, value) pair, so a repeated header is kept whole; one pass on the hot
    path, since every request goes through here. The redactor has already learned them.
    """
    kept: dict[str, str] = {}
    for name, value in headers:
        key = name.lower()
        if key not in RECORDED_HEADERS:
            continue
        if key in CREDENTIAL_HEADERS:
            kept[key] = REDACTED
        else:
            value = redactor.scrub_text(value)
            kept[key] = f"{kept[key]}, {value}" if key in kept else value
    return dict(sorted(kept.items()))


def scrub_request(request: RequestIR, redactor: Redactor, body: Any) -> RequestIR:
    """The request with every free text scrubbed (model, system, message texts, tool call
    ids, names and arguments, tools) and `body` as its raw body; its shape (dialect, roles,
    flags) untouched. The original, parsed before any scrubbing, is what scripts match."""
    text, data = redactor.scrub_text, redactor.scrub_data
    messages = tuple(
        message.model_copy(
            update={
                "text": text(message.text),
                "tool_calls": tuple(
                    call.model_copy(
                        update={
                            "id": text(call.id),
                            "name": text(call.name),
                            "arguments": data(call.arguments),
                        }
                    )
                    for call in message.tool_calls
                ),
                "tool_call_id": text(message.tool_call_id) if message.tool_call_id else None,
                "omitted_parts": tuple(text(part) for part in message.omitted_parts),
            }
        )
        for message in request.messages
    )
    tools = tuple(
        tool.model_copy(
            update={
                "name": text(tool.name),
                "description": text(tool.description),
                "parameters": data(tool.parameters),
            }
        )
        for tool in request.tools
    )
    update = {"model": text(request.model), "system": text(request.system)}
    return request.model_copy(update={**update, "messages": messages, "tools": tools, "raw": body})


class WireLog:
    """Thread-safe, append-only record of exchanges, with query helpers for tests."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor if redactor is not None else Redactor()
        self._lock = threading.Lock()
        self._exchanges: list[Exchange] = []
        self._literals: dict[str, str] = {}
        self._file: LogFile | None = None

    def _append(self, exchange: Exchange) -> Signal | None:
        """Add one exchange (under the provider's lock, so in sequence order); with a log
        file, the Signal is set once its line is written."""
        with self._lock:
            self._exchanges.append(exchange)
            return self._file.submit(exchange) if self._file is not None else None

    def _add_literal(self, value: str, replacement: str) -> None:
        with self._lock:
            self._literals[value] = replacement

    def stream_to(self, path: Path) -> LogFile:
        """Write every exchange, from now on, as one JSON line to `path` (see `_logfile`).

        The file's normalizer lives as long as the file, so its numbering is the numbering
        of `export()`. Close it with `close_stream()`.
        """
        with self._lock:
            if self._file is not None:
                raise RuntimeError(f"this log is already written to {self._file.path}")
            normalizer = self._normalizer()
            self._file = LogFile(path, lambda e: normalizer.record(_exchange_record(e)))
            return self._file

    def close_stream(self) -> Exception | None:
        """Finish and close the log file; the error that stopped its writing, if any."""
        with self._lock:
            file, self._file = self._file, None
        if file is None:
            return None
        file.close()
        return file.error

    def __len__(self) -> int:
        return len(self._exchanges)

    def __iter__(self) -> Iterator[Exchange]:
        return iter(list(self._exchanges))

    @property
    def exchanges(self) -> list[Exchange]:
        return list(self._exchanges)

    @property
    def requests(self) -> list[RequestIR]:
        """The IR of every well-formed model request, in arrival order."""
        return [e.ir for e in self._exchanges if e.ir is not None]

    @property
    def last(self) -> RequestIR:
        """The most recent model request; an AssertionError names the problem if none came."""
        requests = self.requests
        if not requests:
            raise AssertionError("the fake provider received no model request")
        return requests[-1]

    def user_texts(self, index: int = -1) -> list[str]:
        """User texts of one request (default: the last), oldest first."""
        requests = self.requests
        if not requests:
            raise AssertionError("the fake provider received no model request")
        return requests[index].user_texts()

    def for_model(self, model: str) -> list[RequestIR]:
        return [r for r in self.requests if r.model == model]

    def _normalizer(self) -> Normalizer:
        return Normalizer(self.redactor, dict(self._literals))

    def export_data(self) -> list[dict[str, Any]]:
        """Plain data for snapshots: no timings, and volatile values normalized."""
        normalizer = self._normalizer()
        return [normalizer.record(_exchange_record(e)) for e in self.exchanges]

    def export(self) -> str:
        """Deterministic pretty JSON of the whole log (see `export_data`)."""
        return json.dumps(self.export_data(), indent=2, ensure_ascii=False) + "\n"


class ExchangeRecord(BaseModel):
    """One exchange as exported (`WireLog.export`, `GET /_turnlaw/log`): the file form
    other tools and languages read. Timings are left out: they are never deterministic."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    dialect: Dialect | None
    method: str
    path: str
    status: int
    step: dict[str, Any] | None = Field(description="script, index, kind and label if any")
    headers: dict[str, str] = Field(description="allow-listed; credentials are '<redacted>'")
    body: Any = Field(description="the parsed request body, key order kept")
    ir: RequestIR | None = Field(description="the neutral IR, without its raw body")
    findings: list[Finding]
    aborted: str | None = Field(
        default=None,
        description=(
            "present only when the request never arrived whole (the client closed the "
            "connection, or its body stalled and was cut off): why. No step was used and "
            "no reply was sent: status is 0"
        ),
    )


_RECORDS = TypeAdapter(list[ExchangeRecord])


def wire_log_schema() -> dict[str, Any]:
    """JSON Schema of an exported wire log (a list of ExchangeRecord). The log file of
    `serve --log` is JSON Lines: each line is one item of this list."""
    schema = _RECORDS.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://turnlaw.dev/schemas/wire-log-v1.json"
    schema["description"] = (
        "A turnlaw wire log: WireLog.export() and GET /_turnlaw/log give this list; the "
        "`serve --log` file is JSON Lines, one ExchangeRecord per line, in seq order."
    )
    return schema


class LogFileError(ValueError):
    """A log file that cannot be read; the message names the line."""


def read_log_file(path: str | Path) -> list[ExchangeRecord]:
    """The records of a `serve --log` file, validated; a last line cut short (the server
    was killed while writing it) is left out."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LogFileError(f"{source}: cannot read the log file: {error}") from error
    lines = text.splitlines()
    if lines and not text.endswith("\n"):  # every whole line ends with one
        lines.pop()
    records: list[ExchangeRecord] = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(ExchangeRecord.model_validate_json(line))
        except ValidationError as error:
            raise LogFileError(
                f"{source}, line {number}: not an ExchangeRecord: {error}"
            ) from error
    return records


def _exchange_record(exchange: Exchange) -> dict[str, Any]:
    step = exchange.step
    record: dict[str, Any] = {
        "seq": exchange.seq,
        "dialect": exchange.dialect.value if exchange.dialect else None,
        "method": exchange.method,
        "path": exchange.path,
        "status": exchange.status,
        "step": {k: v for k, v in asdict(step).items() if v is not None} if step else None,
        "headers": exchange.headers,
        "body": exchange.body,
        "ir": exchange.ir.model_dump(mode="json", exclude={"raw"}) if exchange.ir else None,
        "findings": [f.model_dump(mode="json", exclude_none=True) for f in exchange.findings],
    }
    if exchange.aborted is not None:
        record["aborted"] = exchange.aborted
    return record
