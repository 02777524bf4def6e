"""The reference session runtime behind the suite's session door (docs/sessions.md).

`open_backend` runs `reference_impl.sessions` against the fake: in the suite's own
process (uvicorn on a real loopback socket: cheap) unless the spec is `killable`, then
as a process of its own, which `kill` SIGKILLs. Everything goes through the runtime's own
client (`reference_impl.sessions.client`) over real HTTP and WebSocket connections, and
the adapter only translates: the client's events into the suite's, its refusals into
the suite's kinds. It is the client that runs the session's client tools, from the
catalog.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from typing import Any

from pydantic import TypeAdapter

from conformance.adapter import (
    BackendSpec,
    BreakHow,
    PendingApproval,
    RefusalKind,
    Refused,
    SessionAgentSpec,
    SessionEvent,
    SessionIds,
    SessionOptions,
    SessionState,
    StoredMessage,
    StreamPass,
)
from conformance.catalog import (
    ASK_PERSON,
    CALL_SERVICE,
    ECHO,
    TOOLS,
    WHOAMI,
    CatalogTool,
    WhoamiReport,
)
from conformance.frameworks.kit import call_service

from ._sessions_process import SessionRuntimeProcess, start_session_runtime
from .sessions import MessageBody, open_runtime, serve_sessions
from .sessions import SessionEvent as RuntimeEvent
from .sessions.client import (
    ClientTool,
    Session,
    SessionClient,
    SessionRefusedError,
    SessionUnusableError,
)

_EVENT: TypeAdapter[SessionEvent] = TypeAdapter(SessionEvent)

APPROVED = "approved"
"""What `ask_person` answers when the runtime has the client run it: the only way it
runs is after a person allowed the call (its session names it in `needs_approval`), and
that decision is the person's answer."""


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """The client's refusals in the suite's kinds; anything else propagates."""
    try:
        yield
    except SessionUnusableError as error:
        raise Refused(RefusalKind.SESSION_UNUSABLE, str(error)) from error
    except SessionRefusedError as error:
        if error.code == "ERR_UNKNOWN_ID":
            raise Refused(RefusalKind.UNKNOWN_ID, error.message) from error
        raise


def _event(event: RuntimeEvent) -> SessionEvent:
    """The runtime's event as the suite's: the same fields, nothing filled in."""
    return _EVENT.validate_python(event.model_dump())


def _message(message: MessageBody) -> StoredMessage:
    return StoredMessage(**message.model_dump())


class ReferenceSession:
    """A `SessionUnderTest`: one client session of the reference runtime."""

    def __init__(self, backend: ReferenceBackend, session: Session) -> None:
        self._backend = backend
        self.session = session

    async def ids(self) -> SessionIds:
        s = self.session
        return SessionIds(
            agent_id=s.agent_id, conversation_id=s.conversation_id, session_id=s.session_id
        )

    async def send(self, message: str) -> str | None:
        with _refusals():
            return await self.session.send(message)

    async def stream(self, wait: float | None = None) -> StreamPass:
        events: list[SessionEvent] = []
        try:
            async with asyncio.timeout(wait):
                while True:
                    event = _event(await self.session.next_event())
                    events.append(event)
                    if event.type == "result":
                        return StreamPass(events=tuple(events), ended="result")
                    if event.type == "approval_request":
                        return StreamPass(events=tuple(events), ended="approval")
        except TimeoutError:
            return StreamPass(events=tuple(events), ended="waiting")
        except SessionUnusableError as error:
            if events:
                return StreamPass(events=tuple(events), ended="closed")
            raise Refused(RefusalKind.SESSION_UNUSABLE, str(error)) from error

    async def abort(self) -> None:
        with _refusals():
            await self.session.abort()

    async def decide(self, tool_call_id: str, allow: bool) -> None:
        with _refusals():
            await self.session.decide(tool_call_id, allow)

    async def remove_queued(self, item_id: str) -> bool:
        with _refusals():
            return await self.session.remove_queued(item_id)

    async def list_messages(self) -> list[StoredMessage]:
        with _refusals():
            return [_message(m) for m in await self.session.list_messages()]

    async def state(self) -> SessionState:
        with _refusals():
            state = await self.session.state()
        return SessionState(
            agent_id=state.agent_id,
            conversation_id=state.conversation_id,
            messages=tuple(_message(m) for m in state.messages),
            pending_approvals=tuple(
                PendingApproval(**p.model_dump()) for p in state.pending_approvals
            ),
        )

    async def break_connection(self, how: BreakHow) -> None:
        if how == "drop":
            await self.session.drop()
            return
        await self._backend.kill_runtime()
        await self.session.wait_closed()

    async def close(self) -> None:
        await self.session.close()


class ReferenceBackend:
    """A `BackendUnderTest`: the reference runtime on `spec.store`, and its client."""

    def __init__(
        self,
        spec: BackendSpec,
        client: SessionClient,
        stack: AsyncExitStack,
        process: SessionRuntimeProcess | None,
    ) -> None:
        self.spec = spec
        self.client = client
        self._stack = stack
        self.process = process
        self._sessions: list[Session] = []

    async def create_agent(self, spec: SessionAgentSpec) -> str:
        agent = await self.client.create_agent(system=spec.system, memory=dict(spec.memory))
        return agent.id

    async def create_session(
        self, agent_id: str, options: SessionOptions | None = None
    ) -> ReferenceSession:
        chosen = options or SessionOptions()
        with _refusals():
            session = await self.client.create_session(agent_id, **self._options(chosen))
        return self._opened(session)

    async def resume_session(
        self, id: str, options: SessionOptions | None = None
    ) -> ReferenceSession:
        chosen = options or SessionOptions()
        with _refusals():
            session = await self.client.resume_session(id, **self._options(chosen))
        return self._opened(session)

    async def list_conversations(self, agent_id: str) -> list[str]:
        with _refusals():
            return [c.id for c in await self.client.conversations.list(agent_id)]

    async def list_messages(self, conversation_id: str) -> list[StoredMessage]:
        with _refusals():
            messages = await self.client.conversations.list_messages(conversation_id)
        return [_message(m) for m in messages]

    async def kill_runtime(self) -> None:
        """SIGKILL the runtime process (a killable backend's only)."""
        if self.process is None:
            raise RuntimeError(
                "this backend runs the session runtime inside the suite's process, so it "
                "cannot be SIGKILLed: open it with BackendSpec(killable=True)"
            )
        await self.process.kill()

    async def kill(self) -> None:
        await self.kill_runtime()
        await self._end_sessions()
        await self._stack.aclose()

    async def close(self) -> None:
        await self._end_sessions()
        await self._stack.aclose()
        if self.process is not None:
            await self.process.stop()

    def _opened(self, session: Session) -> ReferenceSession:
        self._sessions.append(session)
        return ReferenceSession(self, session)

    async def _end_sessions(self) -> None:
        for session in self._sessions:
            with contextlib.suppress(Exception):
                await session.close()
        self._sessions.clear()

    def _options(self, options: SessionOptions) -> dict[str, Any]:
        return {
            "tools": [self._tool(TOOLS[name]) for name in options.tools],
            "needs_approval": list(options.needs_approval),
            "model": options.model,
            "can_also_run": [
                self._tool(entry) for name, entry in TOOLS.items() if name not in options.tools
            ],
        }

    def _tool(self, entry: CatalogTool) -> ClientTool:
        """A catalog tool as this client runs it (the session may also run one it did
        not offer: a call an earlier, broken session left waiting for approval)."""
        name, base_url = entry.name, self.spec.base_url

        async def run(arguments: dict[str, Any]) -> str:
            if name == ECHO.name:
                return str(arguments.get("text", ECHO.default("text")))
            if name == WHOAMI.name:
                return WhoamiReport.told(None, None).as_text()
            if name == ASK_PERSON.name:
                return APPROVED
            key = str(arguments.get("key", CALL_SERVICE.default("key")))
            return await call_service(base_url, key)

        return ClientTool(
            name=entry.name,
            fn=run,
            description=entry.description,
            parameters=entry.parameters_schema(),
        )


async def open_reference_backend(
    spec: BackendSpec,
    *,
    runtime_class: str | None = None,
    client_class: type[SessionClient] | None = None,
) -> ReferenceBackend:
    """The reference runtime for `spec`: in this process unless `spec.killable`.
    `runtime_class` (an import path: it may be served in a process of its own) is the
    runtime served; `client_class` the client the adapter drives it through (always in
    this process; None: the reference's `SessionClient`)."""
    stack = AsyncExitStack()
    process: SessionRuntimeProcess | None = None
    try:
        if spec.killable:
            process = await start_session_runtime(spec, runtime_class=runtime_class)
            url = process.url
        else:
            url = (await stack.enter_async_context(_in_process(spec, runtime_class))).url
        client = await stack.enter_async_context((client_class or SessionClient)(url))
    except BaseException:
        await stack.aclose()
        if process is not None:
            await process.kill()
        raise
    return ReferenceBackend(spec, client, stack, process)


@contextlib.asynccontextmanager
async def _in_process(spec: BackendSpec, runtime_class: str | None) -> AsyncIterator[Any]:
    """The runtime served in this process, on a real loopback socket."""
    from .providers import make_provider

    provider: Any = make_provider(
        spec.dialect.value, base_url=spec.base_url, api_key=spec.api_key, stream=spec.stream
    )
    runtime = open_runtime(spec.store, provider, spec.model, runtime_class)
    try:
        async with serve_sessions(runtime) as served:
            yield served
    finally:
        with contextlib.suppress(Exception):
            await provider.client.close()
