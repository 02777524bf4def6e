"""The adapter side of protocol v1, for runtimes written in Python.

`serve(implementation, info)` reads requests from stdin and answers on stdout until
`stop` or EOF, so any `conformance.adapter.Implementation` becomes a `cmd:` adapter
(`python -m reference_impl.adapter` is one), with its hosts and, for a
`SessionImplementation`, its backends and sessions, each under the handle the suite
chose. Each request runs as its own task, so a held `run` does not keep a second request
from being answered: the in-flight and pending laws see the runtime's own concurrency,
not this loop's. Requests are read with strict types, as the connector reads replies:
`"seq": "1"` is not seq 1, `"yes"` is not true.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import traceback
from typing import IO, Any, cast

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import from_json

from ..adapter import (
    AGENT,
    BACKEND,
    DAMAGE_SESSION,
    HOST,
    REVISION,
    SESSION,
    AgentUnderTest,
    BackendUnderTest,
    CompactionTrigger,
    Delivery,
    HostStarted,
    HostUnderTest,
    Implementation,
    Op,
    Refused,
    RunFailed,
    SessionUnderTest,
    declaration_of,
)
from ..wire.ir import Dialect
from ._reply_line import summary
from .protocol import (
    PROTOCOL_VERSION,
    REQUESTS,
    BackendRequest,
    ErrorReply,
    FailedReply,
    HostRequest,
    ImplementationInfo,
    ImplementationRequest,
    OkReply,
    RefusedReply,
    Request,
    Seq,
    SessionRequest,
    StartRequest,
    StartResult,
    StopRequest,
)

SEQ: TypeAdapter[int] = TypeAdapter(Seq)


class _Server:
    def __init__(
        self, implementation: Implementation, info: ImplementationInfo, out: IO[str]
    ) -> None:
        self.implementation = implementation
        self.info = info
        self.agents: dict[str, AgentUnderTest] = {}
        self.hosts: dict[str, HostUnderTest] = {}
        self.backends: dict[str, BackendUnderTest] = {}
        self.sessions: dict[str, SessionUnderTest] = {}
        self._out = out
        self._write_lock = threading.Lock()
        self.stopped = asyncio.Event()

    def write(self, reply: BaseModel) -> None:
        with self._write_lock:
            self._out.write(reply.model_dump_json() + "\n")
            self._out.flush()

    async def handle(self, line: str) -> None:
        try:
            # types strict, unknown fields ignored: a newer suite's field is not an error
            request: Request = REQUESTS.validate_json(line, strict=True, extra="ignore")
        except ValidationError as error:
            seq = _seq_of(line)
            message = f"not a protocol v{PROTOCOL_VERSION} request: {summary(error)}"
            if seq is None:  # nothing to echo: say it on stderr, the connector will time out
                print(f"turnlaw adapter: {message}", file=sys.stderr, flush=True)
                return
            self.write(ErrorReply(seq=seq, message=message))
            return
        try:
            result = await self.dispatch(request)
        except Refused as refusal:
            self.write(RefusedReply(seq=request.seq, kind=refusal.kind, message=refusal.message))
        except RunFailed as failure:
            self.write(
                FailedReply(
                    seq=request.seq,
                    message=failure.message,
                    checkpoint=failure.checkpoint,
                    cause=failure.cause,
                )
            )
        except Exception as error:
            self.write(
                ErrorReply(
                    seq=request.seq,
                    message=f"{type(error).__name__}: {error}",
                    traceback=traceback.format_exc(),
                )
            )
        else:
            self.write(OkReply(seq=request.seq, result=_plain(result)))
        if isinstance(request, StopRequest):
            self.stopped.set()

    async def dispatch(self, request: Request) -> Any:
        if isinstance(request, StartRequest):
            declared = declaration_of(self.implementation)
            return StartResult(
                implementation=self.info,
                capabilities=sorted(self.implementation.capabilities),
                dialects=[d for d in Dialect if d in declared.dialects],
                deliveries=[d for d in Delivery if d in declared.deliveries],
                trace_tool=declared.trace_tool,
                trace_activation=declared.trace_activation,
                # as declared: StartResult's own validation is the check, as for a cmd: reply
                compaction_triggers=cast(
                    list[CompactionTrigger], list(declared.compaction_triggers)
                ),
                agent_id_pattern=cast("str | None", declared.agent_id_pattern),
                notes=list(declared.notes),
                # serve knows every field of its suite; an implementation written
                # against an older revision says so
                revision=REVISION if declared.revision is None else declared.revision,
            )
        if isinstance(request, StopRequest):
            await self.close_all()
            return None
        if isinstance(request, HostRequest):
            return await self.host(request)
        if isinstance(request, BackendRequest):
            return await self.backend(request)
        if isinstance(request, SessionRequest):
            return await self.session(request)
        if isinstance(request, ImplementationRequest):
            damage = getattr(self.implementation, DAMAGE_SESSION.name)
            await damage(getattr(request, "store"), getattr(request, "session_id"))  # noqa: B009
            return None
        op = AGENT.by_op[request.op]
        args, kwargs = _arguments(op, request)
        if op is AGENT.create:
            create = getattr(self.implementation, op.name)
            self.agents[request.agent] = await create(*args, **kwargs)
            return None
        found = self.agents.get(request.agent)
        if found is None:
            raise LookupError(f"no open agent {request.agent!r}: create it with agent.create")
        if op is AGENT.close:
            del self.agents[request.agent]
        result = await getattr(found, op.name)(*args, **kwargs)
        return None if op.reply is None else result  # a reply that carries nothing

    async def host(self, request: HostRequest) -> Any:
        """The host ops: start one (answering where it serves), kill it, or stop it."""
        op = HOST.by_op[request.op]
        if op is HOST.create:
            spec = getattr(request, "spec")  # noqa: B009 - the start request's own field
            host: HostUnderTest = await getattr(self.implementation, op.name)(spec)
            try:
                started = HostStarted(
                    base_url=host.base_url, wire_profile=getattr(host, "wire_profile", None)
                )
            except ValueError:
                await host.kill()  # it must not serve on, unreachable by the suite
                raise
            self.hosts[request.host] = host
            return started
        found = self.hosts.pop(request.host, None)
        if found is None:
            raise LookupError(f"no running host {request.host!r}: start it with host.start")
        await getattr(found, op.name)()
        return None

    async def backend(self, request: BackendRequest) -> Any:
        """The backend ops: open one, or call an open one (whose create_session and
        resume_session open a session under the handle the request names)."""
        op = BACKEND.by_op[request.op]
        args, kwargs = _arguments(op, request)
        if op is BACKEND.create:
            opened = await getattr(self.implementation, op.name)(*args, **kwargs)
            self.backends[request.backend] = opened
            return None
        found = self.backends.get(request.backend)
        if found is None:
            raise LookupError(f"no open backend {request.backend!r}: open it with backend.open")
        if op.name in (BACKEND.close.name, "kill"):  # either ends it
            del self.backends[request.backend]
        result = await getattr(found, op.name)(*args, **kwargs)
        if op.opens is not None:
            self.sessions[getattr(request, op.opens.handle)] = result
            return None
        return None if op.reply is None else result

    async def session(self, request: SessionRequest) -> Any:
        """The session ops, on a session a backend opened."""
        op = SESSION.by_op[request.op]
        args, kwargs = _arguments(op, request)
        found = self.sessions.get(request.session)
        if found is None:
            raise LookupError(
                f"no open session {request.session!r}: open it with backend.create_session "
                "or backend.resume_session"
            )
        if op is SESSION.close:
            del self.sessions[request.session]
        result = await getattr(found, op.name)(*args, **kwargs)
        return None if op.reply is None else result

    async def close_all(self) -> None:
        """The adapter is stopping: its hosts and backends are killed (nothing may
        outlive it and serve a later run, or reach a later test's fake), its sessions
        and agents closed. A session or backend that fails to end is reported on stderr,
        and the rest are still ended."""
        for host in list(self.hosts.values()):
            await host.kill()
        self.hosts.clear()
        ends: list[tuple[str, Any]] = [
            *((f"session {h}", s.close) for h, s in self.sessions.items()),
            *((f"backend {h}", b.kill) for h, b in self.backends.items()),
        ]
        self.sessions.clear()
        self.backends.clear()
        for name, end in ends:
            try:
                await end()
            except Exception as error:
                print(
                    f"turnlaw adapter: ending {name} on stop: {type(error).__name__}: {error}",
                    file=sys.stderr,
                    flush=True,
                )
        for agent in list(self.agents.values()):
            await agent.close()
        self.agents.clear()


def _arguments(op: Op, request: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The op's arguments from its request. An optional parameter the suite left unset
    is not passed, as the laws call an in-process adapter: one written before the
    parameter was added (resume's session_id) keeps working until a law needs it."""
    args, kwargs = op.call_args({name: getattr(request, name) for name in op.fields})
    return args, {key: value for key, value in kwargs.items() if value is not None}


def _plain(result: Any) -> Any:
    if isinstance(result, list):  # list_messages: models in a list
        return [_plain(item) for item in result]
    return result.model_dump(mode="json") if isinstance(result, BaseModel) else result


def _seq_of(line: str) -> int | None:
    """The request's seq, to echo in an error reply, if it has a valid one."""
    try:
        data = from_json(line, allow_inf_nan=False)  # depth-limited, unlike json.loads
    except ValueError:
        return None
    seq = data.get("seq") if isinstance(data, dict) else None
    try:
        return SEQ.validate_python(seq)
    except ValidationError:
        return None


async def serve_async(
    implementation: Implementation,
    info: ImplementationInfo,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> None:
    """Answer requests until `stop` (or EOF on stdin), then return."""
    loop = asyncio.get_running_loop()
    server = _Server(implementation, info, stdout or sys.stdout)
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    source = stdin or sys.stdin

    def read() -> None:  # a thread: reading a pipe must not block the runtime's loop
        for line in source:
            if line.strip():
                loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=read, name="turnlaw-stdin", daemon=True).start()
    tasks: set[asyncio.Task[None]] = set()
    while not server.stopped.is_set():
        next_line = asyncio.ensure_future(lines.get())
        stopped = asyncio.ensure_future(server.stopped.wait())
        await asyncio.wait({next_line, stopped}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if not next_line.done():
            next_line.cancel()
            break
        line = next_line.result()
        if line is None:
            break
        task = asyncio.create_task(server.handle(line))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks, timeout=5)
    await server.close_all()


def serve(implementation: Implementation, info: ImplementationInfo) -> None:
    """`serve_async` on a new event loop: the body of a Python stdio adapter's main."""
    asyncio.run(serve_async(implementation, info))
