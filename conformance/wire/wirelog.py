"""The recorder: every request the runtime sent, exactly, in arrival order.

This is the evidence every law is judged on, so it keeps the parsed body with its key
order, the IR view of it, which scripted step answered, and what was wrong with it.
Credentials are redacted on the way in, not on the way out: a key is never stored.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .ir import Dialect, RequestIR

REDACTED = "<redacted>"
CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})
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
    "hold_expired",
    "hold_unreleased",
    "unused_steps",
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


@dataclass(slots=True)
class Exchange:
    """One request and how the fake answered it.

    A slotted dataclass rather than a pydantic model: one is built for every request on
    the provider's hot path, and every value in it is already validated or built here.
    Its file form is `ExchangeRecord` (see `WireLog.export`).
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
    finished_at: float | None = None  # when the reply was fully sent
    findings: list[Finding] = field(default_factory=list)

    @property
    def duration(self) -> float | None:
        return None if self.finished_at is None else self.finished_at - self.arrived_at


MIN_SECRET_LENGTH = 8  # shorter "keys" (tests use "k") would shred ordinary words


def split_headers(headers: Iterable[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:
    """(allow-listed headers with credentials replaced by a marker, the credentials).

    Takes every (name, value) pair, so a credential sent twice is caught twice; one pass
    on the hot path, since every request goes through here.
    """
    kept: dict[str, str] = {}
    secrets: list[str] = []
    for name, value in headers:
        key = name.lower()
        if key not in RECORDED_HEADERS:
            continue
        if key in CREDENTIAL_HEADERS:
            kept[key] = REDACTED
            for part in value.split(","):  # a client may have joined repeats with commas
                credential = part.strip()
                if credential:
                    secrets.append(credential)
                    scheme, _, token = credential.partition(" ")
                    if token and scheme.lower() == "bearer":
                        secrets.append(token.strip())
        else:
            kept[key] = f"{kept[key]}, {value}" if key in kept else value
    return dict(sorted(kept.items())), secrets


def scrub(body: Any, secrets: list[str], raw: bytes) -> Any:
    """Replace any credential the runtime copied into the body (rare, so checked cheaply)."""
    present = [s for s in secrets if len(s) >= MIN_SECRET_LENGTH and s.encode() in raw]
    if not present:
        return body

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for secret in present:
                value = value.replace(secret, REDACTED)
            return value
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(body)


class WireLog:
    """Thread-safe, append-only record of exchanges, with query helpers for tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._exchanges: list[Exchange] = []
        self._secrets: set[str] = set()
        self._literals: dict[str, str] = {}

    def _append(self, exchange: Exchange) -> None:
        with self._lock:
            self._exchanges.append(exchange)

    def _add_secret(self, value: str) -> None:
        if len(value) >= MIN_SECRET_LENGTH and value not in self._secrets:
            with self._lock:
                self._secrets.add(value)

    def _add_literal(self, value: str, replacement: str) -> None:
        with self._lock:
            self._literals[value] = replacement

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

    def export_data(self) -> list[dict[str, Any]]:
        """Plain data for snapshots: no timings, and volatile values normalized."""
        literals = {secret: REDACTED for secret in self._secrets} | self._literals
        normalizer = _Normalizer(literals)
        return [normalizer.value(_exchange_record(e)) for e in self._exchanges]

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


def wire_log_schema() -> dict[str, Any]:
    """JSON Schema of an exported wire log (a list of ExchangeRecord)."""
    schema = TypeAdapter(list[ExchangeRecord]).json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://turnlaw.dev/schemas/wire-log-v1.json"
    return schema


def _exchange_record(exchange: Exchange) -> dict[str, Any]:
    step = exchange.step
    return {
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


# Volatile values, each numbered by first appearance within one export: `<uuid-1>` is
# the same id wherever it appears and `<uuid-2>` a different one, so a snapshot still
# shows whether a runtime reused an id — which is often exactly what a law is about.
_NUMBERED = [
    (
        "uuid",
        re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    ),
    (
        "timestamp",
        re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
    ),
    # dashless hex ids (uuid4().hex, run ids): 12+ hex digits with a digit and a letter
    ("hex", re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b")),
]
_FIXED = [
    (re.compile(r"(?<![\w.])(127\.0\.0\.1|localhost|\[::1\]):\d{2,5}\b"), r"\1:<port>"),
    (re.compile(r"\b(?:sk|sk-ant|pk|rk)-[A-Za-z0-9_\-]{8,}"), REDACTED),
]


class _Normalizer:
    """Rewrite volatile values inside every string of a JSON-like value."""

    def __init__(self, literals: dict[str, str]) -> None:
        self._literals = sorted(literals.items(), key=lambda item: len(item[0]), reverse=True)
        self._seen: dict[str, dict[str, str]] = {kind: {} for kind, _ in _NUMBERED}

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def text(self, text: str) -> str:
        for literal, replacement in self._literals:
            text = text.replace(literal, replacement)
        for kind, pattern in _NUMBERED:
            seen = self._seen[kind]

            def number(match: re.Match[str], kind: str = kind, seen: dict[str, str] = seen) -> str:
                return seen.setdefault(match.group(0), f"<{kind}-{len(seen) + 1}>")

            text = pattern.sub(number, text)
        for pattern, replacement in _FIXED:
            text = pattern.sub(replacement, text)
        return text
