"""The one scrubber: what it learns, every form it scrubs, and its stated limits."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import quote, quote_plus

import httpx
import pytest

from conformance.redaction import MIN_SECRET_LENGTH, REDACTED, Redactor
from conformance.wire import InProcess, ScriptedProvider, text
from tests.wire.clients import base_url, post_chat

KEY = 'tl-Zq8+Xw/2"Lp\\0Rk=4Vm'


def test_every_form_of_a_learned_key_is_scrubbed() -> None:
    redactor = Redactor([KEY])
    forms = [
        KEY,
        json.dumps(KEY)[1:-1],
        json.dumps(KEY, ensure_ascii=True)[1:-1],
        quote(KEY, safe=""),
        quote_plus(KEY, safe=""),
        re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(KEY, safe="")),
    ]
    for form in forms:
        assert redactor.scrub_text(f"before {form} after") == f"before {REDACTED} after"
    assert redactor.found_in(f"x{json.dumps(KEY)}x".encode())


def test_scrub_data_reaches_keys_values_and_nesting() -> None:
    redactor = Redactor([KEY])
    data = {KEY: [KEY, {"n": f"a {KEY}", "k": (KEY,)}], "plain": 3}
    assert redactor.scrub_data(data) == {
        REDACTED: [REDACTED, {"n": f"a {REDACTED}", "k": (REDACTED,)}],
        "plain": 3,
    }


@pytest.mark.parametrize(
    ("header", "value", "learned"),
    [
        ("Authorization", "Bearer tl-bearer-0123456789", "tl-bearer-0123456789"),
        ("Proxy-Authorization", "Bearer tl-proxy-0123456789", "tl-proxy-0123456789"),
        (
            "authorization",
            "Basic " + base64.b64encode(b"me:tl-basic-pass-01").decode(),
            "tl-basic-pass-01",
        ),
        (
            "authorization",
            "Basic " + base64.b64encode(b"tl-basic-user-01:").decode(),
            "tl-basic-user-01",
        ),
        ("Cookie", "a=1; session=tl-cookie-0123456789", "tl-cookie-0123456789"),
        ("OpenAI-Organization", "org-tl0123456789", "org-tl0123456789"),
        ("OpenAI-Project", "proj_tl0123456789", "proj_tl0123456789"),
        ("x-goog-api-key", "AIzaTlExampleKey012345", "AIzaTlExampleKey012345"),
        ("X-Auth-Token", "tl-token-0123456789", "tl-token-0123456789"),
        ("x-api-key", "tl-a-0123456789, tl-b-0123456789", "tl-b-0123456789"),
    ],
)
def test_credentials_are_learned_from_every_header_that_carries_them(
    header: str, value: str, learned: str
) -> None:
    redactor = Redactor()
    redactor.learn_headers([(header, value), ("user-agent", "tl-not-a-secret-123")])
    assert learned in redactor.secrets
    assert "tl-not-a-secret-123" not in redactor.secrets


def test_credential_query_parameters_are_learned() -> None:
    redactor = Redactor()
    redactor.learn_query(
        "/v1/chat?api-version=2024-10-21&api-key=tl%2Bquery%2F0123&sig=tl-sig-0123456"
    )
    assert redactor.secrets == {"tl+query/0123", "tl-sig-0123456"}


def test_short_values_are_not_learned_and_key_shapes_are_scrubbed_anyway() -> None:
    redactor = Redactor(["k", "x" * (MIN_SECRET_LENGTH - 1)])
    assert redactor.secrets == frozenset()
    shaped = "sk-proj-AbCdEf0123456789 and sk-ant-api03-AbCdEf0123456789"
    assert redactor.scrub_text(shaped) == f"{REDACTED} and {REDACTED}"


def test_providers_sharing_a_redactor_scrub_each_others_keys() -> None:
    shared = Redactor()
    first = ScriptedProvider([text("a")], redactor=shared)
    second = ScriptedProvider([text("b")], redactor=shared)
    key = "tl-shared-key-0123456789"
    with InProcess(first):
        post_chat(base_url(first), headers={"x-goog-api-key": key})
    with InProcess(second):  # this runtime sends no credential, but quotes the key
        post_chat(base_url(second), f"it was {key}")
    assert key not in second.wire.export() and key not in repr(second.wire.exchanges)
    assert second.redactor is first.redactor is shared


def test_the_session_shares_one_redactor_across_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        from conformance.pytest_plugin import session_redactor
        from conformance.wire import text

        KEY = "tl-session-key-0123456789"
        CHAT = {"model": "m", "messages": [{"role": "user", "content": "x " + KEY}]}

        def test_sees_the_key(fake_provider):
            fake_provider.script([text("a")])
            httpx.post(fake_provider.base_url + "/chat/completions",
                       headers={"Proxy-Authorization": "Bearer " + KEY}, json=CHAT)

        def test_later_provider_scrubs_it(loopback_provider, pytestconfig):
            loopback_provider.script([text("b")])
            httpx.post(loopback_provider.base_url + "/chat/completions", json=CHAT)
            assert loopback_provider.redactor is session_redactor(pytestconfig)
            assert KEY in session_redactor(pytestconfig).secrets
            assert KEY not in loopback_provider.wire.export()
        """
    )
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:asyncio").assert_outcomes(
        passed=2
    )


def test_the_verification_error_is_scrubbed_too() -> None:
    key = "tl-verify-key-0123456789"
    provider = ScriptedProvider([])
    with InProcess(provider):
        post_chat(base_url(provider), f"last {key}", headers={"OpenAI-Organization": key})
    with pytest.raises(AssertionError) as raised:
        provider.verify()
    assert "ran out" in str(raised.value) and key not in str(raised.value)


@pytest.mark.parametrize("word", ["messages", "assistant", "anthropic-messages", "tool_calls"])
def test_a_secret_that_is_a_structural_word_never_breaks_the_request_or_the_export(
    word: str,
) -> None:
    """Found by the fuzzer: `Authorization: messages` made the export's dialect
    'anthropic-<redacted>'. Secrets are scrubbed from what the runtime sent, never from the
    record's own structure (dialect, roles, IR field names), and never before parsing."""
    from pydantic import TypeAdapter

    from conformance.wire.wirelog import ExchangeRecord

    provider = ScriptedProvider([text("a"), text("b")])
    with InProcess(provider), httpx.Client() as client:
        for path, body in (
            (
                "/messages",
                {"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
            ),
            (
                "/chat/completions",
                {
                    "model": "m",
                    "messages": [
                        {"role": "user", "content": "x"},
                        {"role": "assistant", "content": "y"},
                        {"role": "user", "content": f"z {word}"},
                    ],
                },
            ),
        ):
            reply = client.post(
                f"{provider.base_url}{path}",
                headers={"authorization": word, "anthropic-version": "2023-06-01"},
                json=body,
            )
            assert reply.status_code == 200, reply.text
    records = TypeAdapter(list[ExchangeRecord]).validate_json(provider.wire.export())
    assert [r.dialect for r in records] == ["anthropic-messages", "openai-chat"]
    assert records[1].ir is not None
    assert [m.role for m in records[1].ir.messages] == ["user", "assistant", "user"]
    assert records[1].ir.messages[2].text == "z <redacted>"
    provider.verify()


def test_a_new_credential_on_every_request_is_still_learned_and_scrubbed() -> None:
    """Probes are kept incrementally: learning used to compare every form with every other
    on each learn (quadratic), so a runtime sending a fresh key per request slowed the fake
    down request by request."""
    redactor = Redactor()
    keys = [f"tl-rotating-{n:05d}-key" for n in range(500)]
    for key in keys:
        redactor.learn_headers([("x-api-key", key), ("authorization", f"Bearer {key}")])
    assert len(redactor.secrets) == 1000
    for key in (keys[0], keys[250], keys[-1]):
        assert redactor.scrub_text(f"a {key} b Bearer {key}") == f"a {REDACTED} b {REDACTED}"
