"""Strict like the best harnesses: exhaustion, leftovers and matchers."""

from __future__ import annotations

import openai
import pytest

from conformance.wire import (
    InProcess,
    LoopbackServer,
    ScriptedProvider,
    Text,
    WireVerificationError,
    text,
)
from tests.wire.clients import ask, chat, openai_client

TRANSPORTS = [InProcess, LoopbackServer]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_exhausted_script_answers_an_error_and_fails_verification(transport: type) -> None:
    provider = ScriptedProvider([text("only one")])
    with transport(provider):
        client = openai_client(provider)
        await client.chat.completions.create(model="m", messages=ask("first"))
        with pytest.raises(openai.BadRequestError, match="ran out"):
            await client.chat.completions.create(model="m", messages=ask("second"))
    (finding,) = provider.findings
    assert finding.kind == "exhausted" and finding.seq == 2
    assert "'second'" in finding.message
    with pytest.raises(WireVerificationError, match=r"\[exhausted\] \(request #2\)"):
        provider.verify()


async def test_nothing_cycles() -> None:
    provider = ScriptedProvider([text("a"), text("b")])
    with InProcess(provider):
        client = openai_client(provider)
        answers = []
        for _ in range(4):
            try:
                reply = await client.chat.completions.create(model="m", messages=ask("x"))
                answers.append(reply.choices[0].message.content)
            except openai.BadRequestError:
                answers.append("refused")
    assert answers == ["a", "b", "refused", "refused"]


async def test_unused_steps_fail_verification_and_can_be_allowed() -> None:
    provider = ScriptedProvider([text("used"), text("never used", label="spare")])
    with InProcess(provider):
        await chat(provider)
    with pytest.raises(WireVerificationError, match=r"1 unused step.*step 1 \(text 'spare'\)"):
        provider.verify()
    provider.allow_unused()
    provider.verify()


async def test_scripts_selected_by_model_keep_separate_queues() -> None:
    provider = ScriptedProvider()
    provider.script([text("billing 1"), text("billing 2")], model="billing-model")
    provider.script([text("support 1")], model="support-model")
    with InProcess(provider):
        client = openai_client(provider)
        got = []
        for model in ["billing-model", "support-model", "billing-model"]:
            reply = await client.chat.completions.create(model=model, messages=ask("x"))
            got.append(reply.choices[0].message.content)
        with pytest.raises(openai.BadRequestError, match="no script matches"):
            await client.chat.completions.create(model="other-model", messages=ask("x"))
        listed = {m.id async for m in client.models.list()}
    assert listed == {"billing-model", "support-model"}
    assert got == ["billing 1", "support 1", "billing 2"]
    assert [e.step.script if e.step else None for e in provider.wire if e.method == "POST"] == [
        "model=billing-model",
        "model=support-model",
        "model=billing-model",
        None,
    ]
    assert [f.kind for f in provider.findings] == ["unmatched"]


async def test_scripts_selected_by_predicate() -> None:
    provider = ScriptedProvider()
    provider.script([text("french")], when=lambda r: "bonjour" in r.user_texts()[-1])
    provider.script([text("english")])
    with InProcess(provider):
        client = openai_client(provider)
        a = await client.chat.completions.create(model="m", messages=ask("hello"))
        b = await client.chat.completions.create(model="m", messages=ask("bonjour"))
    assert (a.choices[0].message.content, b.choices[0].message.content) == ("english", "french")
    provider.verify()


async def test_react_step_sees_the_request() -> None:
    from conformance.wire import React

    provider = ScriptedProvider(
        [React(fn=lambda request: text(f"you said {request.user_texts()[-1]!r}"))]
    )
    with InProcess(provider):
        reply = await chat(provider, "ping")
    assert reply.choices[0].message.content == "you said 'ping'"
    provider.verify()


async def test_react_step_that_raises_is_a_finding_not_a_crash() -> None:
    from conformance.wire import React

    def broken(request: object) -> Text:
        raise ValueError("bug in the test's callback")

    provider = ScriptedProvider([React(fn=broken)])
    with InProcess(provider), pytest.raises(openai.InternalServerError, match="bug in the test"):
        await chat(provider)
    assert [f.kind for f in provider.findings] == ["react_failed"]


def test_fixture_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import openai
        from conformance.wire import text

        ASK = [{"role": "user", "content": "x"}]

        def test_leftover(fake_provider):
            fake_provider.script([text("a"), text("b")])
            client = openai.OpenAI(base_url=fake_provider.base_url, api_key="k")
            client.chat.completions.create(model="m", messages=ASK)

        def test_exhausted(loopback_provider):
            client = openai.OpenAI(base_url=loopback_provider.base_url, api_key="k", max_retries=0)
            with pytest.raises(openai.BadRequestError):
                client.chat.completions.create(model="m", messages=ASK)

        @pytest.mark.turnlaw(allow_unused=True)
        def test_opted_out(fake_provider):
            fake_provider.script([text("never needed")])
        """.replace("import openai", "import openai, pytest")
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=3, errors=2)
    result.stdout.fnmatch_lines(["*[[]unused_steps[]]*", "*[[]unmatched[]]*"])


def test_a_test_skipped_half_way_leaves_its_script_unused_but_not_its_findings(
    pytester: pytest.Pytester,
) -> None:
    # NOT_APPLICABLE found half way (the runtime cannot be asked what the test needs):
    # the steps it never got to are no finding, a request that broke the script still is
    pytester.makepyfile(
        """
        import openai, pytest
        from conformance.wire import text

        ASK = [{"role": "user", "content": "x"}]

        def test_skipped_before_its_calls(fake_provider):
            fake_provider.script([text("a"), text("b")])
            pytest.skip("NOT_APPLICABLE: the adapter cannot be told it")

        def test_skipped_after_an_unscripted_call(loopback_provider):
            client = openai.OpenAI(base_url=loopback_provider.base_url, api_key="k", max_retries=0)
            with pytest.raises(openai.BadRequestError):
                client.chat.completions.create(model="m", messages=ASK)
            pytest.skip("NOT_APPLICABLE: after the fact")
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(skipped=2, errors=1)
    result.stdout.fnmatch_lines(["*test_skipped_after_an_unscripted_call*", "*[[]unmatched[]]*"])
