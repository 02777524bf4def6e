"""The Python adapter side (conformance.stdio.serve) against hostile request lines.

Each line goes to the server's request handler, with one agent open. It must never
raise; it answers at most once, with a valid protocol reply echoing the request's seq
(nothing, when the line has no usable seq: there is nothing to echo); and a request
with a field of the wrong type (`"seq": "1"`, `"memory": "yes"`, `"version": true`) is
answered with an error, never carried out (else: a false green).
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance._unicode_text import unicode_text
from conformance.adapter import AgentSpec, Capability, RunOutcome
from conformance.stdio import protocol as p
from conformance.stdio.serve import _Server
from tests.hostile.budget import TALLY, fuzz_settings, judged
from tests.hostile.stdio_lines import OPS, deep_lines, json_values, odd_text_lines, right_request

TARGET = "stdio.serve-request"
NOT_AN_INT = ["7", 7.5, 1.0, True, False, "", [], {}]
NEVER_A_SEQ = [*NOT_AN_INT, None, -1, 2**53]
NEVER_A_BOOL = ["true", "yes", 1, 0, 1.0, None, "", [], {}]
WRONG = {"seq": NEVER_A_SEQ, "version": NEVER_A_SEQ, "spec.window": NOT_AN_INT}


class Refusal(Exception):
    """The server answered with an error reply, or not at all: the line was refused."""


class _Echo:
    """An implementation that is its own agent: it echoes what it is told."""

    name = "echoing"
    capabilities = frozenset({Capability.FOLLOW_UP})

    async def create_agent(self, spec: AgentSpec) -> _Echo:
        return _Echo()

    async def run(self, message: str, **_: Any) -> RunOutcome:
        return RunOutcome(answer=message, checkpoint={"said": message})

    follow_up = run

    async def resume(self, checkpoint: Any, decision: str) -> RunOutcome:
        return RunOutcome(answer=decision)

    async def checkpoint(self) -> Any:
        return {"t": 1}

    async def abandon_pause(self) -> None:
        return None

    async def can_explain(self) -> bool:
        return False

    async def last_identity(self) -> None:
        return None

    async def close(self) -> None:
        return None


@st.composite
def request_lines(draw: st.DrawFn) -> tuple[str, bool]:
    """A request line, and whether it must be refused (a field of the wrong type)."""
    kind = draw(st.sampled_from(["right", "swapped", "swapped", "json", "deep", "odd", "text"]))
    if kind in ("right", "swapped"):
        request = right_request(draw(st.sampled_from(OPS)), draw(st.integers(0, 2**53 - 1)))
        if kind == "right":
            return json.dumps(request), False
        places = ["seq"] + (["version"] if "version" in request else [])
        if "spec" in request:
            places += ["spec.memory", "spec.self_explain", "spec.window"]
        place = draw(st.sampled_from(places))
        wrong = draw(st.sampled_from(WRONG.get(place, NEVER_A_BOOL)))
        if place.startswith("spec."):
            request["spec"] = {**request["spec"], place[5:]: wrong}
        else:
            request[place] = wrong
        return json.dumps(request), True
    if kind == "json":
        return json.dumps(draw(json_values)), False
    if kind == "text":
        return draw(unicode_text(max_size=200)), False
    raw = draw(deep_lines() if kind == "deep" else odd_text_lines())
    return raw.decode("utf-8", errors="replace"), False


async def handle(line: str) -> list[str]:
    out = io.StringIO()
    server = _Server(_Echo(), p.ImplementationInfo(name="x", language="python"), out)  # type: ignore[arg-type]
    server.agents["a1"] = _Echo()  # type: ignore[assignment]
    await server.handle(line)
    return out.getvalue().splitlines()


@fuzz_settings()
@given(request=request_lines())
def test_every_request_line_gets_one_honest_answer_or_none(request: tuple[str, bool]) -> None:
    line, must_refuse = request
    with judged(TARGET, typed=(Refusal,)):
        written = asyncio.run(handle(line))
        if len(written) > 1:
            pytest.fail(f"{line[:200]!r} was answered {len(written)} times")
        replies = [p.REPLIES.validate_json(reply, strict=True) for reply in written]
        if not replies or isinstance(replies[0], p.ErrorReply):
            raise Refusal(line)
        if must_refuse:
            TALLY.add(TARGET, "false_green")
            pytest.fail(f"{line[:200]!r} has a field of the wrong type, but was carried out")
        assert replies[0].seq == json.loads(line)["seq"]
