"""The `new_backend` fixture, run by the real runner against the session double: a
fresh store per backend, the same store opened again, every model listed by the fake,
teardown closing every session and then killing every backend, a backend of an
implementation without `sessions` NOT_APPLICABLE, and `case_needs` for a single case;
in process, and through `cmd:` (the double served by conformance.stdio.serve)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.suite_args import PLUGIN_ARGS, nested_suite

ROOT = Path(__file__).resolve().parents[2]

FIXTURE_TESTS = """
import httpx

from conformance.laws._kit import (
    FAKE_KEY,
    Capability,
    RunningBackend,
    SessionAgentSpec,
    SessionOptions,
    case_needs,
)


async def listed(fake):
    async with httpx.AsyncClient() as client:
        reply = await client.get(f"{fake.base_url}/models")
    return [model["id"] for model in reply.json()["data"]]


async def test_a_backend_per_call_and_the_same_store_again(new_backend, fake, dialect, delivery):
    backend = await new_backend()
    assert isinstance(backend, RunningBackend)
    assert backend.store.endswith("backend-store-1") and not backend.spec.killable
    assert backend.spec.api_key == FAKE_KEY and backend.spec.base_url == fake.base_url
    assert backend.spec.dialect is dialect and backend.spec.stream is (delivery.value == "stream")
    agent = await backend.create_agent(SessionAgentSpec())
    session = await backend.resume_session(agent, options=SessionOptions(model="session-model"))
    await session.send("remember me")
    assert (await session.stream()).ended == "result"
    assert await listed(fake) == ["session-model", "turnlaw-model"]
    await backend.close()
    again = await new_backend(store=backend.store, killable=True, model="other-model")
    assert again.store == backend.store and again.spec.killable
    resumed = await again.resume_session(agent)
    assert [m.text for m in await resumed.list_messages()][:1] == ["remember me"]
    assert "other-model" in await listed(fake)
    other = await new_backend()
    assert other.store.endswith("backend-store-3")
    await other.resume_session(await other.create_agent(SessionAgentSpec()))
    assert len(again.sessions) == len(other.sessions) == 1


async def test_a_case_needing_an_undeclared_capability_is_not_applicable(implementation):
    case_needs(implementation, Capability.SESSIONS, case="opening a backend")
    case_needs(implementation, Capability.SESSION_KILL, case="killing the runtime")
"""

ENDED_IN_PROCESS = """
from tests.session_door.double import DOUBLE


def test_teardown_closed_every_session_then_ended_every_backend():
    # the first the test closed itself; teardown kills the killable one and closes the
    # other (it may run in the suite's process, where there is nothing to SIGKILL)
    ended = [backend.ended for backend in DOUBLE.backends]
    assert ended == ["close", "kill", "close"], ended
    assert all(s.closed for backend in DOUBLE.backends for s in backend.sessions)
"""

UNDECLARED = """
async def test_a_backend_needs_sessions(new_backend):
    await new_backend()
"""


def test_the_fixture_against_the_double(pytester: pytest.Pytester) -> None:
    suite = nested_suite(pytester, test_fixture_use=FIXTURE_TESTS, test_zz_ended=ENDED_IN_PROCESS)
    run = suite.runpytest(
        *PLUGIN_ARGS,
        "--impl",
        "tests.session_door.double:DOUBLE",
        "--dialects",
        "openai-chat",
        "--deliveries",
        "stream",
        "-p",
        "no:randomly",
        "-rs",
    )
    run.assert_outcomes(passed=2, skipped=1)
    run.stdout.fnmatch_lines(
        ["*NOT_APPLICABLE: killing the runtime needs the session_kill capability*"]
    )


def test_the_fixture_through_a_stdio_adapter(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the adapter imports tests.session_door
    suite = nested_suite(pytester, test_fixture_use=FIXTURE_TESTS)
    run = suite.runpytest(
        *PLUGIN_ARGS,
        "--impl",
        f"cmd:{sys.executable} -m tests.session_door.double",
        "--validate-protocol",
        "--dialects",
        "openai-chat",
        "--deliveries",
        "stream",
        "-rs",
    )
    run.assert_outcomes(passed=1, skipped=1)


def test_a_backend_of_an_implementation_without_sessions_is_not_applicable(
    pytester: pytest.Pytester,
) -> None:
    suite = nested_suite(pytester, test_undeclared=UNDECLARED)
    run = suite.runpytest(
        *PLUGIN_ARGS,
        "--impl",
        "tests.session_door.double:UNDECLARED",
        "--dialects",
        "openai-chat",
        "-rs",
    )
    run.assert_outcomes(skipped=1)
    run.stdout.fnmatch_lines(
        ["*NOT_APPLICABLE: a backend of the session model needs the sessions capability*"]
    )
