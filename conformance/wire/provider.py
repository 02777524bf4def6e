"""ScriptedProvider: the strict, recording fake model provider.

It is transport-free. A transport (respx in-process, or the loopback server) turns an
HTTP request into a `RawRequest`, calls `respond()`, and delivers the returned `Plan`.
Everything a law depends on — which step answered, what was recorded, what was wrong —
is decided here, synchronously, at arrival; only the waiting (holds, delays) and the
byte delivery belong to the transport.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..redaction import Redactor
from . import _routes as routes
from . import _strict_json as strict_json
from ._draft import (
    Draft,
    Refusal,
    describe_abort,
    describe_too_large,
    generic_error,
    models_body,
)
from ._plan import Plan, RawRequest, json_plan
from ._rendering import render_step
from ._routes import Endpoint
from .dialects._base import DialectCodec, WireFormatError
from .invariants import check_request
from .ir import Dialect, RequestIR
from .script import (
    Fault,
    Hold,
    Match,
    React,
    ScriptFile,
    Step,
    StreamError,
    Text,
    ToolCalls,
    parse_steps,
)
from .service import ServiceGate
from .wirelog import (
    Delivery,
    Exchange,
    Finding,
    FindingKind,
    StepRef,
    WireLog,
    record_headers,
    scrub_request,
)

DEFAULT_MODELS = ("turnlaw-fake",)
MAX_HOLD_LIMIT = 24 * 3600.0
DEFAULT_MAX_BODY = 32 * 1024 * 1024
"""Request bodies larger than this are refused with a 413: the Anthropic Messages API's
documented limit (32 MB), which is the smallest of the three real APIs'."""


class WireVerificationError(AssertionError):
    """The provider saw something that fails the test (listed in the message)."""

    def __init__(
        self, findings: Sequence[Finding], requests: Mapping[int, RequestIR] | None = None
    ) -> None:
        self.findings = list(findings)
        shown = requests or {}
        lines = [f"turnlaw fake provider: {len(self.findings)} problem(s)"]
        for finding in self.findings:
            where = f" (request #{finding.seq})" if finding.seq is not None else ""
            lines.append(f"- [{finding.kind}]{where} {finding.message}")
            request = shown.get(finding.seq) if finding.seq is not None else None
            if finding.kind == "invariant" and request is not None:
                lines.extend(f"      {line}" for line in describe_request(request))
        super().__init__("\n".join(lines))


def describe_request(request: RequestIR) -> list[str]:
    """The offending request as the model saw it, one numbered line per message."""
    lines = [f"request to {request.model!r} ({request.dialect.value}):"]
    for index, message in enumerate(request.messages):
        calls = ", ".join(f"{c.name}#{c.id}" for c in message.tool_calls)
        answers = f" answers #{message.tool_call_id}" if message.role == "tool" else ""
        said = (message.text[:60] + "…") if len(message.text) > 60 else message.text
        extra = f" calls {calls}" if calls else ""
        lines.append(f"  {index}. {message.role}{answers}: {said!r}{extra}")
    return lines


@dataclass
class Script:
    """A live script: its steps, its matcher and how far it has been consumed."""

    name: str
    steps: list[Step]
    match: Match = field(default_factory=Match)
    when: Callable[[RequestIR], bool] | None = None
    allow_unused: bool = False
    position: int = 0

    def accepts(self, request: RequestIR) -> bool:
        return self.match.accepts(request) and (self.when is None or self.when(request))

    @property
    def exhausted(self) -> bool:
        return self.position >= len(self.steps)

    @property
    def remaining(self) -> list[Step]:
        return self.steps[self.position :]


class ScriptedProvider:
    """A fake provider that answers from scripts and records every request.

    Strict by default: a request after its script ran out is answered with a clear
    error *and* recorded as a finding; steps never used are a finding at `verify()`;
    a request that breaks a wire invariant is a finding. `verify()` raises them all.

    `redactor` learns every credential the runtime sends and scrubs everything recorded;
    pass one Redactor to several providers (the pytest fixtures share one per session) so
    that a secret seen by one is scrubbed by all. `max_body` bytes is the largest body
    accepted; a larger one is a 413 and a `too_large` finding, and uses no step.
    """

    def __init__(
        self,
        steps: Sequence[Step | dict[str, Any]] | None = None,
        *,
        check_invariants: bool = True,
        allow_unused: bool = False,
        hold_limit: float = 60.0,
        max_body: int = DEFAULT_MAX_BODY,
        redactor: Redactor | None = None,
    ) -> None:
        if max_body < 0:
            raise ValueError(f"max_body must be a byte count >= 0, not {max_body!r}")
        if not (math.isfinite(hold_limit) and 0 < hold_limit <= MAX_HOLD_LIMIT):
            raise ValueError(
                f"hold_limit must be seconds > 0 and <= {MAX_HOLD_LIMIT:g} (a hold nobody "
                f"releases must still end), not {hold_limit!r}"
            )
        self.redactor = redactor if redactor is not None else Redactor()
        self.wire = WireLog(self.redactor)
        self._base_url: str | None = None
        self.check_invariants = check_invariants
        self.hold_limit = hold_limit
        self.max_body = max_body
        self._allow_unused = allow_unused
        self.dialect: Dialect | None = None
        """The dialect the runtime was asked to speak (the suite sets it per test), or
        None to answer every dialect's endpoint alike. A request in another dialect is still
        answered, so the runtime goes on, but it is a `wrong_dialect` finding: a run asked
        for Responses that sends Chat Completions proves nothing about Responses."""
        self._scripts: list[Script] = []
        self._holds: list[Hold] = []
        self._services: dict[str, ServiceGate] = {}
        self._listed: set[str] = set()
        self._late_findings: list[Finding] = []
        self._lock = threading.Lock()
        self._seq = 0
        if steps is not None:
            self.script(steps)

    @property
    def base_url(self) -> str | None:
        """Where runtimes should send requests; set by the transport serving this provider."""
        return self._base_url

    @base_url.setter
    def base_url(self, url: str | None) -> None:
        self._base_url = url
        if url:  # a port or test host in a recording is noise: exports say <provider>
            self.wire._add_literal(url.removesuffix("/v1"), "<provider>")

    # -- scripting -------------------------------------------------------------------

    def script(
        self,
        steps: Sequence[Step | dict[str, Any]],
        *,
        name: str | None = None,
        model: str | None = None,
        dialect: Dialect | str | None = None,
        when: Callable[[RequestIR], bool] | None = None,
        allow_unused: bool = False,
    ) -> Script:
        """Add a script. Requests go to the first script whose matcher accepts them."""
        match = Match(model=model, dialect=Dialect(dialect) if dialect else None)
        parsed = parse_steps(steps)
        labels = [h.label for h in self._holds if h.label]
        for step in parsed:
            if isinstance(step, Hold) and step.label:
                if step.label in labels:
                    raise ValueError(
                        f"hold label {step.label!r} is used twice; labels name holds for "
                        "provider.hold() and the release endpoint, so they must be unique"
                    )
                labels.append(step.label)
        with self._lock:
            script = Script(
                name=name or (f"model={model}" if model else f"script-{len(self._scripts)}"),
                steps=parsed,
                match=match,
                when=when,
                allow_unused=allow_unused,
            )
            self._scripts.append(script)
            self._holds.extend(s for s in parsed if isinstance(s, Hold))
        return script

    def load(self, file: ScriptFile) -> None:
        for spec in file.scripts:
            self.script(
                list(spec.steps),
                name=spec.name,
                model=spec.match.model,
                dialect=spec.match.dialect,
                allow_unused=spec.allow_unused,
            )

    def allow_unused(self) -> None:
        """Opt this provider out of the unused-steps check (per test)."""
        self._allow_unused = True

    def hold(self, label: str) -> Hold:
        """The scripted hold with this label."""
        for hold in self._holds:
            if hold.label == label:
                return hold
        raise KeyError(f"no hold labelled {label!r}; labels: {[h.label for h in self._holds]}")

    def service(
        self, key: str, *, reply: str | None = None, held: bool = False, fails: bool = False
    ) -> ServiceGate:
        """Say how `call_service(key)` is answered (see `conformance.wire.service`)."""
        with self._lock:
            if key in self._services:
                raise ValueError(f"service key {key!r} is scripted twice")
            gate = self._services[key] = ServiceGate(key, reply=reply, held=held, fails=fails)
        return gate

    def service_gate(self, key: str) -> ServiceGate:
        """The gate that answers a call for `key`: the scripted one, or one answering
        at once (recorded, so a test can still count the calls)."""
        with self._lock:
            return self._services.setdefault(key, ServiceGate(key))

    def release_all(self) -> None:
        """Release every hold, so that no request is left parked (used at shutdown).

        A hold whose request arrived but that the test never released is a finding:
        the test parked a reply and forgot about it, so whatever it asserted after
        did not see that reply.
        """
        for hold in self._holds:
            if hold.has_arrived and not hold.is_released:
                name = f" '{hold.label}'" if hold.label else ""
                self._late_findings.append(
                    Finding(
                        kind="hold_unreleased",
                        message=f"hold{name}: its request arrived but the test never released it",
                    )
                )
            hold.release()
        for gate in list(self._services.values()):
            gate.release()

    def list_model(self, name: str) -> None:
        """List `name` at GET /v1/models besides the models scripts are matched by: a
        runtime that checks its model against its provider's list (Letta Code refuses a
        model its provider does not list) is then given one it can use, whichever
        script answers it."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a model id is a non-empty string, not {name!r}")
        with self._lock:
            self._listed.add(name)

    @property
    def models(self) -> list[str]:
        """What GET /v1/models lists: every model a script is matched by and every model
        `list_model` named, sorted; the default list when there is none."""
        with self._lock:
            named = {s.match.model for s in self._scripts if s.match.model} | self._listed
        return sorted(named) or list(DEFAULT_MODELS)

    # -- verification ----------------------------------------------------------------

    @property
    def findings(self) -> list[Finding]:
        """Findings so far, plus unused steps (unless allowed)."""
        found = [finding for exchange in self.wire for finding in exchange.findings]
        return found + self._late_findings + self._unused_findings()

    def _unused_findings(self) -> list[Finding]:
        if self._allow_unused:
            return []
        return [
            Finding(
                kind="unused_steps",
                message=(
                    f"script '{s.name}' has {len(s.remaining)} unused step(s), starting at "
                    f"step {s.position} ({_describe(s.remaining[0])}); the runtime made fewer "
                    "model calls than scripted (or call provider.allow_unused())"
                ),
            )
            for s in self._scripts
            if not s.exhausted and not s.allow_unused
        ]

    def verify(self) -> None:
        """Raise WireVerificationError if anything should fail the test."""
        findings = self.findings
        if findings:
            requests = {e.seq: e.ir for e in self.wire if e.ir is not None}
            error = WireVerificationError(findings, requests)
            error.args = (self.redactor.scrub_text(str(error)),)  # it reaches the terminal
            raise error

    def _report_late(self, finding: Finding) -> None:
        """A finding that arose after its exchange was recorded (see `Plan.late_finding`)."""
        self._late_findings.append(
            finding.model_copy(update={"message": self.redactor.scrub_text(finding.message)})
        )

    # -- answering -------------------------------------------------------------------

    def respond(self, raw: RawRequest) -> Plan:
        """Decide and record the answer to one request. Never raises, whatever arrives.

        Parsing happens outside the lock; numbering, step consumption and logging happen
        inside one critical section, so sequence numbers, the log's order and the order
        steps were used always agree, even under concurrency. The exchange is built once,
        at the end of it, from what parsing (`Draft`) and the step decided; nothing
        writes to it after, and its delivery time goes to its `Delivery`.
        """
        arrived = time.monotonic()
        redactor = self.redactor
        redactor.learn_headers(raw.headers)  # first: everything below is scrubbed with them
        if "?" in raw.path:
            redactor.learn_query(raw.path)
        route = routes.resolve(raw.method, raw.path)
        codec = route.codec
        method = redactor.scrub_text(raw.method)
        path = redactor.scrub_text(raw.path.split("?", 1)[0])
        headers = record_headers(raw.headers, redactor)
        draft = Draft()
        try:
            outcome = self._parse(raw, route, draft, (method, path))
        except Exception as error:  # a fake that dies on bad input hides the evidence
            outcome = Refusal("internal", f"turnlaw: internal error: {error!r}", 500)
        delivery = Delivery()
        with self._lock:
            self._seq += 1
            seq = self._seq
            try:
                plan = self._decide(outcome, codec, seq, draft)
            except Exception as error:
                refusal = Refusal("internal", f"turnlaw: internal error: {error!r}", 500)
                plan = self._refuse(refusal, codec, draft)
            exchange = Exchange(
                seq=seq,
                dialect=codec.dialect if codec else None,
                method=method,
                path=path,
                headers=headers,
                body=draft.body,
                ir=draft.ir,
                step=draft.step,
                status=plan.status,
                arrived_at=arrived,
                findings=self._findings(seq, draft.problems),
                aborted=draft.aborted,
                delivery=delivery,
            )
            plan.seq = seq
            plan.delivery = delivery
            plan.report = self._report_late
            plan.recorded = self.wire._append(exchange)
        if plan.hold is not None:
            plan.hold._mark_arrived(exchange.ir)
        return plan

    def _parse(
        self, raw: RawRequest, route: routes.Resolved, draft: Draft, asked: tuple[str, str]
    ) -> RequestIR | Plan | Refusal:
        """Everything that needs no lock: the body's size, JSON, the dialect, the invariants.
        What it learns about the request goes into `draft`, as soon as it is known."""
        if raw.cut is not None and raw.cut.reason in ("aborted", "stalled"):
            draft.aborted = self.redactor.scrub_text(describe_abort(raw.cut))
            return Plan(0, [], [])  # nobody is left to read a reply
        size = raw.cut.received if raw.cut is not None else len(raw.body)
        limit = min(self.max_body, raw.cut.limit or self.max_body) if raw.cut else self.max_body
        if size > limit or (raw.cut is not None and raw.cut.reason == "too_large"):
            return Refusal("too_large", describe_too_large(raw.cut, size, limit), 413)
        endpoint = route.endpoint
        if endpoint is Endpoint.MODELS:
            return json_plan(200, models_body(self.models, raw.headers))
        codec = route.codec
        if endpoint is not Endpoint.DIALECT or codec is None:
            message = f"turnlaw: no endpoint {asked[0]} {asked[1]}; served: {routes.SERVED}"
            status = 405 if endpoint is Endpoint.METHOD_NOT_ALLOWED else 404
            return Refusal("unknown_endpoint", message, status, route.allow)
        redactor = self.redactor
        try:
            body = strict_json.loads(raw.body)
        except strict_json.JsonRefusal as error:
            draft.body = redactor.scrub_text(raw.body.decode("utf-8", "replace"))
            return Refusal("malformed", f"turnlaw: request body: {error}", 400)
        # Parsed as sent, stored scrubbed: a key that is also a word ("messages") must not
        # change what the request means. `\u` escapes can spell a key the raw bytes hide.
        secret_inside = redactor.found_in(raw.body) or (
            bool(redactor.secrets) and b"\\u" in raw.body
        )
        draft.body = redactor.scrub_data(body) if secret_inside else body
        try:
            request = codec.parse_request(body)
        except WireFormatError as error:
            return Refusal("malformed", f"turnlaw: {error}", 400)
        draft.ir = scrub_request(request, redactor, draft.body) if secret_inside else request
        if self.dialect is not None and codec.dialect is not self.dialect:
            draft.problems.append(("wrong_dialect", wrong_dialect(self.dialect, codec, asked[1])))
        if self.check_invariants and (problems := check_request(request, codec)):
            draft.problems.extend(("invariant", problem) for problem in problems)
        return request

    def _decide(
        self,
        outcome: RequestIR | Plan | Refusal,
        codec: DialectCodec | None,
        seq: int,
        draft: Draft,
    ) -> Plan:
        """Under the lock: consume a step and render it, or render the refusal."""
        if isinstance(outcome, Plan):
            return outcome
        if isinstance(outcome, Refusal):
            return self._refuse(outcome, codec, draft)
        assert codec is not None
        answer = self._play(outcome, codec, seq, draft)
        if isinstance(answer, Refusal):
            return self._refuse(answer, codec, draft)
        return answer

    def _play(
        self, request: RequestIR, codec: DialectCodec, seq: int, draft: Draft
    ) -> Plan | Refusal:
        """The next step of the first script that accepts `request`, rendered; or why not.
        The step is reported to `draft` as soon as it is used: a rendering that raises
        must not hide which step the request consumed."""
        for script in self._scripts:  # a loop, not next(genexpr): once per request
            if script.accepts(request):
                break
        else:
            message = (
                f"turnlaw: no script matches this request (model {request.model!r}, "
                f"{request.dialect.value}); scripts: {[s.name for s in self._scripts]}"
            )
            return Refusal("unmatched", message, 400)
        if script.exhausted:
            message = (
                f"turnlaw: script '{script.name}' ran out: this is request #{seq} "
                f"(model {request.model!r}) and all {len(script.steps)} scripted step(s) were "
                f"used. Last user text: {(request.user_texts() or [''])[-1][:80]!r}"
            )
            return Refusal("exhausted", message, 400)
        index = script.position
        step = script.steps[index]
        script.position += 1
        draft.step = StepRef(script.name, index, step.kind, step.label)
        if isinstance(step, React):
            try:
                produced: object = step.fn(request)
            except Exception as error:  # a broken test callback must still answer
                message = f"turnlaw: react step {index} raised {error!r}"
                return Refusal("react_failed", message, 500)
            if not isinstance(produced, Text | ToolCalls | Fault | StreamError | Hold):
                message = (
                    f"turnlaw: react step {index} returned {produced!r}; expected a step "
                    "(Text, ToolCalls, Fault, StreamError or Hold)"
                )
                return Refusal("react_failed", message, 500)
            step = produced
        hold: Hold | None = None
        if isinstance(step, Hold):
            hold, step = step, step.then
            if hold not in self._holds:  # made by a React step: reachable like any other
                self._holds.append(hold)
        plan = render_step(step, request, codec, seq)
        plan.hold = hold
        plan.hold_limit = self.hold_limit
        streamed = plan.headers[:1] == [("content-type", "text/event-stream")]
        plan.hold_at_end = hold is not None and hold.at == "stream_end" and streamed
        return plan

    def _refuse(self, refusal: Refusal, codec: DialectCodec | None, draft: Draft) -> Plan:
        """The error reply, in the dialect's shape; its finding goes to `draft`."""
        message = self.redactor.scrub_text(refusal.message)
        draft.problems.append((refusal.kind, message))
        body = codec.render_error(refusal.status, message) if codec else generic_error(message)
        plan = json_plan(refusal.status, body)
        if refusal.allow:
            plan.headers.append(("allow", refusal.allow))
        if refusal.status == 413:  # the rest of the body may still be coming: drop it
            plan.headers.append(("connection", "close"))
        return plan

    def _findings(self, seq: int, problems: list[tuple[FindingKind, str]]) -> tuple[Finding, ...]:
        if not problems:
            return ()
        scrub = self.redactor.scrub_text
        return tuple(Finding(kind=kind, seq=seq, message=scrub(text)) for kind, text in problems)


def wrong_dialect(asked: Dialect, codec: DialectCodec, path: str) -> str:
    """What a request in a dialect other than the one asked for is told, and recorded."""
    return (
        f"turnlaw: this run was asked to speak {asked.value}, but this request came to the "
        f"{codec.dialect.value} endpoint ({path}): the runtime was built for another dialect"
    )


def _describe(step: Step) -> str:
    return f"{step.kind} '{step.label}'" if step.label else step.kind


__all__ = ["Script", "ScriptedProvider", "WireVerificationError"]
