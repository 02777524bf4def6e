"""The reference runtime behind a slow adapter: one run (the TURNLAW_LATE_RUN-th the
session sends, default 2) is carried out late: when the next agent is created (that is,
in the next test, after this run's TIMEOUT), or after 30 s, it makes its model call
(with a client of its own, as a runtime whose close does not cancel in-flight work)
and answers. Once a session: the file named by TURNLAW_LATE_MARK records that it
happened, so a restarted adapter is honest.

A suite that does not stop the adapter at that run's TIMEOUT lets its late model call
land on the next test's fake provider, and an innocent law FAILs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import urllib.request
from pathlib import Path
from typing import Any

from conformance.adapter import AgentSpec, AgentUnderTest, RunOutcome
from conformance.stdio.serve import serve
from reference_impl.adapter import implementation as reference
from reference_impl.adapter._stdio import INFO

MARK = Path(os.environ["TURNLAW_LATE_MARK"])
LATE_RUN = int(os.environ.get("TURNLAW_LATE_RUN", "2"))
runs = 0
created = asyncio.Event()


def model_call(spec: AgentSpec, message: str) -> None:
    body = {"model": spec.model, "messages": [{"role": "user", "content": message}]}
    request = urllib.request.Request(
        spec.base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {spec.api_key}"},
    )
    with contextlib.suppress(OSError):  # an error reply, or no fake: it was made either way
        urllib.request.urlopen(request, timeout=10).read()


class SlowAgent:
    def __init__(self, inner: AgentUnderTest, spec: AgentSpec) -> None:
        self._inner = inner
        self._spec = spec

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def run(self, message: str, **options: Any) -> RunOutcome:
        global runs
        runs += 1
        if runs == LATE_RUN and not MARK.exists():
            MARK.write_text(message, encoding="utf-8")
            created.clear()
            await asyncio.wait_for(created.wait(), 30)
            await asyncio.to_thread(model_call, self._spec, message)
        return await self._inner.run(message, **options)


class SlowImplementation:
    name = reference.name
    capabilities = reference.capabilities
    dialects = reference.dialects
    trace_tool = reference.trace_tool

    async def create_agent(self, spec: AgentSpec) -> SlowAgent:
        created.set()
        return SlowAgent(await reference.create_agent(spec), spec)


serve(SlowImplementation(), INFO)
