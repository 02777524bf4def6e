"""In-process interception works whatever imported httpx first.

These run in a fresh interpreter, because this test process has httpx aliased to
httpx2 (pyproject's `-p conformance.httpx2_alias`) and an alias cannot be undone.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent(
    """
    import asyncio, sys
    import httpx                      # the real httpx, imported first: no alias possible
    import httpx2, openai, anthropic
    from conformance.wire import InProcess, ScriptedProvider, httpx2_is_aliased, text

    assert sys.modules["httpx"] is not httpx2 and not httpx2_is_aliased()

    async def main():
        provider = ScriptedProvider([text("via openai"), text("via anthropic"), text("via httpx")])
        with InProcess(provider):
            o = openai.AsyncOpenAI(base_url=provider.base_url, api_key="k", max_retries=0)
            a = anthropic.AsyncAnthropic(base_url=provider.base_url, api_key="k", max_retries=0)
            r1 = await o.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
            r2 = await a.messages.create(
                model="c", max_tokens=5, messages=[{"role": "user", "content": "x"}]
            )
            async with httpx.AsyncClient() as legacy:  # respx's own territory
                r3 = await legacy.post(
                    "https://api.openai.com/v1/chat/completions",
                    json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
                )
        provider.verify()
        print(r1.choices[0].message.content, r2.content[0].text,
              r3.json()["choices"][0]["message"]["content"], sep="|")

    asyncio.run(main())
    """
)


def test_in_process_catches_httpx2_and_httpx_clients_without_the_alias() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "via openai|via anthropic|via httpx"
