"""The client's HTTP side and how a session is opened: agents, `client.conversations`,
and the WebSocket handshake (`open`, then `opened` or `refused`)."""

from __future__ import annotations

import builtins
import ssl
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import connect

from .._wire import (
    SERVER_FRAME,
    AgentBody,
    ConversationBody,
    ConversationsBody,
    ErrorBody,
    MessageBody,
    MessagesBody,
    OpenedFrame,
    OpenFrame,
    RefusedFrame,
)
from ._session import ClientTool, Session, SessionClientError, SessionRefusedError

_M = TypeVar("_M", bound=BaseModel)


class SessionClient:
    """Agents, conversations and sessions of one session runtime."""

    session_class: ClassVar[type[Session]] = Session
    """The live session this client opens; a derived client may give a subclass (the
    client is part of the runtime: what a broken socket does to a session is its)."""

    def __init__(
        self, base_url: str, *, timeout: float = 30.0, tls: ssl.SSLContext | None = None
    ) -> None:
        """`tls` is the context HTTPS is verified with (None: httpx's default)."""
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            trust_env=False,
            verify=True if tls is None else tls,
        )
        self.conversations = Conversations(self)

    async def __aenter__(self) -> SessionClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def create_agent(
        self, *, system: str = "", memory: dict[str, str] | None = None, model: str | None = None
    ) -> AgentBody:
        """An agent, with its default conversation (usable at once)."""
        body = {"system": system, "memory": memory or {}, "model": model}
        return await self.request(AgentBody, "POST", "/agents", json=body)

    async def retrieve_agent(self, agent_id: str) -> AgentBody:
        return await self.request(AgentBody, "GET", f"/agents/{_segment(agent_id)}")

    async def create_session(
        self,
        agent_id: str,
        *,
        tools: Sequence[ClientTool] = (),
        needs_approval: Sequence[str] = (),
        model: str | None = None,
        can_also_run: Sequence[ClientTool] = (),
    ) -> Session:
        """A session on a NEW conversation of the agent. `tools` are offered to the model
        in this session only and run here; `can_also_run` are run here when the runtime
        asks (a call an earlier, broken session left waiting for approval) but never
        offered."""
        return await self._open(agent_id, True, tools, needs_approval, model, can_also_run)

    async def resume_session(
        self,
        id: str,
        *,
        tools: Sequence[ClientTool] = (),
        needs_approval: Sequence[str] = (),
        model: str | None = None,
        can_also_run: Sequence[ClientTool] = (),
    ) -> Session:
        """A session on an existing conversation: an agent id resumes its default one, a
        conversation id that one (the options as for `create_session`)."""
        return await self._open(id, False, tools, needs_approval, model, can_also_run)

    async def request(self, model: type[_M], method: str, path: str, **options: Any) -> _M:
        """One HTTP call; a refusal is SessionRefusedError with the runtime's code."""
        reply = await self.http.request(method, path, **options)
        if reply.status_code >= 400:
            try:
                error = ErrorBody.model_validate_json(reply.content)
            except ValidationError:
                raise SessionClientError(f"{method} {path}: HTTP {reply.status_code}") from None
            raise SessionRefusedError(error.code, error.error)
        return model.model_validate_json(reply.content)

    async def _open(
        self,
        target: str,
        new: bool,
        tools: Sequence[ClientTool],
        needs_approval: Sequence[str],
        model: str | None,
        can_also_run: Sequence[ClientTool],
    ) -> Session:
        url = "ws" + self.base_url.removeprefix("http") + "/session"
        socket = await connect(
            url,
            proxy=None,
            open_timeout=self.timeout,
            ping_interval=None,
            compression=None,
            max_size=None,
        )
        opening = OpenFrame(
            target=target,
            new_conversation=new,
            tools=tuple(t.definition() for t in tools),
            needs_approval=tuple(needs_approval),
            model=model,
        )
        try:
            await socket.send(opening.model_dump_json())
            first = SERVER_FRAME.validate_json(await socket.recv())
        except BaseException:
            await socket.close()
            raise
        if isinstance(first, RefusedFrame):
            await socket.close()
            raise SessionRefusedError(first.code, first.error)
        if not isinstance(first, OpenedFrame):
            await socket.close()
            raise SessionClientError(f"the runtime answered `open` with {first.type!r}")
        runs = {t.name: t for t in can_also_run} | {t.name: t for t in tools}
        return self.session_class(self, socket, first, runs)


class Conversations:
    """`client.conversations`: conversations without a session."""

    def __init__(self, client: SessionClient) -> None:
        self._client = client

    async def create(self, agent_id: str) -> ConversationBody:
        body = {"agent_id": agent_id}
        return await self._client.request(ConversationBody, "POST", "/conversations", json=body)

    async def list(self, agent_id: str) -> list[ConversationBody]:
        listed = await self._client.request(
            ConversationsBody, "GET", "/conversations", params={"agent_id": agent_id}
        )
        return list(listed.conversations)

    async def retrieve(self, conversation_id: str) -> ConversationBody:
        path = f"/conversations/{_segment(conversation_id)}"
        return await self._client.request(ConversationBody, "GET", path)

    async def list_messages(self, conversation_id: str) -> builtins.list[MessageBody]:
        path = f"/conversations/{_segment(conversation_id)}/messages"
        return list((await self._client.request(MessagesBody, "GET", path)).messages)


def _segment(value: str) -> str:
    """An id as one path segment."""
    return quote(value, safe="")
