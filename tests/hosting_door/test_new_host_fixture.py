"""The `new_host` fixture, run by the real runner against the hosting double: a fresh
store per host, a restart on the same store, callers with their own jars, teardown
killing what is left, minted URLs and cookies learned by the redactor, and a host asking
for an undeclared hosting capability NOT_APPLICABLE."""

from __future__ import annotations

import pytest

from tests.suite_args import PLUGIN_ARGS, nested_suite

FIXTURE_TESTS = """
from conformance.pytest_plugin import session_redactor
from tests.hosting_door.double import DOUBLE


async def test_a_host_per_call_and_a_restart_on_the_same_store(new_host, request):
    host = await new_host(tools=("ask_person",), memory=True, session_cookie="sid")
    assert host.store.endswith("host-store-1.db") and host.spec.agent.memory
    assert host.spec.session_cookie == "sid" and host.spec.agent.tools == ("ask_person",)
    first, second = host.caller(), host.caller(token="t")
    issued = await first.send("hello")
    assert issued.issued_cookie is not None
    assert (await second.send("hello")).issued_cookie != issued.issued_cookie
    redactor = session_redactor(request.config)
    assert redactor.found_in(host.base_url) and redactor.found_in(issued.issued_cookie)
    await host.kill()
    again = await new_host(store=host.store, session_cookie="sid")
    assert again.store == host.store and again.base_url != host.base_url
    other = await new_host()
    assert other.store.endswith("host-store-3.db")


async def test_damage_needs_the_host_gone(new_host):
    host = await new_host()
    await host.stop()
    await host.damage("s1")


async def test_teardown_killed_every_host_left_running():
    assert DOUBLE.hosts and all(h.ended is not None for h in DOUBLE.hosts)
    assert [h.ended for h in DOUBLE.hosts].count("stop") == 1


async def test_an_undeclared_hosting_capability_is_not_applicable(new_host):
    await new_host(on_concurrent_invoke="enqueue")
"""


def test_the_fixture_against_the_double(pytester: pytest.Pytester) -> None:
    suite = nested_suite(pytester, test_fixture_use=FIXTURE_TESTS)
    run = suite.runpytest(
        *PLUGIN_ARGS,
        "--impl",
        "tests.hosting_door.double:DOUBLE",
        "--dialects",
        "openai-chat",
        "-p",
        "no:randomly",
        "-rs",
    )
    run.assert_outcomes(passed=3, skipped=1)
    run.stdout.fnmatch_lines(["*NOT_APPLICABLE: this host needs the hosting_enqueue capability*"])


OWN_WIRE_TESTS = """
import pytest

from conformance.errors import DeclaredButMissing


async def test_the_implementations_own_client_is_used(new_host):
    host = await new_host()
    assert (await host.caller(token="t").send("hi")).output == "mine: hi (t)"
    with pytest.raises(DeclaredButMissing, match="host_client.decide"):
        await host.caller().decide("yes", session_id="s")
"""


def test_a_host_speaking_another_wire_is_called_through_its_own_client(
    pytester: pytest.Pytester,
) -> None:
    suite = nested_suite(pytester, test_own_wire=OWN_WIRE_TESTS)
    run = suite.runpytest(
        *PLUGIN_ARGS, "--impl", "tests.hosting_door.double:OWN_WIRE", "--dialects", "openai-chat"
    )
    run.assert_outcomes(passed=1)
